// CSR, BSR and CVSE: conversions, validation and footprints.
#include "sparsemap/sparse/format/formats.h"

#include <algorithm>
#include <limits>
#include <string>

#include "format_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::sparse {

namespace detail {

[[noreturn]] void fail(const char* format, const std::string& message) {
  throw InputError({std::string("<") + format + ">", 0, 0}, message);
}

void check_shape(const char* format, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0)
    fail(format, "sizes must be >= 0, got " + std::to_string(rows) + " x " + std::to_string(cols));
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (rows > kMax || cols > kMax)
    fail(format,
         "sizes must be < 2^31, got " + std::to_string(rows) + " x " + std::to_string(cols));
}

void check_input(const char* format, ConstMatrixView a, const Mask* keep) {
  check_view(a, format);
  check_shape(format, a.rows, a.cols);
  if (keep && (keep->rows != a.rows || keep->cols != a.cols ||
               keep->keep.size() != static_cast<size_t>(a.rows * a.cols)))
    fail(format, "mask is " + std::to_string(keep->rows) + " x " + std::to_string(keep->cols) +
                     ", matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
}

void check_count(const char* format, int64_t n) {
  if (n > std::numeric_limits<int32_t>::max())
    fail(format, "more than 2^31-1 stored entries (" + std::to_string(n) + ")");
}

void check_ptr(const char* format, const std::vector<int32_t>& ptr, int64_t lines, int64_t entries,
               const char* line_name) {
  if (static_cast<int64_t>(ptr.size()) != lines + 1)
    fail(format, "row_ptr has " + std::to_string(ptr.size()) + " entries, expected " +
                     std::to_string(lines + 1) + " (" + line_name + " + 1)");
  if (ptr[0] != 0) fail(format, "row_ptr[0] is " + std::to_string(ptr[0]) + ", expected 0");
  for (int64_t i = 0; i < lines; ++i)
    if (ptr[static_cast<size_t>(i + 1)] < ptr[static_cast<size_t>(i)])
      fail(format, "row_ptr decreases at " + std::string(line_name) + " " + std::to_string(i));
  if (ptr[static_cast<size_t>(lines)] != entries)
    fail(format, "row_ptr ends at " + std::to_string(ptr[static_cast<size_t>(lines)]) +
                     " but there are " + std::to_string(entries) + " stored entries");
}

void check_indices(const char* format, const std::vector<int32_t>& ptr,
                   const std::vector<int32_t>& idx, int64_t lines, int64_t limit,
                   const char* line_name) {
  for (int64_t i = 0; i < lines; ++i) {
    for (int32_t p = ptr[static_cast<size_t>(i)]; p < ptr[static_cast<size_t>(i + 1)]; ++p) {
      const int32_t c = idx[static_cast<size_t>(p)];
      if (c < 0 || c >= limit)
        fail(format, "column index " + std::to_string(c) + " at entry " + std::to_string(p) +
                         " is outside [0, " + std::to_string(limit) + ")");
      if (p > ptr[static_cast<size_t>(i)] && idx[static_cast<size_t>(p - 1)] >= c)
        fail(format, "column indices of " + std::string(line_name) + " " + std::to_string(i) +
                         " are not strictly increasing at entry " + std::to_string(p));
    }
  }
}

bool kept(ConstMatrixView a, const Mask* keep, int64_t r, int64_t c) {
  return keep ? keep->at(r, c) : a.data[r * a.ld + c] != 0.0f;
}

}  // namespace detail

using detail::fail;

// ---------------------------------------------------------------------------------------- CSR

bool CsrMatrix::operator==(const CsrMatrix& o) const {
  return rows == o.rows && cols == o.cols && row_ptr == o.row_ptr && col_idx == o.col_idx &&
         values == o.values;
}

CsrMatrix csr_from_dense(ConstMatrixView a, const Mask* keep) {
  detail::check_input("csr", a, keep);
  CsrMatrix s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.row_ptr.assign(static_cast<size_t>(a.rows + 1), 0);
  int64_t nnz = 0;
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int64_t c = 0; c < a.cols; ++c) {
      if (!detail::kept(a, keep, r, c)) continue;
      s.col_idx.push_back(static_cast<int32_t>(c));
      s.values.push_back(a.data[r * a.ld + c]);
      ++nnz;
    }
    detail::check_count("csr", nnz);
    s.row_ptr[static_cast<size_t>(r + 1)] = static_cast<int32_t>(nnz);
  }
  return s;
}

DenseMatrix to_dense(const CsrMatrix& a) {
  validate(a);
  DenseMatrix d(a.rows, a.cols);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int32_t p = a.row_ptr[static_cast<size_t>(r)]; p < a.row_ptr[static_cast<size_t>(r + 1)];
         ++p)
      d.at(r, a.col_idx[static_cast<size_t>(p)]) = a.values[static_cast<size_t>(p)];
  return d;
}

