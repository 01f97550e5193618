// NumPy <-> sparse/ buffers (see numpy_views.h).
#include "numpy_views.h"

#include <cstdint>

namespace sparsemap::python {

namespace {

constexpr py::ssize_t kF32 = static_cast<py::ssize_t>(sizeof(float));

// rows, cols and leading dimension (elements) of a 1-D or 2-D array; false when not 1-D/2-D.
bool matrix_dims(const py::array& a, int64_t& rows, int64_t& cols, int64_t& ld_bytes) {
  if (a.ndim() == 1) {
    rows = 1;
    cols = a.shape(0);
    ld_bytes = cols * kF32;
    return cols <= 1 || a.strides(0) == kF32;
  }
  if (a.ndim() != 2) return false;
  rows = a.shape(0);
  cols = a.shape(1);
  const bool unit_cols = cols <= 1 || a.strides(1) == kF32;
  ld_bytes = rows <= 1 ? cols * kF32 : a.strides(0);
  return unit_cols;
}

}  // namespace

bool viewable_f32(const py::array& a) {
  if (!a.dtype().is(py::dtype::of<float>())) return false;
  int64_t rows = 0, cols = 0, ld_bytes = 0;
  if (!matrix_dims(a, rows, cols, ld_bytes)) return false;
  if (ld_bytes < 0 || ld_bytes % kF32 != 0 || ld_bytes < cols * kF32) return false;
  return reinterpret_cast<uintptr_t>(a.data()) % alignof(float) == 0;
}

DenseInput dense_input(py::handle obj, const std::string& what, py::object copy) {
  py::array a = py::array::ensure(obj);
  if (!a) throw py::value_error(what + ": expected a NumPy array (or something np.asarray takes)");
  if (a.ndim() != 1 && a.ndim() != 2)
    throw py::value_error(what + ": expected a 1-D or 2-D array, got " + std::to_string(a.ndim()) +
                          "-D");
  const char kind = a.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    throw py::value_error(what + ": expected real numbers, got dtype " +
                          std::string(py::str(a.dtype())));
  DenseInput in;
  in.shape.assign(a.shape(), a.shape() + a.ndim());
  const bool force = !copy.is_none() && copy.cast<bool>();
  const bool forbid = !copy.is_none() && !copy.cast<bool>();
  if (!force && viewable_f32(a)) {
    in.keep = a;
  } else {
    if (forbid)
      throw py::value_error(what +
                            ": copy=False but the array cannot be read in place (needs "
                            "float32 with unit column stride; got dtype " +
                            std::string(py::str(a.dtype())) + ")");
    in.keep = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
    if (!in.keep) throw py::value_error(what + ": cannot convert the array to float32");
    if (force && in.keep.ptr() == a.ptr()) in.keep = py::array(a.attr("copy")());
    in.copied = true;
  }
  int64_t rows = 0, cols = 0, ld_bytes = 0;
  matrix_dims(in.keep, rows, cols, ld_bytes);
  in.view = {static_cast<const float*>(in.keep.data()), rows, cols, ld_bytes / kF32};
  return in;
}

sparse::MatrixView dense_output(py::array& out, int64_t rows, int64_t cols,
                                const std::string& what) {
  if (!viewable_f32(out) || out.ndim() != 2)
    throw py::value_error(what + ": expected a 2-D float32 array with unit column stride");
  if (!out.writeable()) throw py::value_error(what + ": the array is read-only");
  if (out.shape(0) != rows || out.shape(1) != cols)
    throw py::value_error(what + ": expected shape (" + std::to_string(rows) + ", " +
                          std::to_string(cols) + "), got (" + std::to_string(out.shape(0)) + ", " +
                          std::to_string(out.shape(1)) + ")");
  const int64_t ld = rows <= 1 ? cols : out.strides(0) / kF32;
  return {static_cast<float*>(out.mutable_data()), rows, cols, ld};
}

py::array adopt_dense(sparse::DenseMatrix&& d) {
  const py::ssize_t rows = d.rows, cols = d.cols;
  return adopt_vector(std::move(d.values), {rows, cols});
}

sparse::Mask mask_input(py::handle obj, int64_t rows, int64_t cols, const std::string& what) {
  py::array a = py::array::ensure(obj);
  if (!a) throw py::value_error(what + ": expected a NumPy array");
  const int64_t size = a.size();
  const bool shape_ok = (a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == cols) ||
                        (a.ndim() == 1 && rows == 1 && a.shape(0) == cols);
  if (!shape_ok || size != rows * cols)
    throw py::value_error(what + ": expected a mask of shape (" + std::to_string(rows) + ", " +
                          std::to_string(cols) + ")");
  // Non-zero (or True) keeps: a C-order uint8 array of 0/1 whatever the input's dtype.
  auto u8 = py::array_t<uint8_t, py::array::c_style>::ensure(
      py::module_::import("numpy").attr("ascontiguousarray")(a.attr("__ne__")(0), "uint8"));
  sparse::Mask m;
  m.rows = rows;
  m.cols = cols;
  m.keep.resize(static_cast<size_t>(size));
  const uint8_t* p = u8.data();
  for (int64_t i = 0; i < size; ++i) m.keep[static_cast<size_t>(i)] = p[i] != 0;
  return m;
}

py::array adopt_mask(sparse::Mask&& m, std::vector<py::ssize_t> shape) {
  auto* heap = new std::vector<uint8_t>(std::move(m.keep));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<uint8_t>*>(p); });
  return py::array(py::dtype("bool"), std::move(shape), {}, heap->data(), owner);
}

}  // namespace sparsemap::python
