// Small helpers shared by the readers.
#include "sparsemap/io/util.h"

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
    out.append(buf, static_cast<size_t>(in.gcount()));
    if (out.size() > max_bytes)
      throw InputError({path, 0, 0}, "more than " + std::to_string(max_bytes >> 20) +
                                         " MiB; expected an input file of sensible size");
  }
  if (in.bad()) throw InputError({path, 0, 0}, "cannot read: I/O error while reading");
  return out;
}

}  // namespace sparsemap::io
