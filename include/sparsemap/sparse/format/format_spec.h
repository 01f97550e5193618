// A small vocabulary that names a format and its parameters ("csr", "cvse:8", "nm:2:4", ...),
// and AnySparse, one value that holds any format, with the generic operations on it.
#pragma once

#include <string>
#include <variant>

#include "sparsemap/sparse/format/formats.h"

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
  // TACO-style level formats, outermost first, e.g. "(dense row-groups/8, compressed cols,
  // dense 8)".
  std::string levels() const;
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

// Stores `a` (its kept entries, or its non-zeros without a mask) in the format `spec`.
AnySparse convert(ConstMatrixView a, const FormatSpec& spec, const Mask* keep = nullptr);

}  // namespace sparsemap::sparse
