// NumPy <-> sparse/ buffers for the Python module: views of C++ vectors (no copy), dense
// matrix views of ndarrays (no copy when the layout allows), and owning arrays that adopt a
// moved C++ vector. The zero-copy rules are in docs/python-sparse.md.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sparsemap/sparse/format/dense.h"

namespace sparsemap::python {

namespace py = pybind11;

// A C-order ndarray of `shape` over v's buffer, without a copy; `owner` (the Python object that
// holds v) becomes the array's base, so the buffer lives as long as any view. Read-only unless
// `writable`. v.size() must equal the product of `shape`.
template <class T>
py::array vector_view(const std::vector<T>& v, std::vector<py::ssize_t> shape, py::handle owner,
                      bool writable) {
  py::array a(py::dtype::of<T>(), std::move(shape), {}, v.empty() ? nullptr : v.data(), owner);
  if (!writable) a.attr("flags").attr("writeable") = false;
  return a;
}

// An ndarray that takes ownership of `v` (moved into a capsule: no copy of its elements).
template <class T>
py::array adopt_vector(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array(py::dtype::of<T>(), std::move(shape), {}, heap->data(), owner);
}

// What a 2-D fp32 view of an ndarray needs: float32, 2-D (1-D reads as one row), unit column
// stride (4 bytes), a row stride that is a non-negative multiple of 4 bytes and at least the
// row, and a 4-byte aligned pointer. Such an array is read (or written) in place.
bool viewable_f32(const py::array& a);

// A dense fp32 matrix read from an ndarray: in place when viewable_f32, else through a C-order
// float32 copy (kept alive in `keep`). copy: None = copy when needed, False = raise ValueError
// when a copy would be needed, True = always copy. `what` names the argument in messages.
struct DenseInput {
  sparse::ConstMatrixView view;
  py::array keep;                  // the array the view reads (the input itself, or its copy)
  bool copied = false;             // whether a copy was made
  std::vector<py::ssize_t> shape;  // the input's own shape (1-D or 2-D)
};
DenseInput dense_input(py::handle obj, const std::string& what, py::object copy = py::none());

// A writable fp32 view of a caller's output array: must be float32, viewable_f32, writeable and
// exactly rows x cols; ValueError otherwise (an output is never silently copied).
sparse::MatrixView dense_output(py::array& out, int64_t rows, int64_t cols,
                                const std::string& what);

// An owning (rows, cols) float32 ndarray holding a DenseMatrix's values (moved, not copied).
py::array adopt_dense(sparse::DenseMatrix&& d);

// A keep-mask from a bool / integer ndarray of shape rows x cols (non-zero = keep); copied
// into the Mask's uint8 storage. ValueError on another shape.
sparse::Mask mask_input(py::handle obj, int64_t rows, int64_t cols, const std::string& what);

// A Mask as a bool ndarray of `shape` (its storage moved, not copied).
py::array adopt_mask(sparse::Mask&& m, std::vector<py::ssize_t> shape);

}  // namespace sparsemap::python
