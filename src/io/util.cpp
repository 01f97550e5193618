// Small helpers shared by the readers and the writers of output files.
#include "sparsemap/io/util.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sparsemap/error.h"

namespace sparsemap::io {

// Errors: "PATH: cannot read: <reason>", with the reason from the OS, or "is a directory".
std::string read_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError({path, 0, 0}, "cannot read: is a directory, expected a file");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw InputError({path, 0, 0}, std::string("cannot read: ") +
                                       (err != 0 ? std::strerror(err) : "cannot open the file"));
  }
  std::string out;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    // Checked before appending, so the string never grows past max_bytes.
    if (out.size() + static_cast<size_t>(in.gcount()) > max_bytes)
      throw InputError({path, 0, 0}, "more than " + std::to_string(max_bytes >> 20) +
                                         " MiB; expected an input file of sensible size");
    out.append(buf, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError({path, 0, 0}, "cannot read: I/O error while reading");
  return out;
}

nlohmann::json read_json(const std::string& path, const std::string& what) {
  const std::string text = read_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::out_of_range&) {  // a number such as 1e99999 (fuzz finding)
    throw InputError({path, 0, 0}, "expected " + what + ": a number is out of range");
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte: 1-based offset of the byte where parsing failed.
    const size_t at = std::min(e.byte > 0 ? e.byte - 1 : 0, text.size());
    int line = 1, column = 1;
    for (size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
      throw InputError({path, 0, 0}, "empty file; expected " + what);
    throw InputError({path, line, column}, "invalid JSON; expected " + what);
  }
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

void check_output_file(const std::string& path, const std::string& flag) {
  if (path.empty() || path == "-") return;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError({"<flag " + flag + ">", 0, 0}, "'" + path + "' is a directory");
  const std::filesystem::path p(path);
  const std::filesystem::path dir =
      p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0)
    throw InputError({"<flag " + flag + ">", 0, 0},
                     "cannot write '" + path + "': its folder does not exist or is not writable");
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text) || !out.flush())
    throw InputError({path, 0, 0}, "cannot write the file");
}

void make_output_dir(const std::string& dir, const std::string& flag) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw InputError({dir, 0, 0}, flag + " names an existing file; expected a folder");
  if (!std::filesystem::create_directories(dir, ec) && ec)
    throw InputError({dir, 0, 0}, "cannot create the " + flag + " folder: " + ec.message());
}

}  // namespace sparsemap::io
