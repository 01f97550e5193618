#include "sparsemap/io/actual_density.h"

#include <filesystem>
#include <memory>

#include "sparsemap/sparse/format/matrix_io.h"

namespace sparsemap::io {

std::vector<int64_t> data_space_extents(const workload::Einsum& p, int ds) {
  std::vector<int64_t> out;
  for (const auto& axis : p.data_spaces[static_cast<size_t>(ds)].projection) {
    int64_t len = 1;
    for (const auto& t : axis)
      if (p.dim_index(t.dim) >= 0) len += p.coefficient(t) * (p.bound(t.dim) - 1);
    out.push_back(len);
  }
  return out;
}

bool is_two_dimensional_view(int64_t rows, int64_t cols, const std::vector<int64_t>& extents) {
  int64_t points = 1;
  for (int64_t a : extents) points *= a;
  if (rows < 0 || cols < 0 || rows * cols != points) return false;
  int64_t lead = 1;
  if (lead == rows) return true;
  for (int64_t a : extents) {
    lead *= a;
    if (lead == rows) return true;
  }
  return false;
}

namespace {

std::string shape_text(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t a : v) s += (s.empty() ? "" : " x ") + std::to_string(a);
  return s.empty() ? "a scalar" : s;
}

}  // namespace

workload::DensityModel actual_density_of(const sparse::DenseMatrix& a, const workload::Einsum& p,
                                         const std::string& ds, const SourceLocation& where,
                                         const std::string& source) {
  const int d = p.data_space_index(ds);
  if (d < 0)
    throw InputError(where, "expected densities of the problem's data spaces, found '" + ds + "'");
  const std::vector<int64_t> ext = data_space_extents(p, d);
  if (!is_two_dimensional_view(a.rows, a.cols, ext))
    throw InputError(where, "'" + source + "' holds " + std::to_string(a.rows) + " x " +
                                std::to_string(a.cols) + " values; expected " + ds + "'s tensor, " +
                                shape_text(ext) +
                                " (1-D, or 2-D splitting its axes in this order)");
  std::vector<uint8_t> nz(a.values.size());
  for (size_t i = 0; i < nz.size(); ++i) nz[i] = a.values[i] != 0.0f;
  return workload::actual_density(
      std::make_shared<const workload::TensorOccupancy>(ext, std::move(nz), source));
}

workload::DensityModel read_actual_density(const std::string& path, const workload::Einsum& p,
                                           const std::string& ds, const SourceLocation& where) {
  if (p.data_space_index(ds) < 0)
    throw InputError(where, "expected densities of the problem's data spaces, found '" + ds + "'");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(where, "no file '" + path + "' for the actual density of " + ds);
  sparse::DenseMatrix a;
  try {
    a = sparse::read_npy(path);
  } catch (const InputError& e) {
    throw InputError(where, "the actual density of " + ds + ": " + e.what());
  }
  return actual_density_of(a, p, ds, where, path);
}

}  // namespace sparsemap::io
