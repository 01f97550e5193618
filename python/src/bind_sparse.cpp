// Sparse formats (CSR, BSR, CVSE, N:M, V:N:M; dense as ndarrays) to and from NumPy and
// SciPy-shaped component arrays. Component arrays are views of the C++ buffers (no copy);
// construction from components copies them once into the C++ value type (which owns
// std::vector storage). Rules: docs/python-sparse.md.
#include <pybind11/stl.h>

#include <cstring>
#include <limits>
#include <string>

#include "bindings.h"
#include "numpy_views.h"
#include "sparse_parts.h"
#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::python {

using namespace pybind11::literals;
using sparse::BsrMatrix;
using sparse::CsrMatrix;
using sparse::CvseMatrix;
using sparse::NmMatrix;
using sparse::VnmMatrix;

namespace {

using Shape = std::pair<int64_t, int64_t>;

// ---- specs and sizes of each format (without copying it into an AnySparse) ------------------
sparse::FormatSpec spec_for(const CsrMatrix&) { return sparse::parse_format("csr"); }
sparse::FormatSpec spec_for(const BsrMatrix& a) {
  sparse::FormatSpec s;
  s.kind = sparse::FormatKind::Bsr;
  s.bh = a.bh;
  s.bw = a.bw;
  return s;
}
sparse::FormatSpec spec_for(const CvseMatrix& a) {
  sparse::FormatSpec s;
  s.kind = sparse::FormatKind::Cvse;
  s.v = a.v;
  return s;
}
sparse::FormatSpec spec_for(const NmMatrix& a) {
  sparse::FormatSpec s;
  s.kind = sparse::FormatKind::Nm;
  s.n = a.n;
  s.m = a.m;
  s.axis = a.axis;
  return s;
}
sparse::FormatSpec spec_for(const VnmMatrix& a) {
  sparse::FormatSpec s;
  s.kind = sparse::FormatKind::Vnm;
  s.v = a.v;
  s.n = a.n;
  s.m = a.m;
  return s;
}

// ---- component arrays in ---------------------------------------------------------------------
// One component copied into a vector<T>. Integer components must hold integers that fit T
// (ValueError otherwise, never a silent wrap); values may be any real dtype (cast to float32).
template <class T>
std::vector<T> component(py::handle obj, const char* name) {
  py::module_ np = py::module_::import("numpy");
  py::array a = py::array::ensure(obj);
  if (!a) throw py::value_error(std::string(name) + ": expected an array");
  const char kind = a.dtype().kind();
  if (std::is_integral<T>::value) {
    if (kind != 'i' && kind != 'u')
      throw py::value_error(std::string(name) + ": expected an integer array, got dtype " +
                            std::string(py::str(a.dtype())));
    if (a.size() > 0) {
      const auto lo = np.attr("min")(a).cast<long long>();
      const auto hi = np.attr("max")(a).cast<unsigned long long>();
      if (lo < static_cast<long long>(std::numeric_limits<T>::min()) ||
          hi > static_cast<unsigned long long>(std::numeric_limits<T>::max()))
        throw py::value_error(std::string(name) + ": values outside the range of " +
                              std::string(py::str(py::dtype::of<T>())));
    }
  } else if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') {
    throw py::value_error(std::string(name) + ": expected a real array, got dtype " +
                          std::string(py::str(a.dtype())));
  }
  auto c = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(np.attr("ravel")(a));
  if (!c)
    throw py::value_error(std::string(name) + ": cannot convert to " +
                          std::string(py::str(py::dtype::of<T>())));
  return std::vector<T>(c.data(), c.data() + c.size());
}

void set_shape(int64_t& rows, int64_t& cols, const Shape& s) {
  if (s.first < 0 || s.second < 0) throw py::value_error("shape: expected non-negative sizes");
  rows = s.first;
  cols = s.second;
}

sparse::NmAxis parse_axis(const std::string& axis) {
  if (axis == "row") return sparse::NmAxis::Row;
  if (axis == "col") return sparse::NmAxis::Col;
  throw py::value_error("axis: expected 'row' or 'col', got '" + axis + "'");
}

