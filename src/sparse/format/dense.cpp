// Dense matrices, views and masks.
#include "sparsemap/sparse/format/dense.h"

#include "sparsemap/error.h"

namespace sparsemap::sparse {

DenseMatrix::DenseMatrix(int64_t r, int64_t c) : rows(r), cols(c) {
  if (r < 0 || c < 0)
    throw InputError({"<dense>", 0, 0}, "matrix sizes must be >= 0, got " + std::to_string(r) +
                                            " x " + std::to_string(c));
  values.assign(static_cast<size_t>(r * c), 0.0f);
}

int64_t DenseMatrix::nnz() const {
  int64_t n = 0;
  for (float x : values) n += x != 0.0f;
  return n;
}

DenseMatrix to_dense(ConstMatrixView v) {
  check_view(v, "matrix");
  DenseMatrix d(v.rows, v.cols);
  for (int64_t r = 0; r < v.rows; ++r)
    for (int64_t c = 0; c < v.cols; ++c) d.at(r, c) = v.data[r * v.ld + c];
  return d;
}

int64_t Mask::kept() const {
  int64_t n = 0;
  for (uint8_t k : keep) n += k != 0;
  return n;
}

double Mask::sparsity() const {
  const int64_t total = rows * cols;
  return total == 0 ? 0.0 : 1.0 - static_cast<double>(kept()) / static_cast<double>(total);
}

Mask nonzero_mask(ConstMatrixView v) {
  check_view(v, "matrix");
  Mask m{v.rows, v.cols, std::vector<uint8_t>(static_cast<size_t>(v.rows * v.cols), 0)};
  for (int64_t r = 0; r < v.rows; ++r)
    for (int64_t c = 0; c < v.cols; ++c)
      m.keep[static_cast<size_t>(r * v.cols + c)] = v.data[r * v.ld + c] != 0.0f;
  return m;
}

DenseMatrix apply_mask(ConstMatrixView w, const Mask& mask) {
  check_view(w, "matrix");
  if (mask.rows != w.rows || mask.cols != w.cols ||
      mask.keep.size() != static_cast<size_t>(w.rows * w.cols))
    throw InputError({"<mask>", 0, 0}, "mask is " + std::to_string(mask.rows) + " x " +
                                           std::to_string(mask.cols) + ", matrix is " +
                                           std::to_string(w.rows) + " x " + std::to_string(w.cols));
  DenseMatrix d(w.rows, w.cols);
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t c = 0; c < w.cols; ++c)
      if (mask.at(r, c)) d.at(r, c) = w.data[r * w.ld + c];
  return d;
}

void check_view(const ConstMatrixView& v, const std::string& what) {
  const SourceLocation where{"<" + what + ">", 0, 0};
  if (v.rows < 0 || v.cols < 0)
    throw InputError(where, what + " has negative sizes " + std::to_string(v.rows) + " x " +
                                std::to_string(v.cols));
  if (v.ld < v.cols)
    throw InputError(where, what + " has leading dimension " + std::to_string(v.ld) + " < its " +
                                std::to_string(v.cols) + " columns");
  if (v.data == nullptr && v.rows > 0 && v.cols > 0)
    throw InputError(where, what + " is " + std::to_string(v.rows) + " x " +
                                std::to_string(v.cols) + " but has no data");
}

}  // namespace sparsemap::sparse
