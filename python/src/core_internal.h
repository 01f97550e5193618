// Shared helpers of the core bindings (workloads, accelerators, mappings, cost): the parts that
// bind_core.cpp registers, and the argument checks that the environments reuse.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/mapper/map_space.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::python {

namespace py = pybind11;

void bind_workload(py::module_& m);  // Layer, Model, zoo, load_model (bind_workload.cpp)
void bind_arch(py::module_& m);      // Arch, EnergyTable, AreaModel, presets (bind_arch.cpp)
void bind_mapping(py::module_& m);   // Mapping, DFSL, dataflow templates, MapSpace
void bind_cost(py::module_& m);      // Cost, evaluate, evaluate_batch (bind_cost.cpp)

// Checks a layer built or edited from Python the way the DFSL reader checks a file's layer
// (positive dimensions, product at most 2^62, filter within its input, positive strides).
// Throws InputError at "<layer NAME>".
void check_layer(const workload::Layer& l);
// The part of check_layer that one field write can be held to: every dimension positive, their
// product at most 2^62, positive strides and dilations, padding >= 0 (not the filter-vs-input
// rule, which a sequence of writes may pass through). Layer's setters call it.
void check_sizes(const workload::Layer& l);
// arch::validate at "<argument arch>".
void check_arch(const arch::Arch& a);

// A genome from Python (any float sequence or 1-D array) checked against `dims` genes: right
// length, no NaN, every gene in [0, 1] (1 is taken as the largest double below 1, so that the
// map space's floor(g * n) stays below n). Throws InputError at `label`.
std::vector<double> genome_from(const py::handle& obj, size_t dims, const std::string& label);
// Checks one row of genes in place (same rules); `row` names it in the message.
void check_genes(double* g, size_t dims, const std::string& label, long row);

// The map space options as the CLI's `map` command takes them (--levels, --divisors-only,
// --constraint, --fixed-order, --maestro-compatible).
dse::mapper::MapSpaceOptions space_options(int max_levels, bool divisors_only,
                                           const std::string& constraint, bool fixed_order,
                                           bool maestro_compatible);

// EvalOptions from the CLI's flag texts (--enforce-buffers, --density, --structure,
// --sparse-mode); the flags' own parsers and messages.
cost::EvalOptions eval_options(bool enforce_buffers, const std::string& density,
                               const std::string& structure, const std::string& sparse_mode);

}  // namespace sparsemap::python
