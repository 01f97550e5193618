// Sparsity of a layer's tensors, Sparseloop-style: density and structure per tensor, gating or
// skipping of ineffectual MACs, and compressed storage (values plus metadata).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/cost/cost.h"
#include "sparsemap/workload/tensor_format.h"

namespace sparsemap::cost {

// How zeros are laid out. Dense: no zeros assumed. Unstructured: nonzeros anywhere (density d).
// NM: N nonzeros in every group of M along the reduction dimension (density N/M). ColumnVector:
// vectors of V consecutive elements are kept or pruned whole (density d = kept vectors). Block:
// H x W blocks kept or pruned whole.
enum class Structure : uint8_t { Dense, Unstructured, NM, ColumnVector, Block };

// Gate: an ineffectual MAC (an operand is zero) costs no energy but takes its cycle; data are
// stored uncompressed. Skip: it costs neither; data are stored compressed (values + metadata),
// which is what lets the hardware find the nonzeros.
enum class SparseMode : uint8_t { Gate, Skip };

struct TensorSparsity {
  double density = 1.0;     // fraction of nonzeros used by evaluate() (NM: n / m; a range:
                            // its upper end)
  double density_lo = 1.0;  // lower end of a range "lo:hi" for mappers (== density otherwise)
  Structure structure = Structure::Dense;
  int n = 0, m = 0;              // NM
  int vector_length = 0;         // ColumnVector
  int block_h = 0, block_w = 0;  // Block

  bool dense() const { return structure == Structure::Dense && density >= 1.0; }
  bool operator==(const TensorSparsity& o) const;
};

struct SparsityOptions {
  std::array<TensorSparsity, kNumTensors> tensors{};  // by cost::Tensor
  SparseMode mode = SparseMode::Gate;

  bool dense() const { return tensors[0].dense() && tensors[1].dense() && tensors[2].dense(); }
  bool operator==(const SparsityOptions& o) const { return tensors == o.tensors && mode == o.mode; }
};

// A structure's per-rank formats in the one vocabulary of formats (workload/tensor_format.h;
// docs/formats.md) as this path prices them, and what one unit of `unit_elements` elements of
// the tensor holds of each rank (expected counts, d = density):
//   Dense         U(elements)                                  unit 1 element
//   Unstructured  B(elements; m1)                              unit 1 element: 1 bit
//   NM            U(groups) CP(N of M; m ceil(log2 M))         unit 1 element: d coordinates
//   ColumnVector  CP(vectors; m16) U(rows%V)                   unit V elements: d coordinates
//   Block         CP(blocks; m16) U(rows%H) U(cols%W)          unit H*W elements: d coordinates
// Coordinates are 16-bit where the kernels store int32, and the outer offsets rank of CVSE and
// BSR (UOP, a constant per row group rather than per element) is left out. No ranks (and 0
// elements) for a structure whose parameters are missing (m, V or H*W < 1).
struct StructureFormat {
  workload::TensorFormat format;
  std::vector<workload::RankOccupancy> unit;  // per rank, outermost first
  double unit_elements = 0;
};
StructureFormat structure_format(const TensorSparsity& t);

// Metadata bits stored per element of the (uncompressed) tensor when it is compressed: the bits
// of structure_format(t) (workload::format_bits) over its unit's elements:
//   Unstructured  1                          (a bitmask)
//   NM            (n/m) * ceil(log2 m)       (the position of each kept value in its group)
//   ColumnVector  d * 16 / V                 (a 16-bit column index per kept vector)
//   Block         d * 16 / (H*W)             (a 16-bit index per kept block)
//   Dense         0
double metadata_bits_per_element(const TensorSparsity& t);

// Words moved or stored per element, relative to a dense tensor of `word_bits`-bit words:
//   Gate mode or a dense tensor: 1;
//   Skip mode: min(1, d + metadata_bits_per_element / word_bits)
// (a format that would be larger than the dense tensor falls back to dense storage).
double storage_ratio(const TensorSparsity& t, SparseMode mode, int word_bits);

// Fraction of MACs whose operands are all nonzero: d_input * d_weight.
double effectual_fraction(const SparsityOptions& s);

// Parses the CLI/JSON vocabulary into `out` (docs/design.md): --density "W=0.25,I=1.0" or
// "W=0.1:0.5" (T in W, I, O; a range keeps both ends, evaluation uses the upper end), and
// --structure "W=nm:2:4", "W=cvse:8", "W=block:4x4", "I=dense", "W=unstructured". Several
// entries are separated by commas. Throws InputError at `flag` naming what was expected.
void parse_density_flag(const std::string& text, SparsityOptions& out,
                        const std::string& flag = "--density");
void parse_structure_flag(const std::string& text, SparsityOptions& out,
                          const std::string& flag = "--structure");
SparseMode parse_sparse_mode(const std::string& text, const std::string& flag = "--sparse-mode");

// "dense", "d=0.25", "nm:2:4", "cvse:8 d=0.5", ...: one line for tables and JSON.
std::string describe(const TensorSparsity& t);

}  // namespace sparsemap::cost
