// Einsum: look-ups over the problem's dimensions, data spaces and coefficients.
#include "sparsemap/workload/einsum.h"

#include <cstdint>
#include <map>

#include "sparsemap/error.h"
#include "sparsemap/workload/layer.h"

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

namespace sparsemap::workload {

Einsum to_einsum(const Layer& l) {
  if (!is_gemm_class(l.kind))
    throw InputError({l.name},
                     "expected a layer with multiply-accumulates (CONV, FC, GEMM, ...), "
                     "found " +
                         std::string(op_kind_name(l.kind)));
  Einsum e;
  e.name = l.name.empty() ? "layer" : l.name;
  e.dims = {"C", "M", "R", "S", "N", "P", "Q", "G"};
  e.coefficients = {{"Wstride", 1}, {"Hstride", 1}, {"Wdilation", 1}, {"Hdilation", 1}};
  const auto term = [](const char* dim) { return ProjectionTerm{dim, "", 1}; };
  const auto scaled = [](const char* dim, const char* coef) {
    return ProjectionTerm{dim, coef, 1};
  };
  e.data_spaces = {
      {"Weights", {{term("C")}, {term("M")}, {term("R")}, {term("S")}, {term("G")}}, false},
      {"Inputs",
       {{term("N")},
        {term("C")},
        {scaled("R", "Wdilation"), scaled("P", "Wstride")},
        {scaled("S", "Hdilation"), scaled("Q", "Hstride")},
        {term("G")}},
       false},
      {"Outputs", {{term("N")}, {term("M")}, {term("Q")}, {term("P")}, {term("G")}}, true}};
  std::map<std::string, int64_t> b = {{"C", 1}, {"M", 1}, {"R", 1}, {"S", 1},
                                      {"N", 1}, {"P", 1}, {"Q", 1}, {"G", 1}};
  const int64_t n = l.dim(Dim::N), g = l.dim(Dim::G), k = l.dim(Dim::K), c = l.dim(Dim::C);
  switch (l.kind) {
    case OpKind::Conv:
    case OpKind::TrConv:
    case OpKind::NgConv:
    case OpKind::DsConv:
      b = {{"C", l.kind == OpKind::DsConv ? 1 : c},
           {"M", l.kind == OpKind::DsConv ? 1 : k},
           {"R", l.dim(Dim::R)},
           {"S", l.dim(Dim::S)},
           {"N", n},
           {"P", l.out_y()},
           {"Q", l.out_x()},
           {"G", l.kind == OpKind::DsConv   ? c
                 : l.kind == OpKind::NgConv ? g
                                            : 1}};
      if (l.kind != OpKind::TrConv)
        e.coefficient_values = {{"Wstride", l.stride.y},
                                {"Hstride", l.stride.x},
                                {"Wdilation", l.dilation.y},
                                {"Hdilation", l.dilation.x}};
      break;
    case OpKind::Fc:
      b["C"] = c;
      b["M"] = k;
      b["N"] = n;
      break;
    case OpKind::Gemm:
    case OpKind::BatchedGemm:
      b["P"] = l.dim(Dim::M);
      b["C"] = k;
      b["M"] = n;
      if (l.kind == OpKind::BatchedGemm) b["G"] = g;
      break;
    default:
      break;
  }
  e.bounds = b;
  return e;
}

}  // namespace sparsemap::workload
