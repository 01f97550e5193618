// The Python module `sparsemap._sparsemap` (pybind11), split by area. module.cpp calls each
// bind_* once, in this order, so a later area may take and return the classes an earlier one
// registered (pybind11's type registry is shared by all translation units of the module).
#pragma once

#include <pybind11/pybind11.h>

namespace sparsemap::python {

// Workloads, accelerators, mappings, dataflow templates, evaluate and its batch form.
void bind_core(pybind11::module_& m);
// Gym-style environments over the map space and the co-design space (no gym dependency).
void bind_env(pybind11::module_& m);
// Sparse formats to and from NumPy/SciPy-shaped arrays, pruning of NumPy weights, SpMM.
void bind_sparse(pybind11::module_& m);
// The CLI's search commands as functions returning dicts: map_model, codesign, attention,
// fuse, schedule, hwalloc.
void bind_commands(pybind11::module_& m);
// Timeloop v0.4 / Accelergy inputs: load_timeloop, TimeloopInputs.evaluate, TimeloopResult.
void bind_timeloop(pybind11::module_& m);

}  // namespace sparsemap::python
