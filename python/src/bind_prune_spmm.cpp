// SciPy interop, pruning of NumPy weights (the prune-train --type vocabulary, magnitude or
// random scores; and sparse::prune to a format) and SpMM with the GIL released.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "numpy_views.h"
#include "sparse_parts.h"
#include "sparsemap/ml/prune/sparsity_type.h"
#include "sparsemap/sparse/kernels/spmm.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::python {

using namespace pybind11::literals;
namespace mlp = ml::prune;

namespace {

// ---- SciPy -------------------------------------------------------------------------------------
py::object to_scipy(py::object a) {
  py::module_ sp = py::module_::import("scipy.sparse");
  py::object shape = a.attr("shape");
  if (py::isinstance<sparse::CsrMatrix>(a))
    return sp.attr("csr_matrix")(
        py::make_tuple(a.attr("data"), a.attr("indices"), a.attr("indptr")), "shape"_a = shape,
        "copy"_a = false);
  if (py::isinstance<sparse::BsrMatrix>(a)) {
    const auto& b = a.cast<const sparse::BsrMatrix&>();
    if (b.rows % b.bh != 0 || b.cols % b.bw != 0)
      throw py::value_error("to_scipy: scipy.sparse.bsr_matrix needs a shape divisible by the " +
                            std::to_string(b.bh) + "x" + std::to_string(b.bw) + " blocks");
    return sp.attr("bsr_matrix")(
        py::make_tuple(a.attr("data"), a.attr("indices"), a.attr("indptr")), "shape"_a = shape,
        "blocksize"_a = a.attr("blocksize"), "copy"_a = false);
  }
  throw py::value_error(
      "to_scipy: SciPy has CSR and BSR only; for other formats use "
      "sparsemap.to_format(a.to_dense(), 'csr')");
}

// A scipy.sparse matrix or array: BSR stays BSR, everything else becomes canonical CSR.
py::object from_scipy(py::object s) {
  py::module_ sp = py::module_::import("scipy.sparse");
  if (!sp.attr("issparse")(s).cast<bool>())
    throw py::value_error("from_scipy: expected a scipy.sparse matrix or array");
  py::module_ m = py::module_::import("sparsemap._sparsemap");
  const std::string fmt = s.attr("format").cast<std::string>();
  py::object c = fmt == "bsr" ? s : s.attr("tocsr")();
  if (!c.attr("has_canonical_format").cast<bool>()) {  // sorted, no duplicates
    c = c.attr("copy")();
    c.attr("sum_duplicates")();
  }
  py::tuple arrays = py::make_tuple(c.attr("data"), c.attr("indices"), c.attr("indptr"));
  if (fmt == "bsr") return m.attr("BsrMatrix")(arrays, c.attr("shape"), c.attr("blocksize"));
  return m.attr("CsrMatrix")(arrays, c.attr("shape"));
}

// ---- pruning -----------------------------------------------------------------------------------
// A weight of any rank seen as the matrix prune-train sees: rows = shape[0], cols = the rest.
struct Weight {
  DenseInput in;
  std::vector<int64_t> shape;
  std::vector<py::ssize_t> py_shape;
};

Weight weight_input(py::handle obj) {
  py::array a = py::array::ensure(obj);
  if (!a) throw py::value_error("w: expected a NumPy array");
  Weight w;
  w.py_shape.assign(a.shape(), a.shape() + a.ndim());
  w.shape.assign(a.shape(), a.shape() + a.ndim());
  const mlp::MatrixShape ms = mlp::matrix_shape(w.shape);
  py::array m2 = a;
  if (a.ndim() != 2) {  // a view when a is C-contiguous, else NumPy copies
    m2 = py::module_::import("numpy").attr("reshape")(a, py::make_tuple(ms.rows, ms.cols));
  }
  w.in = dense_input(m2, "w");
  return w;
}

// Uniform scores in (0, 1], 24 random bits each, from splitmix64: the draw prune-train's
// random / static_sparse algorithms make for the first pruned parameter's initial mask
// (Updater::random_scores with layer 0, step -1) for the same seed.
std::vector<float> random_scores(uint64_t seed, int64_t n) {
  uint64_t state = seed * 0x2545F4914F6CDD1Dull + 0x9E3779B97F4A7C15ull;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x = static_cast<float>((z >> 40) + 1) * (1.0f / 16777216.0f);
  }
  return v;
}

