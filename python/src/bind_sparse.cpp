#include "bindings.h"

namespace sparsemap::python {

void bind_sparse(pybind11::module_& /*m*/) {}

}  // namespace sparsemap::python
