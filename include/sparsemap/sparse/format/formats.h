// Sparse matrix formats (CSR, BSR, column-vector CVSE, N:M, V:N:M) as value types, with
// conversions from and to dense, validation of every invariant, and memory footprints.
//
// Each format is a list of per-rank formats, outermost first, in the one vocabulary of formats
// (FormatSpec::levels(), workload/tensor_format.h; table in docs/formats.md); U is a dense rank
// that stores nothing, m / p the metadata / payload bits per coordinate / offset:
//   CSR    UOP(rows; p32) CP(cols; m32)
//   BSR    UOP(rows/bh; p32) CP(cols/bw; m32) U(rows%bh) U(cols%bw)
//   CVSE   UOP(rows/V; p32) CP(cols; m32) U(rows%V)                     -- CSR of V x 1 vectors
//   N:M    U(rows) U(cols/M) CP(N of cols%M; m ceil(log2 M))   (axis Col: rows and cols swap)
//   V:N:M  U(rows/V) U(cols/M) CP(4 of cols%M; m ceil(log2 M)) U(rows%V) CP(N of 4; m2)
//                                                                        -- VENOM
// All formats hold fp32 values and int32 / uint8 metadata. Rows or columns that do not fill the
// last group or block are padding: they exist in the storage, hold 0, and are never written to C.
#pragma once

#include <cstdint>
#include <vector>

#include "sparsemap/sparse/format/dense.h"

namespace sparsemap::sparse {

// Bytes a format occupies: values plus metadata (indices and pointers).
// Metadata is counted at the width that a hardware format needs: int32 pointers and column
// indices, and ceil(log2(M)) bits per N:M offset (our in-memory arrays hold offsets in uint8).
struct Footprint {
  int64_t values_bytes = 0;
  int64_t metadata_bytes = 0;
  int64_t total() const { return values_bytes + metadata_bytes; }
};

// ----------------------------------------------------------------------------------------------
// CSR: row r's entries are values[row_ptr[r] .. row_ptr[r+1]) at columns col_idx[...],
// column indices strictly increasing within a row.
struct CsrMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int32_t> row_ptr;  // rows + 1, row_ptr[0] == 0, non-decreasing
  std::vector<int32_t> col_idx;  // nnz, in [0, cols)
  std::vector<float> values;     // nnz

  int64_t nnz() const { return static_cast<int64_t>(values.size()); }
  bool operator==(const CsrMatrix& o) const;
  bool operator!=(const CsrMatrix& o) const { return !(*this == o); }
};

// ----------------------------------------------------------------------------------------------
// BSR with bh x bw blocks. Block row i covers rows [i*bh, (i+1)*bh); its blocks are
// values[(p*bh + r)*bw + c] for p in [row_ptr[i], row_ptr[i+1]), at block column col_idx[p]
// (columns [col_idx[p]*bw, +bw)). Entries outside the matrix (last block row/col) are 0.
struct BsrMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  int bh = 1;
  int bw = 1;
  std::vector<int32_t> row_ptr;  // ceil(rows/bh) + 1
  std::vector<int32_t> col_idx;  // blocks, strictly increasing within a block row
  std::vector<float> values;     // blocks * bh * bw

  int64_t blocks() const { return static_cast<int64_t>(col_idx.size()); }
  int64_t block_rows() const { return (rows + bh - 1) / bh; }
  bool operator==(const BsrMatrix& o) const;
  bool operator!=(const BsrMatrix& o) const { return !(*this == o); }
};

// ----------------------------------------------------------------------------------------------
// Column-vector sparse encoding (CVSE, as in CLASP/vectorSparse): CSR over groups of V rows
// where each stored entry is a V x 1 vector. Group g covers rows [g*V, g*V + V); its vectors are
// p in [row_ptr[g], row_ptr[g+1]) at column col_idx[p] with values[p*V + i] for row g*V + i.
// Rows past `rows` in the last group are padding and hold 0.
struct CvseMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  int v = 1;                     // 1, 2, 4, 8, 16 or 32
  std::vector<int32_t> row_ptr;  // groups() + 1
  std::vector<int32_t> col_idx;  // vectors, strictly increasing within a group
  std::vector<float> values;     // vectors * v

  int64_t groups() const { return (rows + v - 1) / v; }
  int64_t vectors() const { return static_cast<int64_t>(col_idx.size()); }
  bool operator==(const CvseMatrix& o) const;
  bool operator!=(const CvseMatrix& o) const { return !(*this == o); }
};