sparse::Mask mask_of(const Weight& w, const std::string& type, py::object sparsity,
                     const std::string& method, uint64_t seed) {
  const mlp::SparsityType t = mlp::parse_sparsity_type(type);
  double s = 0;
  if (sparsity.is_none()) {
    if (t.kind != mlp::SparsityKind::Nm)
      throw py::value_error("sparsity: required for type '" + type +
                            "' (only nm:N:M fixes its own)");
    s = t.intrinsic_sparsity();
  } else {
    s = sparsity.cast<double>();
  }
  if (method != "magnitude" && method != "random")
    throw py::value_error("method: expected magnitude or random, got '" + method + "'");
  std::vector<float> scores;
  sparse::ConstMatrixView v = w.in.view;
  if (method == "random") {
    scores = random_scores(seed, v.rows * v.cols);
    v = {scores.data(), v.rows, v.cols, v.cols};
  }
  py::gil_scoped_release nogil;
  return mlp::compute_mask(v, t, s, w.shape);
}

void bind_prune_functions(py::module_& m) {
  const char* args_doc =
      " type: unstructured | block:HxW[:avg|max|l2] | nm:N:M[:row|col] | "
      "channel[:out|in][:avg|max|l2] | cvse:V (prune-train --type); sparsity in [0, 1] "
      "(None for nm:N:M: its own 1 - N/M); method: magnitude (|w|) or random (uniform scores "
      "from `seed`). A weight of rank > 2 is pruned as the matrix shape[0] x prod(shape[1:]).";
  m.def(
      "prune_mask",
      [](py::handle w, const std::string& type, py::object sparsity, const std::string& method,
         uint64_t seed) {
        const Weight in = weight_input(w);
        return adopt_mask(mask_of(in, type, sparsity, method, seed), in.py_shape);
      },
      "w"_a, "type"_a = "unstructured", "sparsity"_a = py::none(), "method"_a = "magnitude",
      "seed"_a = 0,
      (std::string("The keep-mask (bool, w's shape) of pruning w: exactly round(s * units) "
                   "units dropped, ties to the lower position.") +
       args_doc)
          .c_str());
  m.def(
      "prune",
      [](py::handle w, const std::string& type, py::object sparsity, const std::string& method,
         uint64_t seed) {
        const Weight in = weight_input(w);
        const sparse::Mask mask = mask_of(in, type, sparsity, method, seed);
        sparse::DenseMatrix out;
        {
          py::gil_scoped_release nogil;
          out = sparse::apply_mask(in.in.view, mask);
        }
        auto rows = static_cast<py::ssize_t>(out.values.size());
        py::array a = adopt_vector(std::move(out.values), {rows});
        return py::array(a.attr("reshape")(py::tuple(py::cast(in.py_shape))));
      },
      "w"_a, "type"_a = "unstructured", "sparsity"_a = py::none(), "method"_a = "magnitude",
      "seed"_a = 0,
      (std::string("A new float32 array: w with the entries prune_mask drops set to 0.") + args_doc)
          .c_str());
  m.def(
      "prune_to",
      [](py::handle w, const std::string& format, py::object sparsity) {
        const sparse::FormatSpec spec = sparse::parse_format(format);
        const DenseInput in = dense_input(w, "w");
        const double s = sparsity.is_none() ? -1.0 : sparsity.cast<double>();
        if (sparsity.is_none() && spec.intrinsic_sparsity() < 0)
          throw py::value_error("sparsity: required for format '" + format +
                                "' (only nm and vnm fix their own)");
        sparse::AnySparse out;
        {
          py::gil_scoped_release nogil;
          out = sparse::prune(in.view, spec, s);
        }
        return any_to_python(std::move(out));
      },
      "w"_a, "format"_a, "sparsity"_a = py::none(),
      "Prunes a 2-D w to `format`'s pattern and stores it there (spmm-bench --formats): "
      "dense/csr prune entries by |w|, bsr:HxW blocks and cvse:V vectors by L2 norm, nm:N:M "
      "and vnm:V:N:M their pattern (sparsity None, or exactly 1 - N/M)");
  m.def(
      "relative_error",
      [](py::handle w, py::handle keep) {
        const DenseInput in = dense_input(w, "w");
        const sparse::Mask mask = mask_input(keep, in.view.rows, in.view.cols, "keep");
        return sparse::relative_error(in.view, mask);
      },
      "w"_a, "keep"_a, "||W - W o M||_F / ||W||_F of a 2-D w and its keep-mask");
}