void validate(const CsrMatrix& a) {
  detail::check_shape("csr", a.rows, a.cols);
  if (a.col_idx.size() != a.values.size())
    fail("csr", "col_idx has " + std::to_string(a.col_idx.size()) + " entries but values has " +
                    std::to_string(a.values.size()));
  detail::check_ptr("csr", a.row_ptr, a.rows, a.nnz(), "row");
  detail::check_indices("csr", a.row_ptr, a.col_idx, a.rows, a.cols, "row");
}

// Dense: values = 4 * rows * cols bytes, no metadata.
Footprint footprint_dense(int64_t rows, int64_t cols) { return {4 * rows * cols, 0}; }

// CSR: values = 4 * nnz; metadata = 4 * nnz (col_idx) + 4 * (rows + 1) (row_ptr).
Footprint footprint(const CsrMatrix& a) { return {4 * a.nnz(), 4 * a.nnz() + 4 * (a.rows + 1)}; }

// ---------------------------------------------------------------------------------------- BSR

bool BsrMatrix::operator==(const BsrMatrix& o) const {
  return rows == o.rows && cols == o.cols && bh == o.bh && bw == o.bw && row_ptr == o.row_ptr &&
         col_idx == o.col_idx && values == o.values;
}

namespace {
void check_block(int bh, int bw) {
  if (bh < 1 || bw < 1 || bh > 4096 || bw > 4096)
    fail("bsr",
         "block sizes must be in [1, 4096], got " + std::to_string(bh) + "x" + std::to_string(bw));
}
}  // namespace

BsrMatrix bsr_from_dense(ConstMatrixView a, int bh, int bw, const Mask* keep) {
  check_block(bh, bw);
  detail::check_input("bsr", a, keep);
  BsrMatrix s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.bh = bh;
  s.bw = bw;
  const int64_t brows = s.block_rows();
  const int64_t bcols = (a.cols + bw - 1) / bw;
  s.row_ptr.assign(static_cast<size_t>(brows + 1), 0);
  int64_t nb = 0;
  for (int64_t i = 0; i < brows; ++i) {
    const int64_t r0 = i * bh, r1 = std::min<int64_t>(a.rows, r0 + bh);
    for (int64_t j = 0; j < bcols; ++j) {
      const int64_t c0 = j * bw, c1 = std::min<int64_t>(a.cols, c0 + bw);
      bool any = false;
      for (int64_t r = r0; r < r1 && !any; ++r)
        for (int64_t c = c0; c < c1 && !any; ++c) any = detail::kept(a, keep, r, c);
      if (!any) continue;
      s.col_idx.push_back(static_cast<int32_t>(j));
      const size_t base = s.values.size();
      s.values.resize(base + static_cast<size_t>(bh) * static_cast<size_t>(bw), 0.0f);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c)
          if (detail::kept(a, keep, r, c))
            s.values[base + static_cast<size_t>((r - r0) * bw + (c - c0))] = a.data[r * a.ld + c];
      ++nb;
    }
    detail::check_count("bsr", nb * bh * bw);
    s.row_ptr[static_cast<size_t>(i + 1)] = static_cast<int32_t>(nb);
  }
  return s;
}

DenseMatrix to_dense(const BsrMatrix& a) {
  validate(a);
  DenseMatrix d(a.rows, a.cols);
  const int64_t bsz = int64_t{a.bh} * a.bw;
  for (int64_t i = 0; i < a.block_rows(); ++i)
    for (int32_t p = a.row_ptr[static_cast<size_t>(i)]; p < a.row_ptr[static_cast<size_t>(i + 1)];
         ++p)
      for (int64_t r = 0; r < a.bh; ++r)
        for (int64_t c = 0; c < a.bw; ++c) {
          const int64_t rr = i * a.bh + r,
                        cc = int64_t{a.col_idx[static_cast<size_t>(p)]} * a.bw + c;
          if (rr < a.rows && cc < a.cols)
            d.at(rr, cc) = a.values[static_cast<size_t>(p * bsz + r * a.bw + c)];
        }
  return d;
}

void validate(const BsrMatrix& a) {
  check_block(a.bh, a.bw);
  detail::check_shape("bsr", a.rows, a.cols);
  const int64_t bsz = int64_t{a.bh} * a.bw;
  if (static_cast<int64_t>(a.values.size()) != a.blocks() * bsz)
    fail("bsr", "values has " + std::to_string(a.values.size()) + " entries, expected " +
                    std::to_string(a.blocks() * bsz) + " (blocks x bh x bw)");
  detail::check_ptr("bsr", a.row_ptr, a.block_rows(), a.blocks(), "block row");
  detail::check_indices("bsr", a.row_ptr, a.col_idx, a.block_rows(), (a.cols + a.bw - 1) / a.bw,
                        "block row");
  for (int64_t i = 0; i < a.block_rows(); ++i)
    for (int32_t p = a.row_ptr[static_cast<size_t>(i)]; p < a.row_ptr[static_cast<size_t>(i + 1)];
         ++p)
      for (int64_t r = 0; r < a.bh; ++r)
        for (int64_t c = 0; c < a.bw; ++c) {
          const int64_t rr = i * a.bh + r,
                        cc = int64_t{a.col_idx[static_cast<size_t>(p)]} * a.bw + c;
          if ((rr >= a.rows || cc >= a.cols) &&
              a.values[static_cast<size_t>(p * bsz + r * a.bw + c)] != 0.0f)
            fail("bsr",
                 "padding entry of block " + std::to_string(p) + " outside the matrix is not 0");
        }
}

