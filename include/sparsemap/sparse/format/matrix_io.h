// Readers and writers of outside matrix files: Matrix Market (.mtx) and NumPy (.npy).
#pragma once

#include <string>

#include "sparsemap/sparse/format/formats.h"

namespace sparsemap::sparse {

// Matrix Market. Reads `matrix coordinate` (real, integer or pattern; general, symmetric or
// skew-symmetric; duplicate entries are summed, pattern entries are 1) and `matrix array`
// (real or integer, general; column-major as the format says). Throws InputError at
// file:line for anything else or malformed text. `name` labels errors for text readers.
CsrMatrix read_mtx(const std::string& path);
CsrMatrix parse_mtx(const std::string& text, const std::string& name = "<mtx>");
DenseMatrix read_mtx_dense(const std::string& path);

// Writes `coordinate real general` (1-based, entries in row order), or `array real general`
// for a dense matrix. Throws InputError when the file cannot be written.
void write_mtx(const CsrMatrix& a, const std::string& path);
void write_mtx(const DenseMatrix& a, const std::string& path);

// NumPy .npy (format versions 1-3): 1-D (read as 1 x n) or 2-D arrays of little-endian
// float32, float64, int32 or int64, C or Fortran order, converted to fp32. Throws InputError
// for other dtypes, big-endian data, more dimensions or a size that does not match the file.
DenseMatrix read_npy(const std::string& path);
DenseMatrix parse_npy(const std::string& bytes, const std::string& name = "<npy>");
// Writes version 1.0, '<f4', C order.
void write_npy(const DenseMatrix& a, const std::string& path);

}  // namespace sparsemap::sparse
