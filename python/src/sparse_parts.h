// The sparse area of the Python module, split by file: formats (bind_sparse.cpp), SciPy
// interop, pruning and SpMM (bind_prune_spmm.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::python {

// The concrete Python object of any format (a dense matrix becomes a float32 ndarray).
pybind11::object any_to_python(sparse::AnySparse&& a);

void bind_scipy(pybind11::module_& m);  // from_scipy, to_scipy
void bind_prune(pybind11::module_& m);  // prune_mask, prune, prune_to, relative_error
void bind_spmm(pybind11::module_& m);   // spmm, detected_isa, openblas_core_name

}  // namespace sparsemap::python
