// The actual-tensor density model's input: a NumPy file read as one data space's tensor
// (`densities: {Weights: {distribution: actual, file: w.npy}}` in a Timeloop problem).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/error.h"
#include "sparsemap/sparse/format/dense.h"
#include "sparsemap/workload/density.h"
#include "sparsemap/workload/einsum.h"

namespace sparsemap::io {

// Extents of data space `ds` of `p` per projection axis, over the whole problem: axis a spans
// 1 + sum over its terms of coefficient x (bound - 1) points.
std::vector<int64_t> data_space_extents(const workload::Einsum& p, int ds);

// Whether a 2-D array of rows x cols is a view of a tensor of these axis extents: rows x cols
// equals the points and rows = a_0 x ... x a_{j-1} for some split j (cols the rest; j = 0 is
// a 1-D array, read as 1 x points).
bool is_two_dimensional_view(int64_t rows, int64_t cols, const std::vector<int64_t>& extents);

// Reads `path` (.npy, 1-D or 2-D; sparse::read_npy) as the tensor of data space `ds` of `p`:
// its values in C order are the tensor's points in row-major order over the data space's
// projection axes (the first axis slowest; Timeloop's CNN layer: Weights [C, M, R, S, G]), a
// point is nonzero when its value is not 0. The array's shape must be a two-dimensional view of
// the axes (is_two_dimensional_view). Returns workload::actual_density of it, its source the
// path. Throws InputError at `where` (the YAML line naming the file) for an unknown data space,
// a missing or unreadable file, or a shape that does not match, naming both shapes.
workload::DensityModel read_actual_density(const std::string& path, const workload::Einsum& p,
                                           const std::string& ds, const SourceLocation& where);

// The same for values already read (`a`, e.g. sparse::parse_npy's), labelled `source`: the
// shape check and the tensor. InputError at `where` for an unknown data space or another shape.
workload::DensityModel actual_density_of(const sparse::DenseMatrix& a, const workload::Einsum& p,
                                         const std::string& ds, const SourceLocation& where,
                                         const std::string& source);

}  // namespace sparsemap::io