// ---- what every format class has --------------------------------------------------------------
template <class T>
void def_common(py::class_<T>& c) {
  c.def_property_readonly("shape",
                          [](const T& a) {
                            return Shape{a.rows, a.cols};
                          })
      .def_property_readonly(
          "format", [](const T& a) { return spec_for(a).str(); },
          "The format's text form (as --formats and --structure take it)")
      .def_property_readonly(
          "levels", [](const T& a) { return spec_for(a).levels().str(); },
          "Per-rank formats, outermost first (docs/formats.md), e.g. \"UOP(rows; p32) CP(cols; m32 "
          "p0)\"")
      .def_property_readonly(
          "stored_values", [](const T& a) { return static_cast<int64_t>(a.values.size()); },
          "Value slots stored (explicit zeros and padding included): what a kernel multiplies")
      .def_property_readonly(
          "footprint",
          [](const T& a) {
            const sparse::Footprint f = sparse::footprint(a);
            return py::dict("values_bytes"_a = f.values_bytes,
                            "metadata_bytes"_a = f.metadata_bytes, "total_bytes"_a = f.total());
          },
          "Bytes of values and metadata (int32 pointers/indices, ceil(log2 M) bits per offset)")
      .def(
          "to_dense",
          [](const T& a) {
            sparse::DenseMatrix d;
            {
              py::gil_scoped_release nogil;
              d = sparse::to_dense(a);
            }
            return adopt_dense(std::move(d));
          },
          "The matrix as a new (rows, cols) float32 ndarray")
      .def(
          "validate", [](const T& a) { sparse::validate(a); },
          "Checks every invariant of the format; ValueError naming the first broken one")
      .def("__eq__", [](const T& a, const T& b) { return a == b; })
      .def("__copy__", [](const T& a) { return T(a); })
      .def("__deepcopy__", [](const T& a, py::handle) { return T(a); })
      .def("__repr__", [](const T& a) {
        return "<" + spec_for(a).str() + " " + std::to_string(a.rows) + "x" +
               std::to_string(a.cols) + ", " + std::to_string(a.values.size()) + " stored values>";
      });
}

// A property returning a view of one of T's vectors, with the object as the view's base.
template <class T, class V>
void def_view(py::class_<T>& c, const char* name, V T::*member,
              std::vector<py::ssize_t> (*shape)(const T&), bool writable, const char* doc) {
  c.def_property_readonly(
      name,
      [member, shape, writable](py::object self) {
        const T& a = self.cast<const T&>();
        return vector_view(a.*member, shape(a), self, writable);
      },
      doc);
}

template <class T>
py::dict addresses(const T& a) {
  py::dict d;
  d["values"] = reinterpret_cast<uintptr_t>(a.values.data());
  return d;
}

py::ssize_t sz(size_t n) { return static_cast<py::ssize_t>(n); }

