#include "bindings.h"

namespace sparsemap::python {

void bind_env(pybind11::module_& /*m*/) {}

}  // namespace sparsemap::python