// ----------------------------------------------------------------------------------------------
// N:M: every group of M consecutive entries along `axis` stores exactly N slots (value, offset),
// offsets strictly increasing in [0, M). Slots that a group does not need hold value 0.
//   axis Row: groups run along each row (over the K columns; what sparse tensor cores use).
//             Slot s of group q of row r: index (r * groups() + q) * n + s; column q*M + offset.
//   axis Col: groups run down each column (over the rows). Slot s of group q (rows [q*M, +M))
//             of column c: index (q * cols + c) * n + s; row q*M + offset.
// In the last, partial group, slots whose row/column falls outside the matrix hold 0.
enum class NmAxis { Row, Col };

struct NmMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  int n = 2;
  int m = 4;
  NmAxis axis = NmAxis::Row;
  std::vector<float> values;     // slots
  std::vector<uint8_t> offsets;  // slots, each in [0, m)

  // Groups per line: ceil(cols/m) for axis Row, ceil(rows/m) for axis Col.
  int64_t groups() const;
  int64_t slots() const { return static_cast<int64_t>(values.size()); }
  bool operator==(const NmMatrix& o) const;
  bool operator!=(const NmMatrix& o) const { return !(*this == o); }
};

// ----------------------------------------------------------------------------------------------
// V:N:M (VENOM, Castro et al. SC'23): rows in blocks of V, columns in groups of M. In each
// V x M block 4 columns are selected (col_sel, strictly increasing offsets in [0, M)), shared by
// the block's V rows; each row keeps N of those 4 (offsets strictly increasing in [0, 4)).
//   col_sel[(b * groups() + q) * 4 + t]  for row block b, column group q
//   values/offsets[(r * groups() + q) * n + s] for row r
// The density is N / M. Columns past `cols` in the last group hold 0.
struct VnmMatrix {
  static constexpr int kSelected = 4;
  int64_t rows = 0;
  int64_t cols = 0;
  int v = 64;
  int n = 2;
  int m = 8;
  std::vector<uint8_t> col_sel;  // row_blocks() * groups() * 4
  std::vector<float> values;     // rows * groups() * n
  std::vector<uint8_t> offsets;  // rows * groups() * n, each in [0, 4)

  int64_t groups() const { return (cols + m - 1) / m; }
  int64_t row_blocks() const { return (rows + v - 1) / v; }
  bool operator==(const VnmMatrix& o) const;
  bool operator!=(const VnmMatrix& o) const { return !(*this == o); }
};

// ----------------------------------------------------------------------------------------------
// Conversions. `keep` (optional) says which entries to store; without it, the non-zeros are
// stored. Entries are stored with their value even when it is 0 and kept, so a pruning mask
// decides the structure exactly. Throw InputError on bad parameters (V not in {1,..,32},
// non-positive block sizes, n > m, ...), on a mask of another shape, on a matrix with more than
// 2^31-1 stored entries, and (N:M, V:N:M) when the kept entries break the pattern.
CsrMatrix csr_from_dense(ConstMatrixView a, const Mask* keep = nullptr);
BsrMatrix bsr_from_dense(ConstMatrixView a, int bh, int bw, const Mask* keep = nullptr);
CvseMatrix cvse_from_dense(ConstMatrixView a, int v, const Mask* keep = nullptr);
NmMatrix nm_from_dense(ConstMatrixView a, int n, int m, NmAxis axis, const Mask* keep = nullptr);
VnmMatrix vnm_from_dense(ConstMatrixView a, int v, int n, int m, const Mask* keep = nullptr);

DenseMatrix to_dense(const CsrMatrix& a);
DenseMatrix to_dense(const BsrMatrix& a);
DenseMatrix to_dense(const CvseMatrix& a);
DenseMatrix to_dense(const NmMatrix& a);
DenseMatrix to_dense(const VnmMatrix& a);

// Validation of every invariant of the format; throws InputError naming the first broken one
// (file "<csr>", "<cvse>", ...). Formats read from files or built by hand must pass this
// before a kernel sees them; the conversions above always produce valid matrices.
void validate(const CsrMatrix& a);
void validate(const BsrMatrix& a);
void validate(const CvseMatrix& a);
void validate(const NmMatrix& a);
void validate(const VnmMatrix& a);

// Memory footprints (formulas in formats.cpp, above each function).
Footprint footprint_dense(int64_t rows, int64_t cols);
Footprint footprint(const CsrMatrix& a);
Footprint footprint(const BsrMatrix& a);
Footprint footprint(const CvseMatrix& a);
Footprint footprint(const NmMatrix& a);
Footprint footprint(const VnmMatrix& a);

// Whether v is a supported CVSE vector length (1, 2, 4, 8, 16, 32).
bool valid_cvse_v(int v);

}  // namespace sparsemap::sparse
