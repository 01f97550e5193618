// Entry point of the extension module. InputError (bad user input) becomes ValueError with the
// CLI's one-line message (InputError::what()), or FileNotFoundError when it is io::read_file's
// "cannot read" error about a path that does not exist.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "sparsemap/error.h"

namespace py = pybind11;

PYBIND11_MODULE(_sparsemap, m) {
  m.doc() = "sparsemap: hardware-aware DNN sparsity and accelerator co-design at C++ speed";
  m.attr("__version__") = SPARSEMAP_VERSION;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const sparsemap::InputError& e) {
      PyErr_SetString(sparsemap::python::input_error_type(e), e.what());
    }
  });
  sparsemap::python::bind_core(m);
  sparsemap::python::bind_env(m);
  sparsemap::python::bind_sparse(m);
  sparsemap::python::bind_systems(m);
  sparsemap::python::bind_timeloop(m);
}
