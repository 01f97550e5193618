// Small helpers shared by the readers.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace sparsemap::io {

// The most a text reader (.m, .csv, .yaml, .mtx, .json, .npy) takes in: 256 MiB.
inline constexpr size_t kMaxInputBytes = size_t{256} << 20;

// Whole file as bytes, read in chunks so that a device or a pipe (a link to /dev/zero, say)
// cannot grow memory past `max_bytes`. Throws InputError naming the path when it cannot be
// read, is a directory, or holds more than `max_bytes`.
std::string read_file(const std::string& path, size_t max_bytes = kMaxInputBytes);

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