// ---- SpMM --------------------------------------------------------------------------------------
sparse::Isa parse_isa(const std::string& isa) {
  if (isa == "auto") return sparse::Isa::Auto;
  if (isa == "generic") return sparse::Isa::Generic;
  if (isa == "avx2") return sparse::Isa::Avx2;
  if (isa == "avx512") return sparse::Isa::Avx512;
  throw py::value_error("isa: expected auto, generic, avx2 or avx512, got '" + isa + "'");
}

template <class T>
bool run_if(py::handle a, bool ref, sparse::ConstMatrixView b, sparse::MatrixView c,
            const sparse::KernelOptions& o,
            void (*fast)(const T&, sparse::ConstMatrixView, sparse::MatrixView,
                         const sparse::KernelOptions&),
            void (*slow)(const T&, sparse::ConstMatrixView, sparse::MatrixView)) {
  if (!py::isinstance<T>(a)) return false;
  const T& x = a.cast<const T&>();
  py::gil_scoped_release nogil;
  if (ref)
    slow(x, b, c);
  else
    fast(x, b, c, o);
  return true;
}

// rows x cols of a format object; false when `a` is none of the formats.
bool sparse_shape(py::handle a, int64_t& rows, int64_t& cols) {
  auto get = [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if (!py::isinstance<T>(a)) return false;
    const T& x = a.cast<const T&>();
    rows = x.rows;
    cols = x.cols;
    return true;
  };
  using namespace sparse;
  return get(static_cast<CsrMatrix*>(nullptr)) || get(static_cast<BsrMatrix*>(nullptr)) ||
         get(static_cast<CvseMatrix*>(nullptr)) || get(static_cast<NmMatrix*>(nullptr)) ||
         get(static_cast<VnmMatrix*>(nullptr));
}

// Whether two arrays may overlap: the extents of their buffers intersect (numpy's
// may_share_memory rule, without the call).
bool may_overlap(const py::array& x, const py::array& y) {
  auto extent = [](const py::array& v, uintptr_t& lo, uintptr_t& hi) {
    lo = hi = reinterpret_cast<uintptr_t>(v.data());
    if (v.size() == 0) return false;
    for (py::ssize_t d = 0; d < v.ndim(); ++d) {
      const py::ssize_t span = (v.shape(d) - 1) * v.strides(d);
      if (span < 0)
        lo -= static_cast<uintptr_t>(-span);
      else
        hi += static_cast<uintptr_t>(span);
    }
    hi += static_cast<uintptr_t>(v.itemsize());
    return true;
  };
  uintptr_t a0, a1, b0, b1;
  if (!extent(x, a0, a1) || !extent(y, b0, b1)) return false;
  return a0 < b1 && b0 < a1;
}

