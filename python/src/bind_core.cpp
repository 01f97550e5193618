#include "bindings.h"

namespace sparsemap::python {

void bind_core(pybind11::module_& /*m*/) {}

}  // namespace sparsemap::python
