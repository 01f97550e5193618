#include "bindings.h"

namespace sparsemap::python {

void bind_commands(pybind11::module_& /*m*/) {}

}  // namespace sparsemap::python
