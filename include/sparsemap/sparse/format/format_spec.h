// A small vocabulary that names a format and its parameters ("csr", "cvse:8", "nm:2:4", ...),
// and AnySparse, one value that holds any format, with the generic operations on it.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "sparsemap/sparse/format/formats.h"
#include "sparsemap/workload/tensor_format.h"

namespace sparsemap::sparse {

enum class FormatKind { Dense, Csr, Bsr, Cvse, Nm, Vnm };

// A format and its parameters. Text forms (parse_format / str):
//   dense | csr | bsr:HxW | cvse:V | nm:N:M | nm:N:M:col | vnm:V:N:M
struct FormatSpec {
  FormatKind kind = FormatKind::Dense;
  int v = 1;                  // cvse: vector length; vnm: row-block height
  int n = 0;                  // nm, vnm
  int m = 0;                  // nm, vnm
  int bh = 1;                 // bsr block height
  int bw = 1;                 // bsr block width
  NmAxis axis = NmAxis::Row;  // nm

  std::string str() const;
  // The family name used in JSON: "dense", "csr", "bsr", "cvse", "nm", "vnm".
  std::string family() const;
  // The format's per-rank formats, outermost first, in the one vocabulary of formats
  // (workload/tensor_format.h; table in docs/formats.md), with the widths our kernels store:
  // 32-bit offsets and coordinates, ceil(log2 M)-bit N:M offsets. Ranks run over "rows" or
  // "cols" (flattened_rank_ids); levels().str() is the one-line text, e.g. cvse:8 ->
  // "UOP(rows/8; p32) CP(cols; m32 p0) U(rows%8)".
  workload::TensorFormat levels() const;
  // The sparsity the format itself fixes (1 - N/M for nm and vnm), or -1 when it fixes none.
  double intrinsic_sparsity() const;

  bool operator==(const FormatSpec& o) const;
  bool operator!=(const FormatSpec& o) const { return !(*this == o); }
};

// Parses the text form. Throws InputError (file "<format>") with the accepted forms.
FormatSpec parse_format(const std::string& text);

// Any stored matrix.
using AnySparse = std::variant<DenseMatrix, CsrMatrix, BsrMatrix, CvseMatrix, NmMatrix, VnmMatrix>;

FormatSpec spec_of(const AnySparse& a);
int64_t rows_of(const AnySparse& a);
int64_t cols_of(const AnySparse& a);
DenseMatrix to_dense(const AnySparse& a);
Footprint footprint(const AnySparse& a);
void validate(const AnySparse& a);
// Stored value slots (including explicit zeros and padding): what a kernel multiplies.
int64_t stored_values(const AnySparse& a);

// What a stored matrix holds of each rank of spec_of(a).levels(), outermost first: fibre shape,
// fibres, and coordinates held (explicit zeros and padding slots included: what is stored).
// workload::format_bits(spec_of(a).levels(), rank_occupancy(a)) gives the bits of each rank's
// metadata and payload; per rank ceil(bits / 8) bytes sum to footprint(a).metadata_bytes, and
// the innermost rank's coordinates are stored_values(a).
std::vector<workload::RankOccupancy> rank_occupancy(const AnySparse& a);

// Stores `a` (its kept entries, or its non-zeros without a mask) in the format `spec`.
AnySparse convert(ConstMatrixView a, const FormatSpec& spec, const Mask* keep = nullptr);

}  // namespace sparsemap::sparse
