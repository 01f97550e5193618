// Small helpers shared by the readers.
#pragma once

#include <cstddef>
#include <string>

namespace sparsemap::io {

// The most a text reader (.m, .csv, .yaml, .mtx, .json, .npy) takes in: 256 MiB.
inline constexpr size_t kMaxInputBytes = size_t{256} << 20;

// Whole file as bytes, read in chunks so that a device or a pipe (a link to /dev/zero, say)
// cannot grow memory past `max_bytes`. Throws InputError naming the path when it cannot be
// read, is a directory, or holds more than `max_bytes`.
std::string read_file(const std::string& path, size_t max_bytes = kMaxInputBytes);

}  // namespace sparsemap::io