// ---- pickling: the parameters and each buffer's bytes; unpickling validates -------------------
template <class T>
py::bytes raw(const std::vector<T>& v) {
  return py::bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
std::vector<T> unraw(py::handle b) {
  const std::string s = b.cast<std::string>();
  if (s.size() % sizeof(T) != 0) throw py::value_error("unpickling: a truncated buffer");
  std::vector<T> v(s.size() / sizeof(T));
  if (!s.empty()) std::memcpy(v.data(), s.data(), s.size());
  return v;
}

void check_state(const py::tuple& t, size_t n) {
  if (t.size() != n) throw py::value_error("unpickling: not a state of this format");
}

void bind_csr(py::module_& m) {
  py::class_<CsrMatrix> c(m, "CsrMatrix",
                          "CSR: row r's entries are data[indptr[r]:indptr[r+1]] at columns "
                          "indices[...]; scipy.sparse.csr_matrix's layout (int32 indices)");
  c.def(py::init([](py::tuple arrays, Shape shape) {
          if (arrays.size() != 3)
            throw py::value_error("expected (data, indices, indptr), as scipy.sparse takes");
          CsrMatrix a;
          set_shape(a.rows, a.cols, shape);
          a.values = component<float>(arrays[0], "data");
          a.col_idx = component<int32_t>(arrays[1], "indices");
          a.row_ptr = component<int32_t>(arrays[2], "indptr");
          sparse::validate(a);
          return a;
        }),
        "arrays"_a, "shape"_a,
        "From SciPy-shaped (data, indices, indptr); copied once into the C++ storage and "
        "validated");
  def_common(c);
  c.def(py::pickle(
      [](const CsrMatrix& a) {
        return py::make_tuple(a.rows, a.cols, raw(a.row_ptr), raw(a.col_idx), raw(a.values));
      },
      [](const py::tuple& t) {
        check_state(t, 5);
        CsrMatrix a;
        a.rows = t[0].cast<int64_t>();
        a.cols = t[1].cast<int64_t>();
        a.row_ptr = unraw<int32_t>(t[2]);
        a.col_idx = unraw<int32_t>(t[3]);
        a.values = unraw<float>(t[4]);
        sparse::validate(a);
        return a;
      }));
  def_view<CsrMatrix>(
      c, "indptr", &CsrMatrix::row_ptr,
      [](const CsrMatrix& a) { return std::vector{sz(a.row_ptr.size())}; }, false,
      "int32 (rows + 1,), a read-only view of the C++ buffer");
  def_view<CsrMatrix>(
      c, "indices", &CsrMatrix::col_idx,
      [](const CsrMatrix& a) { return std::vector{sz(a.col_idx.size())}; }, false,
      "int32 (nnz,), a read-only view of the C++ buffer");
  def_view<CsrMatrix>(
      c, "data", &CsrMatrix::values,
      [](const CsrMatrix& a) { return std::vector{sz(a.values.size())}; }, true,
      "float32 (nnz,), a writable view of the C++ buffer");
  c.def_property_readonly("nnz", &CsrMatrix::nnz, "Stored entries (explicit zeros included)");
  c.def("buffer_addresses", [](const CsrMatrix& a) {
    py::dict d = addresses(a);
    d["indptr"] = reinterpret_cast<uintptr_t>(a.row_ptr.data());
    d["indices"] = reinterpret_cast<uintptr_t>(a.col_idx.data());
    return d;
  });
}

void bind_bsr(py::module_& m) {
  py::class_<BsrMatrix> c(m, "BsrMatrix",
                          "BSR with bh x bw blocks: scipy.sparse.bsr_matrix's layout (data of "
                          "shape (blocks, bh, bw)); edge blocks are zero-padded");
  c.def(py::init([](py::tuple arrays, Shape shape, std::pair<int, int> blocksize) {
          if (arrays.size() != 3)
            throw py::value_error("expected (data, indices, indptr), as scipy.sparse takes");
          BsrMatrix a;
          set_shape(a.rows, a.cols, shape);
          a.bh = blocksize.first;
          a.bw = blocksize.second;
          a.values = component<float>(arrays[0], "data");
          a.col_idx = component<int32_t>(arrays[1], "indices");
          a.row_ptr = component<int32_t>(arrays[2], "indptr");
          sparse::validate(a);
          return a;
        }),
        "arrays"_a, "shape"_a, "blocksize"_a,
        "From SciPy-shaped (data, indices, indptr) and blocksize=(bh, bw); copied once");
  def_common(c);
  c.def(py::pickle(
      [](const BsrMatrix& a) {
        return py::make_tuple(a.rows, a.cols, a.bh, a.bw, raw(a.row_ptr), raw(a.col_idx),
                              raw(a.values));
      },
      [](const py::tuple& t) {
        check_state(t, 7);
        BsrMatrix a;
        a.rows = t[0].cast<int64_t>();
        a.cols = t[1].cast<int64_t>();
        a.bh = t[2].cast<int>();
        a.bw = t[3].cast<int>();
        a.row_ptr = unraw<int32_t>(t[4]);
        a.col_idx = unraw<int32_t>(t[5]);
        a.values = unraw<float>(t[6]);
        sparse::validate(a);
        return a;
      }));
  c.def_readonly("blocksize_h", &BsrMatrix::bh).def_readonly("blocksize_w", &BsrMatrix::bw);
  c.def_property_readonly("blocksize", [](const BsrMatrix& a) {
    return std::pair<int, int>{a.bh, a.bw};
  });
  c.def_property_readonly("blocks", &BsrMatrix::blocks);
  def_view<BsrMatrix>(
      c, "indptr", &BsrMatrix::row_ptr,
      [](const BsrMatrix& a) { return std::vector{sz(a.row_ptr.size())}; }, false,
      "int32 (block_rows + 1,), read-only view");
  def_view<BsrMatrix>(
      c, "indices", &BsrMatrix::col_idx,
      [](const BsrMatrix& a) { return std::vector{sz(a.col_idx.size())}; }, false,
      "int32 (blocks,), block columns, read-only view");
  def_view<BsrMatrix>(
      c, "data", &BsrMatrix::values,
      [](const BsrMatrix& a) {
        return std::vector<py::ssize_t>{sz(a.col_idx.size()), a.bh, a.bw};
      },
      true, "float32 (blocks, bh, bw), writable view");
  c.def("buffer_addresses", [](const BsrMatrix& a) {
    py::dict d = addresses(a);
    d["indptr"] = reinterpret_cast<uintptr_t>(a.row_ptr.data());
    d["indices"] = reinterpret_cast<uintptr_t>(a.col_idx.data());
    return d;
  });
}

void bind_cvse(py::module_& m) {
  py::class_<CvseMatrix> c(m, "CvseMatrix",
                           "Column-vector sparse encoding (CLASP): CSR over groups of v rows whose "
                           "entries are v x 1 vectors; data has shape (vectors, v)");
  c.def(py::init([](py::tuple arrays, Shape shape, int v) {
          if (arrays.size() != 3) throw py::value_error("expected (data, indices, indptr)");
          CvseMatrix a;
          set_shape(a.rows, a.cols, shape);
          a.v = v;
          a.values = component<float>(arrays[0], "data");
          a.col_idx = component<int32_t>(arrays[1], "indices");
          a.row_ptr = component<int32_t>(arrays[2], "indptr");
          sparse::validate(a);
          return a;
        }),
        "arrays"_a, "shape"_a, "v"_a, "From (data, indices, indptr) and the vector length v");
  def_common(c);
  c.def(py::pickle(
      [](const CvseMatrix& a) {
        return py::make_tuple(a.rows, a.cols, a.v, raw(a.row_ptr), raw(a.col_idx), raw(a.values));
      },
      [](const py::tuple& t) {
        check_state(t, 6);
        CvseMatrix a;
        a.rows = t[0].cast<int64_t>();
        a.cols = t[1].cast<int64_t>();
        a.v = t[2].cast<int>();
        a.row_ptr = unraw<int32_t>(t[3]);
        a.col_idx = unraw<int32_t>(t[4]);
        a.values = unraw<float>(t[5]);
        sparse::validate(a);
        return a;
      }));
  c.def_readonly("v", &CvseMatrix::v).def_property_readonly("vectors", &CvseMatrix::vectors);
  def_view<CvseMatrix>(
      c, "indptr", &CvseMatrix::row_ptr,
      [](const CvseMatrix& a) { return std::vector{sz(a.row_ptr.size())}; }, false,
      "int32 (groups + 1,), read-only view");
  def_view<CvseMatrix>(
      c, "indices", &CvseMatrix::col_idx,
      [](const CvseMatrix& a) { return std::vector{sz(a.col_idx.size())}; }, false,
      "int32 (vectors,), read-only view");
  def_view<CvseMatrix>(
      c, "data", &CvseMatrix::values,
      [](const CvseMatrix& a) {
        return std::vector<py::ssize_t>{sz(a.col_idx.size()), a.v};
      },
      true, "float32 (vectors, v), writable view");
  c.def("buffer_addresses", [](const CvseMatrix& a) {
    py::dict d = addresses(a);
    d["indptr"] = reinterpret_cast<uintptr_t>(a.row_ptr.data());
    d["indices"] = reinterpret_cast<uintptr_t>(a.col_idx.data());
    return d;
  });
}

std::vector<py::ssize_t> nm_shape(const NmMatrix& a) {
  const int64_t lines = a.axis == sparse::NmAxis::Row ? a.rows : a.cols;
  if (static_cast<int64_t>(a.values.size()) != lines * a.groups() * a.n)
    return {sz(a.values.size())};  // not a valid matrix: a flat view
  if (a.axis == sparse::NmAxis::Row) return {a.rows, a.groups(), a.n};
  return {a.groups(), a.cols, a.n};
}

void bind_nm(py::module_& m) {
  py::class_<NmMatrix> c(m, "NmMatrix",
                         "N:M: every group of m entries along `axis` stores n (value, offset) "
                         "slots; data/offsets have shape (rows, groups, n) for axis 'row' and "
                         "(groups, cols, n) for 'col'");
  c.def(py::init([](py::handle data, py::handle offsets, Shape shape, int n, int mm,
                    const std::string& axis) {
          NmMatrix a;
          set_shape(a.rows, a.cols, shape);
          a.n = n;
          a.m = mm;
          a.axis = parse_axis(axis);
          a.values = component<float>(data, "data");
          a.offsets = component<uint8_t>(offsets, "offsets");
          sparse::validate(a);
          return a;
        }),
        "data"_a, "offsets"_a, "shape"_a, "n"_a, "m"_a, "axis"_a = "row",
        "From slot values and offsets; copied once and validated");
  def_common(c);
  c.def(py::pickle(
      [](const NmMatrix& a) {
        return py::make_tuple(a.rows, a.cols, a.n, a.m, a.axis == sparse::NmAxis::Col,
                              raw(a.values), raw(a.offsets));
      },
      [](const py::tuple& t) {
        check_state(t, 7);
        NmMatrix a;
        a.rows = t[0].cast<int64_t>();
        a.cols = t[1].cast<int64_t>();
        a.n = t[2].cast<int>();
        a.m = t[3].cast<int>();
        a.axis = t[4].cast<bool>() ? sparse::NmAxis::Col : sparse::NmAxis::Row;
        a.values = unraw<float>(t[5]);
        a.offsets = unraw<uint8_t>(t[6]);
        sparse::validate(a);
        return a;
      }));
  c.def_readonly("n", &NmMatrix::n).def_readonly("m", &NmMatrix::m);
  c.def_property_readonly("axis", [](const NmMatrix& a) {
    return std::string(a.axis == sparse::NmAxis::Row ? "row" : "col");
  });
  c.def_property_readonly("groups", &NmMatrix::groups);
  def_view<NmMatrix>(c, "data", &NmMatrix::values, nm_shape, true,
                     "float32 slot values, writable view");
  def_view<NmMatrix>(c, "offsets", &NmMatrix::offsets, nm_shape, false,
                     "uint8 slot offsets in [0, m), read-only view");
  c.def("buffer_addresses", [](const NmMatrix& a) {
    py::dict d = addresses(a);
    d["offsets"] = reinterpret_cast<uintptr_t>(a.offsets.data());
    return d;
  });
}

std::vector<py::ssize_t> vnm_slots(const VnmMatrix& a) {
  if (static_cast<int64_t>(a.values.size()) != a.rows * a.groups() * a.n)
    return {sz(a.values.size())};
  return {a.rows, a.groups(), a.n};
}

std::vector<py::ssize_t> vnm_sel(const VnmMatrix& a) {
  if (static_cast<int64_t>(a.col_sel.size()) != a.row_blocks() * a.groups() * 4)
    return {sz(a.col_sel.size())};
  return {a.row_blocks(), a.groups(), 4};
}

void bind_vnm(py::module_& m) {
  py::class_<VnmMatrix> c(m, "VnmMatrix",
                          "V:N:M (VENOM): per v x m block 4 selected columns (col_sel, shape "
                          "(row_blocks, groups, 4)); per row n of those 4 (data/offsets, shape "
                          "(rows, groups, n))");
  c.def(py::init([](py::handle col_sel, py::handle data, py::handle offsets, Shape shape, int v,
                    int n, int mm) {
          VnmMatrix a;
          set_shape(a.rows, a.cols, shape);
          a.v = v;
          a.n = n;
          a.m = mm;
          a.col_sel = component<uint8_t>(col_sel, "col_sel");
          a.values = component<float>(data, "data");
          a.offsets = component<uint8_t>(offsets, "offsets");
          sparse::validate(a);
          return a;
        }),
        "col_sel"_a, "data"_a, "offsets"_a, "shape"_a, "v"_a, "n"_a, "m"_a,
        "From the selected columns, slot values and offsets; copied once and validated");
  def_common(c);
  c.def(py::pickle(
      [](const VnmMatrix& a) {
        return py::make_tuple(a.rows, a.cols, a.v, a.n, a.m, raw(a.col_sel), raw(a.values),
                              raw(a.offsets));
      },
      [](const py::tuple& t) {
        check_state(t, 8);
        VnmMatrix a;
        a.rows = t[0].cast<int64_t>();
        a.cols = t[1].cast<int64_t>();
        a.v = t[2].cast<int>();
        a.n = t[3].cast<int>();
        a.m = t[4].cast<int>();
        a.col_sel = unraw<uint8_t>(t[5]);
        a.values = unraw<float>(t[6]);
        a.offsets = unraw<uint8_t>(t[7]);
        sparse::validate(a);
        return a;
      }));
  c.def_readonly("v", &VnmMatrix::v)
      .def_readonly("n", &VnmMatrix::n)
      .def_readonly("m", &VnmMatrix::m);
  c.def_property_readonly("groups", &VnmMatrix::groups);
  def_view<VnmMatrix>(c, "col_sel", &VnmMatrix::col_sel, vnm_sel, false,
                      "uint8 selected column offsets, read-only view");
  def_view<VnmMatrix>(c, "data", &VnmMatrix::values, vnm_slots, true,
                      "float32 slot values, writable view");
  def_view<VnmMatrix>(c, "offsets", &VnmMatrix::offsets, vnm_slots, false,
                      "uint8 offsets into the 4 selected columns, read-only view");
  c.def("buffer_addresses", [](const VnmMatrix& a) {
    py::dict d = addresses(a);
    d["col_sel"] = reinterpret_cast<uintptr_t>(a.col_sel.data());
    d["offsets"] = reinterpret_cast<uintptr_t>(a.offsets.data());
    return d;
  });
}

// ---- conversions -----------------------------------------------------------------------------
void bind_conversions(py::module_& m) {
  m.def(
      "to_format",
      [](py::handle a, const std::string& format, py::object keep, py::object copy) {
        const sparse::FormatSpec spec = sparse::parse_format(format);
        DenseInput in = dense_input(a, "a", copy);
        sparse::Mask mask;
        if (!keep.is_none()) mask = mask_input(keep, in.view.rows, in.view.cols, "keep");
        sparse::AnySparse out;
        {
          py::gil_scoped_release nogil;
          out = sparse::convert(in.view, spec, keep.is_none() ? nullptr : &mask);
        }
        return any_to_python(std::move(out));
      },
      "a"_a, "format"_a, "keep"_a = py::none(), "copy"_a = py::none(),
      "Stores a dense 2-D array in `format` (dense, csr, bsr:HxW, cvse:V, nm:N:M[:col], "
      "vnm:V:N:M): its non-zeros, or exactly the entries `keep` (a bool mask) marks. `a` is read "
      "in place when it is float32 with unit column stride; otherwise it is converted first "
      "(copy=False raises ValueError instead). 'dense' returns a float32 ndarray.");
  m.def(
      "to_dense",
      [](py::handle a) {
        py::object o = py::reinterpret_borrow<py::object>(a);
        if (py::hasattr(o, "to_dense")) return py::array(o.attr("to_dense")());
        throw py::value_error("to_dense: expected a sparsemap sparse matrix");
      },
      "a"_a, "The dense float32 ndarray of any sparse matrix");
  m.def(
      "can_view",
      [](py::handle a) {
        py::array arr = py::array::ensure(a);
        return arr && (arr.ndim() == 1 || arr.ndim() == 2) && viewable_f32(arr);
      },
      "a"_a,
      "Whether a dense input is read in place (no copy): float32, 1-D or 2-D, unit column "
      "stride, row stride a multiple of 4 bytes, 4-byte aligned");
  m.def(
      "format_info",
      [](const std::string& format) {
        const sparse::FormatSpec s = sparse::parse_format(format);
        return py::dict("format"_a = s.str(), "family"_a = s.family(),
                        "levels"_a = s.levels().str(),
                        "intrinsic_sparsity"_a = s.intrinsic_sparsity());
      },
      "format"_a, "A format's canonical text, family, per-rank formats and intrinsic sparsity");
}

}  // namespace

py::object any_to_python(sparse::AnySparse&& a) {
  return std::visit(
      [](auto&& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, sparse::DenseMatrix>)
          return adopt_dense(std::move(x));
        else
          return py::cast(std::move(x));
      },
      std::move(a));
}

void bind_sparse(py::module_& m) {
  bind_csr(m);
  bind_bsr(m);
  bind_cvse(m);
  bind_nm(m);
  bind_vnm(m);
  bind_conversions(m);
  bind_scipy(m);
  bind_prune(m);
  bind_spmm(m);
}

}  // namespace sparsemap::python