// BSR: values = 4 * blocks * bh * bw; metadata = 4 * blocks + 4 * (block_rows + 1).
Footprint footprint(const BsrMatrix& a) {
  return {4 * a.blocks() * a.bh * a.bw, 4 * a.blocks() + 4 * (a.block_rows() + 1)};
}

// --------------------------------------------------------------------------------------- CVSE

bool valid_cvse_v(int v) { return v == 1 || v == 2 || v == 4 || v == 8 || v == 16 || v == 32; }

bool CvseMatrix::operator==(const CvseMatrix& o) const {
  return rows == o.rows && cols == o.cols && v == o.v && row_ptr == o.row_ptr &&
         col_idx == o.col_idx && values == o.values;
}

namespace {
void check_v(int v) {
  if (!valid_cvse_v(v))
    fail("cvse", "vector length V must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(v));
}
}  // namespace

CvseMatrix cvse_from_dense(ConstMatrixView a, int v, const Mask* keep) {
  check_v(v);
  detail::check_input("cvse", a, keep);
  CvseMatrix s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.v = v;
  const int64_t groups = s.groups();
  s.row_ptr.assign(static_cast<size_t>(groups + 1), 0);
  int64_t nv = 0;
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t r0 = g * v, r1 = std::min<int64_t>(a.rows, r0 + v);
    for (int64_t c = 0; c < a.cols; ++c) {
      bool any = false;
      for (int64_t r = r0; r < r1 && !any; ++r) any = detail::kept(a, keep, r, c);
      if (!any) continue;
      s.col_idx.push_back(static_cast<int32_t>(c));
      for (int64_t i = 0; i < v; ++i) {
        const int64_t r = r0 + i;
        s.values.push_back(r < r1 && detail::kept(a, keep, r, c) ? a.data[r * a.ld + c] : 0.0f);
      }
      ++nv;
    }
    detail::check_count("cvse", nv * v);
    s.row_ptr[static_cast<size_t>(g + 1)] = static_cast<int32_t>(nv);
  }
  return s;
}

DenseMatrix to_dense(const CvseMatrix& a) {
  validate(a);
  DenseMatrix d(a.rows, a.cols);
  for (int64_t g = 0; g < a.groups(); ++g)
    for (int32_t p = a.row_ptr[static_cast<size_t>(g)]; p < a.row_ptr[static_cast<size_t>(g + 1)];
         ++p)
      for (int64_t i = 0; i < a.v && g * a.v + i < a.rows; ++i)
        d.at(g * a.v + i, a.col_idx[static_cast<size_t>(p)]) =
            a.values[static_cast<size_t>(p * a.v + i)];
  return d;
}

void validate(const CvseMatrix& a) {
  check_v(a.v);
  detail::check_shape("cvse", a.rows, a.cols);
  if (static_cast<int64_t>(a.values.size()) != a.vectors() * a.v)
    fail("cvse", "values has " + std::to_string(a.values.size()) + " entries, expected " +
                     std::to_string(a.vectors() * a.v) + " (vectors x V)");
  detail::check_ptr("cvse", a.row_ptr, a.groups(), a.vectors(), "row group");
  detail::check_indices("cvse", a.row_ptr, a.col_idx, a.groups(), a.cols, "row group");
  const int64_t last = a.groups() - 1;
  if (last >= 0 && a.rows % a.v != 0)
    for (int32_t p = a.row_ptr[static_cast<size_t>(last)];
         p < a.row_ptr[static_cast<size_t>(last + 1)]; ++p)
      for (int64_t i = a.rows - last * a.v; i < a.v; ++i)
        if (a.values[static_cast<size_t>(p * a.v + i)] != 0.0f)
          fail("cvse", "padding row " + std::to_string(last * a.v + i) + " of vector " +
                           std::to_string(p) + " is not 0");
}

// CVSE: values = 4 * vectors * V; metadata = 4 * vectors (col_idx) + 4 * (groups + 1).
Footprint footprint(const CvseMatrix& a) {
  return {4 * a.vectors() * a.v, 4 * a.vectors() + 4 * (a.groups() + 1)};
}

}  // namespace sparsemap::sparse
