// Entry point of the extension module. InputError (bad user input) becomes ValueError with the
// CLI's one-line message, or FileNotFoundError when the message says a file does not exist.
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
      const std::string& msg = e.message();
      const bool missing = msg.find("does not exist") != std::string::npos ||
                           msg.find("no such file") != std::string::npos ||
                           msg.find("cannot open") != std::string::npos;
      PyErr_SetString(missing ? PyExc_FileNotFoundError : PyExc_ValueError, e.what());
    }
  });
  sparsemap::python::bind_core(m);
  sparsemap::python::bind_env(m);
  sparsemap::python::bind_sparse(m);
  sparsemap::python::bind_commands(m);
}
