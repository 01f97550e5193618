// A tensor problem as Timeloop describes it: named loop dimensions, data spaces indexed by
// affine projections of them (sums of coefficient x dimension), and one bound per dimension.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sparsemap::workload {

// One term of a projection: coefficient x dim. The coefficient is either a named coefficient
// of the shape (Wstride, Hdilation, ...) or, when `coefficient` is empty, the literal `literal`.
struct ProjectionTerm {
  std::string dim;          // a name of Einsum::dims
  std::string coefficient;  // a name of Einsum::coefficients, or empty
  int64_t literal = 1;      // used when `coefficient` is empty
  bool operator==(const ProjectionTerm& o) const {
    return dim == o.dim && coefficient == o.coefficient && literal == o.literal;
  }
};

// One axis of a data space: the sum of its terms (e.g. Wstride*P + Wdilation*R).
using ProjectionExpr = std::vector<ProjectionTerm>;

struct DataSpace {
  std::string name;                        // Weights, Inputs, Outputs, ...
  std::vector<ProjectionExpr> projection;  // one expression per axis of the tensor
  bool read_write = false;                 // true for the output (it is updated, partial sums)
  bool operator==(const DataSpace& o) const {
    return name == o.name && projection == o.projection && read_write == o.read_write;
  }
};

struct Coefficient {
  std::string name;
  int64_t default_value = 1;
  bool operator==(const Coefficient& o) const {
    return name == o.name && default_value == o.default_value;
  }
};

// Timeloop's problem: `shape` (name, dimensions, coefficients, data_spaces) and `instance`
// (dimension bounds, coefficient values).
struct Einsum {
  std::string name;
  std::vector<std::string> dims;  // loop dimensions, in the order the shape lists them
  std::vector<Coefficient> coefficients;
  std::vector<DataSpace> data_spaces;
  std::map<std::string, int64_t> bounds;              // instance: dim -> bound (>= 1)
  std::map<std::string, int64_t> coefficient_values;  // instance overrides of the defaults

  bool operator==(const Einsum& o) const {
    return name == o.name && dims == o.dims && coefficients == o.coefficients &&
           data_spaces == o.data_spaces && bounds == o.bounds &&
           coefficient_values == o.coefficient_values;
  }

  // Index of `dim` in dims, or -1.
  int dim_index(const std::string& dim) const;
  // Index of data space `name`, or -1.
  int data_space_index(const std::string& name) const;
  // Bound of `dim` (1 when the instance does not name it).
  int64_t bound(const std::string& dim) const;
  // Value of a term's coefficient: the instance's value, else the shape's default, else the
  // literal.
  int64_t coefficient(const ProjectionTerm& t) const;
  // Product of all bounds: the number of multiply-accumulates (operations); INT64_MAX when it
  // would overflow.
  int64_t operations() const;
};

struct Layer;

// Timeloop's CNN-layer problem (its layer_shapes' problem_base: dimensions C M R S N P Q G,
// coefficients Wstride Hstride Wdilation Hdilation, data spaces Weights [C, M, R, S, G],
// Inputs [N, C, Wdilation R + Wstride P, Hdilation S + Hstride Q, G], Outputs [N, M, Q, P, G])
// for a GEMM-class layer: Conv / TrConv with P, Q the output rows and columns (stride and
// dilation as the coefficients); NgConv with G groups; DsConv with G = C channels and C = M =
// 1; Fc as N x M outputs over C inputs; Gemm O[M][N] += A[M][K] B[K][N] as P = M, C = K,
// M = N (B the weights); BatchedGemm the same with G = batch. The MACs equal layer.macs().
// Throws InputError naming the layer for a NonGEMM kind.
Einsum to_einsum(const Layer& layer);

}  // namespace sparsemap::workload
