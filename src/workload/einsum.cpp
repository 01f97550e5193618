// Einsum: look-ups over the problem's dimensions, data spaces and coefficients.
#include "sparsemap/workload/einsum.h"

#include <cstdint>

namespace sparsemap::workload {

int Einsum::dim_index(const std::string& dim) const {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == dim) return static_cast<int>(i);
  return -1;
}

int Einsum::data_space_index(const std::string& ds) const {
  for (size_t i = 0; i < data_spaces.size(); ++i)
    if (data_spaces[i].name == ds) return static_cast<int>(i);
  return -1;
}

int64_t Einsum::bound(const std::string& dim) const {
  const auto it = bounds.find(dim);
  return it == bounds.end() ? 1 : it->second;
}

int64_t Einsum::coefficient(const ProjectionTerm& t) const {
  if (t.coefficient.empty()) return t.literal;
  if (const auto it = coefficient_values.find(t.coefficient); it != coefficient_values.end())
    return it->second;
  for (const auto& c : coefficients)
    if (c.name == t.coefficient) return c.default_value;
  return 1;
}

int64_t Einsum::operations() const {
  int64_t n = 1;
  for (const auto& d : dims) {
    const int64_t b = bound(d);
    if (b > 0 && n > INT64_MAX / b) return INT64_MAX;  // saturates rather than overflows
    n *= b;
  }
  return n;
}

}  // namespace sparsemap::workload
