// Workloads, accelerators, mappings and the cost model: each part in its own file (see
// core_internal.h), registered in dependency order.
#include "bindings.h"
#include "core_internal.h"

namespace sparsemap::python {

void bind_core(pybind11::module_& m) {
  bind_workload(m);
  bind_arch(m);
  bind_mapping(m);
  bind_cost(m);
}

}  // namespace sparsemap::python
