// Small helpers shared by the readers.
#pragma once

#include <string>

namespace sparsemap::io {

// Whole file as bytes. Throws InputError naming the path when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace sparsemap::io
