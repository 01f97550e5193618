// Helpers shared by the format sources: error reporting and common checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/sparse/format/dense.h"

namespace sparsemap::sparse::detail {

// Throws InputError at "<format>".
[[noreturn]] void fail(const char* format, const std::string& message);
// Sizes >= 0 and < 2^31.
void check_shape(const char* format, int64_t rows, int64_t cols);
// A conversion's input: a valid view and a mask of the same shape.
void check_input(const char* format, ConstMatrixView a, const Mask* keep);
// A stored-entry count that fits int32.
void check_count(const char* format, int64_t n);
// A pointer array of lines + 1 entries from 0 to `entries`, non-decreasing.
void check_ptr(const char* format, const std::vector<int32_t>& ptr, int64_t lines, int64_t entries,
               const char* line_name);
// Indices in [0, limit), strictly increasing within each line.
void check_indices(const char* format, const std::vector<int32_t>& ptr,
                   const std::vector<int32_t>& idx, int64_t lines, int64_t limit,
                   const char* line_name);
// Whether entry (r, c) is stored: the mask's say, or non-zero without a mask.
bool kept(ConstMatrixView a, const Mask* keep, int64_t r, int64_t c);

}  // namespace sparsemap::sparse::detail
