// Small helpers shared by the readers and the writers of output files.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sparsemap::io {

// The most a text reader (.m, .csv, .yaml, .mtx, .json, .npy) takes in: 256 MiB.
inline constexpr size_t kMaxInputBytes = size_t{256} << 20;

// Whole file as bytes, read in chunks so that a device or a pipe (a link to /dev/zero, say)
// cannot grow memory past `max_bytes`. Throws InputError naming the path when it cannot be
// read, is a directory, or holds more than `max_bytes`.
std::string read_file(const std::string& path, size_t max_bytes = kMaxInputBytes);

// "a, b,,c" -> {"a", "b", "c"}: a comma-separated list (a flag's value), spaces and empty items
// dropped.
std::vector<std::string> split_list(const std::string& s);

// A file shipped with sparsemap (`relative`, e.g. "data/dnnfuser/fuser.bin", as in the
// repository): as found from the working directory, else below the folder holding sparsemap's
// code (sys::code_folder): FOLDER/relative (the Python package, whose module has data/ beside
// it), FOLDER/../share/sparsemap/relative (an executable installed in PREFIX/bin),
// FOLDER/share/sparsemap/relative (an executable in the build tree, which copies data/ there);
// `relative` itself when none has it, for the error to name. Never the source tree's path.
std::string shipped_data_file(const std::string& relative);

// Fails before any work when `path` (a file to write at the end) cannot be: InputError at
// "<flag FLAG>" when it is a directory, or in a folder that does not exist or is not writable.
// "-" (stdout) and "" (none) pass.
void check_output_file(const std::string& path, const std::string& flag);

// Writes `text` to `path` (binary, replacing it); InputError naming the path when it cannot.
void write_text_file(const std::string& path, const std::string& text);

// Creates folder `dir` (and its parents) for output named by `flag` (e.g. "--emit-m");
// InputError when it names an existing file or cannot be created.
void make_output_dir(const std::string& dir, const std::string& flag);

// read_file, then JSON: a syntax error is an InputError at PATH:line:column saying "invalid
// JSON" and that the file was expected to be `what` ("a search checkpoint"); a directory, a
// missing file or an oversized one as read_file says.
nlohmann::json read_json(const std::string& path, const std::string& what);

// `text` without a leading UTF-8 byte order mark (EF BB BF), which editors on Windows add: text
// readers (.m, .csv, .mtx) call it so that a BOM never becomes part of the first token.
inline std::string_view without_bom(std::string_view text) {
  return text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? text.substr(3) : text;
}

}  // namespace sparsemap::io