py::array spmm(py::handle a, py::handle b, int threads, const std::string& isa,
               const std::string& kernel, py::object out, py::object copy) {
  if (threads < 0) throw py::value_error("threads: expected 0 (all) or a positive count");
  if (kernel != "fast" && kernel != "ref")
    throw py::value_error("kernel: expected fast or ref, got '" + kernel + "'");
  const bool ref = kernel == "ref";
  sparse::KernelOptions o;
  o.threads = threads;
  o.isa = sparse::resolve_isa(parse_isa(isa));
  const DenseInput bin = dense_input(b, "b", copy);
  if (bin.shape.size() != 2) throw py::value_error("b: expected a 2-D array");
  DenseInput ain;
  int64_t rows = 0, cols = 0;
  const bool dense_a = !sparse_shape(a, rows, cols);
  if (dense_a) {
    py::array arr = py::array::ensure(a);
    if (!arr || arr.ndim() != 2)
      throw py::value_error("a: expected a sparsemap sparse matrix or a 2-D array");
    ain = dense_input(arr, "a");
    rows = ain.view.rows;
    cols = ain.view.cols;
  }
  if (cols != bin.view.rows)
    throw py::value_error("spmm: a is " + std::to_string(rows) + "x" + std::to_string(cols) +
                          " but b has " + std::to_string(bin.view.rows) + " rows");
  py::array c = out.is_none() ? py::array(py::dtype::of<float>(),
                                          std::vector<py::ssize_t>{rows, bin.view.cols})
                              : py::array::ensure(out);
  if (!c) throw py::value_error("out: expected a NumPy array");
  const sparse::MatrixView cv = dense_output(c, rows, bin.view.cols, "out");
  // The kernels' contract: C overlaps neither A nor B.
  if (may_overlap(c, bin.keep) || (dense_a && may_overlap(c, ain.keep)))
    throw py::value_error("out: must not share memory with a or b");
  if (dense_a) {
    py::gil_scoped_release nogil;
    if (ref)
      sparse::spmm_dense_ref(sparse::to_dense(ain.view), bin.view, cv);
    else
      sparse::sgemm_openblas(ain.view, bin.view, cv, threads);
    return c;
  }
  using namespace sparse;
  const bool ran = run_if<CsrMatrix>(a, ref, bin.view, cv, o, spmm_csr, spmm_csr_ref) ||
                   run_if<BsrMatrix>(a, ref, bin.view, cv, o, spmm_bsr, spmm_bsr_ref) ||
                   run_if<CvseMatrix>(a, ref, bin.view, cv, o, spmm_cvse, spmm_cvse_ref) ||
                   run_if<NmMatrix>(a, ref, bin.view, cv, o, spmm_nm, spmm_nm_ref) ||
                   run_if<VnmMatrix>(a, ref, bin.view, cv, o, spmm_vnm, spmm_vnm_ref);
  if (!ran) throw py::value_error("a: expected a sparsemap sparse matrix or a 2-D array");
  return c;
}

}  // namespace

void bind_scipy(py::module_& m) {
  m.def("to_scipy", &to_scipy, "a"_a,
        "A scipy.sparse csr_matrix / bsr_matrix over the same buffers (no copy)");
  m.def("from_scipy", &from_scipy, "s"_a,
        "A CsrMatrix (BsrMatrix for bsr input) from a scipy.sparse matrix; canonical CSR "
        "(sorted, duplicates summed); the arrays are copied once into the C++ storage");
}

void bind_prune(py::module_& m) { bind_prune_functions(m); }

void bind_spmm(py::module_& m) {
  m.def("spmm", &spmm, "a"_a, "b"_a, "threads"_a = 0, "isa"_a = "auto", "kernel"_a = "fast",
        "out"_a = py::none(), "copy"_a = py::none(),
        "C = A B with the library's kernels, the GIL released. a: a sparse matrix (CSR, BSR, "
        "CVSE, N:M, V:N:M) or a dense 2-D array (OpenBLAS sgemm); b: dense (K, N), read in "
        "place when float32 with unit column stride (copy=False raises instead of converting); "
        "out: an optional float32 (M, N) array written in place. kernel: fast (SIMD, OpenMP "
        "over `threads`, 0 = all) or ref (the scalar reference); isa: auto, generic, avx2, "
        "avx512.");
  m.def(
      "detected_isa", [] { return std::string(sparse::isa_name(sparse::detected_isa())); },
      "The best instruction set of this CPU that the kernels use");
  m.def("openblas_core_name", &sparse::openblas_core_name,
        "OpenBLAS's kernel for this CPU (the dense baseline's)");
}

}  // namespace sparsemap::python
