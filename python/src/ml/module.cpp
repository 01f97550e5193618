// The extension module `sparsemap._ml`: the functions that need libtorch, linked with
// sparsemap_ml (cmake/python.cmake builds it only where libtorch is). `import sparsemap` never
// loads it (nor libtorch): python/sparsemap/__init__.py imports it only for hwalloc's RL
// methods, a report with the NonGEMM profile, nongemm, train, nm_study and fuse_train. Types
// (Model, ...) are those
// `_sparsemap` registered; InputError becomes the same ValueError / FileNotFoundError as there.
#include <pybind11/pybind11.h>

#include "../bindings.h"
#include "sparsemap/error.h"
#include "sparsemap/ml/hwalloc/policy.h"
#include "sparsemap/ml/nongemm/report_profile.h"

namespace py = pybind11;

namespace sparsemap::python {
// prune_train, prune_compare, prune_overhead: ml::prune's run functions called directly
// (bind_prune.cpp).
void bind_prune(py::module_& m);
}  // namespace sparsemap::python

PYBIND11_MODULE(_ml, m) {
  m.doc() = "sparsemap's functions that need libtorch (imported by sparsemap when asked for)";
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const sparsemap::InputError& e) {
      PyErr_SetString(sparsemap::python::input_error_type(e), e.what());
    }
  });
  const std::string how = " Keyword arguments are the command's flags; see sparsemap.map_model.";
  sparsemap::python::bind_hwalloc_with(m, how, sparsemap::ml::hwalloc::rl_method());
  sparsemap::python::bind_report_with(m, how, sparsemap::ml::nongemm::report_profiler());
  sparsemap::python::bind_nongemm(m);
  sparsemap::python::bind_train(m);
  sparsemap::python::bind_prune(m);
}
