// Dense row-major matrices, non-owning views of them, and keep-masks: the inputs of every format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sparsemap::sparse {

// A read-only view of a row-major fp32 matrix: element (r, c) is data[r * ld + c].
// Does not own data. ld >= cols; data may be null only when rows * cols == 0.
struct ConstMatrixView {
  const float* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;  // elements between the starts of two consecutive rows
};

// A writable view of a row-major fp32 matrix, same contract as ConstMatrixView.
struct MatrixView {
  float* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;

  operator ConstMatrixView() const { return {data, rows, cols, ld}; }
};

// An owning dense row-major fp32 matrix (ld == cols). The TACO format (dense, dense).
struct DenseMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> values;  // rows * cols, row-major

  DenseMatrix() = default;
  // Zero-filled. Throws InputError for negative sizes.
  DenseMatrix(int64_t rows, int64_t cols);

  float& at(int64_t r, int64_t c) { return values[static_cast<size_t>(r * cols + c)]; }
  float at(int64_t r, int64_t c) const { return values[static_cast<size_t>(r * cols + c)]; }
  ConstMatrixView view() const { return {values.data(), rows, cols, cols}; }
  MatrixView view() { return {values.data(), rows, cols, cols}; }
  int64_t nnz() const;  // entries != 0

  bool operator==(const DenseMatrix& o) const {
    return rows == o.rows && cols == o.cols && values == o.values;
  }
  bool operator!=(const DenseMatrix& o) const { return !(*this == o); }
};

// Copies a view into an owning matrix.
DenseMatrix to_dense(ConstMatrixView v);

// Which entries a pruning keeps: keep[r * cols + c] is 1 to keep, 0 to drop.
struct Mask {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<uint8_t> keep;  // rows * cols, row-major

  bool at(int64_t r, int64_t c) const { return keep[static_cast<size_t>(r * cols + c)] != 0; }
  int64_t kept() const;
  // Fraction of dropped entries, 0 for an empty mask.
  double sparsity() const;
  bool operator==(const Mask& o) const {
    return rows == o.rows && cols == o.cols && keep == o.keep;
  }
  bool operator!=(const Mask& o) const { return !(*this == o); }
};

// The mask of the non-zero entries of v.
Mask nonzero_mask(ConstMatrixView v);

// w with the dropped entries set to 0. Throws InputError when the sizes differ.
DenseMatrix apply_mask(ConstMatrixView w, const Mask& mask);

// Checks a view's sizes and pointer (what = "A", "B", ... in the message). Throws InputError:
// negative sizes, ld < cols, or a null pointer with a non-empty shape.
void check_view(const ConstMatrixView& v, const std::string& what);

}  // namespace sparsemap::sparse
