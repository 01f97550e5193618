// Entry point of the extension module. InputError (bad user input) becomes ValueError with the
// CLI's one-line message (InputError::what()), or FileNotFoundError when it is io::read_file's
// "cannot read" error about a path that does not exist.
#include <pybind11/pybind11.h>

#include <filesystem>

#include "bindings.h"
#include "sparsemap/error.h"

namespace py = pybind11;

namespace {

// io::read_file reports an unreadable file at {path, 0, 0} with a message starting "cannot
// read"; the path's absence on disk (checked here, not read from the text) makes it a missing
// file rather than a directory, a permission problem or an oversized input.
bool missing_file(const sparsemap::InputError& e) {
  const auto& where = e.where();
  if (where.line != 0 || where.file.empty() || e.message().rfind("cannot read", 0) != 0)
    return false;
  std::error_code ec;
  return !std::filesystem::exists(where.file, ec) && !ec;
}

}  // namespace

PYBIND11_MODULE(_sparsemap, m) {
  m.doc() = "sparsemap: hardware-aware DNN sparsity and accelerator co-design at C++ speed";
  m.attr("__version__") = SPARSEMAP_VERSION;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const sparsemap::InputError& e) {
      PyErr_SetString(missing_file(e) ? PyExc_FileNotFoundError : PyExc_ValueError, e.what());
    }
  });
  sparsemap::python::bind_core(m);
  sparsemap::python::bind_env(m);
  sparsemap::python::bind_sparse(m);
  sparsemap::python::bind_commands(m);
  sparsemap::python::bind_timeloop(m);
}
