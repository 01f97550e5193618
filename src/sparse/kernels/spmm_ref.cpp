// Scalar reference SpMM kernels: the plainest loops that follow each format's definition.
#include <algorithm>

#include "kernel_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::sparse {

namespace {

void zero(MatrixView c) {
  for (int64_t r = 0; r < c.rows; ++r)
    std::fill(c.data + r * c.ld, c.data + r * c.ld + c.cols, 0.0f);
}

// C[r, :] += a * B[k, :]
void axpy_row(MatrixView c, int64_t r, float a, ConstMatrixView b, int64_t k) {
  float* cr = c.data + r * c.ld;
  const float* bk = b.data + k * b.ld;
  for (int64_t j = 0; j < c.cols; ++j) cr[j] += a * bk[j];
}

}  // namespace

void spmm_csr_ref(const CsrMatrix& a, ConstMatrixView b, MatrixView c) {
  kdetail::check_operands("csr", a.rows, a.cols, b, c);
  validate(a);
  zero(c);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int32_t p = a.row_ptr[static_cast<size_t>(r)]; p < a.row_ptr[static_cast<size_t>(r + 1)];
         ++p)
      axpy_row(c, r, a.values[static_cast<size_t>(p)], b, a.col_idx[static_cast<size_t>(p)]);
}

void spmm_cvse_ref(const CvseMatrix& a, ConstMatrixView b, MatrixView c) {
  kdetail::check_operands("cvse", a.rows, a.cols, b, c);
  validate(a);
  zero(c);
  for (int64_t g = 0; g < a.groups(); ++g)
    for (int32_t p = a.row_ptr[static_cast<size_t>(g)]; p < a.row_ptr[static_cast<size_t>(g + 1)];
         ++p)
      for (int64_t i = 0; i < a.v && g * a.v + i < a.rows; ++i)
        axpy_row(c, g * a.v + i, a.values[static_cast<size_t>(p * a.v + i)], b,
                 a.col_idx[static_cast<size_t>(p)]);
}

void spmm_bsr_ref(const BsrMatrix& a, ConstMatrixView b, MatrixView c) {
  kdetail::check_operands("bsr", a.rows, a.cols, b, c);
  validate(a);
  zero(c);
  for (int64_t i = 0; i < a.block_rows(); ++i)
    for (int32_t p = a.row_ptr[static_cast<size_t>(i)]; p < a.row_ptr[static_cast<size_t>(i + 1)];
         ++p)
      for (int64_t r = 0; r < a.bh && i * a.bh + r < a.rows; ++r)
        for (int64_t j = 0; j < a.bw; ++j) {
          const int64_t k = int64_t{a.col_idx[static_cast<size_t>(p)]} * a.bw + j;
          if (k < a.cols)
            axpy_row(c, i * a.bh + r, a.values[static_cast<size_t>((p * a.bh + r) * a.bw + j)], b,
                     k);
        }
}

void spmm_nm_ref(const NmMatrix& a, ConstMatrixView b, MatrixView c) {
  kdetail::check_operands("nm", a.rows, a.cols, b, c);
  validate(a);
  zero(c);
  const int64_t groups = a.groups();
  if (a.axis == NmAxis::Row) {
    for (int64_t r = 0; r < a.rows; ++r)
      for (int64_t q = 0; q < groups; ++q)
        for (int s = 0; s < a.n; ++s) {
          const size_t idx = static_cast<size_t>((r * groups + q) * a.n + s);
          const int64_t k = q * a.m + a.offsets[idx];
          if (k < a.cols) axpy_row(c, r, a.values[idx], b, k);
        }
  } else {
    for (int64_t q = 0; q < groups; ++q)
      for (int64_t k = 0; k < a.cols; ++k)
        for (int s = 0; s < a.n; ++s) {
          const size_t idx = static_cast<size_t>((q * a.cols + k) * a.n + s);
          const int64_t r = q * a.m + a.offsets[idx];
          if (r < a.rows) axpy_row(c, r, a.values[idx], b, k);
        }
  }
}

void spmm_vnm_ref(const VnmMatrix& a, ConstMatrixView b, MatrixView c) {
  kdetail::check_operands("vnm", a.rows, a.cols, b, c);
  validate(a);
  zero(c);
  const int64_t groups = a.groups();
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t q = 0; q < groups; ++q)
      for (int s = 0; s < a.n; ++s) {
        const size_t idx = static_cast<size_t>((r * groups + q) * a.n + s);
        const int t = a.offsets[idx];
        const int64_t k =
            q * a.m + a.col_sel[static_cast<size_t>(((r / a.v) * groups + q) * 4 + t)];
        if (k < a.cols) axpy_row(c, r, a.values[idx], b, k);
      }
}

void spmm_dense_ref(const DenseMatrix& a, ConstMatrixView b, MatrixView c) {
  kdetail::check_operands("dense", a.rows, a.cols, b, c);
  if (a.values.size() != static_cast<size_t>(a.rows * a.cols))
    throw InputError({"<dense>", 0, 0}, "values do not match the sizes");
  zero(c);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t k = 0; k < a.cols; ++k) axpy_row(c, r, a.at(r, k), b, k);
}

void spmm_ref(const AnySparse& a, ConstMatrixView b, MatrixView c) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, DenseMatrix>)
          spmm_dense_ref(x, b, c);
        else if constexpr (std::is_same_v<T, CsrMatrix>)
          spmm_csr_ref(x, b, c);
        else if constexpr (std::is_same_v<T, BsrMatrix>)
          spmm_bsr_ref(x, b, c);
        else if constexpr (std::is_same_v<T, CvseMatrix>)
          spmm_cvse_ref(x, b, c);
        else if constexpr (std::is_same_v<T, NmMatrix>)
          spmm_nm_ref(x, b, c);
        else
          spmm_vnm_ref(x, b, c);
      },
      a);
}

}  // namespace sparsemap::sparse
