// A whole network mapped on a Timeloop-described accelerator: every distinct layer searched
// once (map_problem), warm-started from the layers before it, with totals and lower bounds.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/dse/timeloop/mapper.h"

namespace sparsemap::dse::timeloop {

struct NetworkLayer {
  std::string name;  // a problem file's stem or the model's layer name
  workload::Einsum problem;
};

struct NetworkOptions {
  MapperOptions mapper;
  // Seed each search with the loop orders and keep choices of the best mappings found so far
  // (every layer of one network on one accelerator has the same order and keep genes), the
  // factor genes drawn from the seed; the warm genomes are evaluated first and counted.
  bool warm_start = true;
  size_t warm_seeds = 4;  // best earlier mappings carried over (most recent first)
  // Checkpoint: after each distinct layer the layers done are written to checkpoint_file
  // (atomically, by MPI rank 0 only), the search in progress to checkpoint_file + ".search"
  // every mapper.checkpoint_every evaluations. With resume, a run of the same layers,
  // accelerator, ERT and options continues from them and ends as an uninterrupted run does
  // (InputError naming the file for a checkpoint of another run). Empty: none.
  std::string checkpoint_file;
  bool resume = false;
};

// After each batch of evaluations: the distinct layer being mapped (0-based), how many there
// are, evaluations spent on it, its budget (0: an enumeration) and its best fitness so far.
using NetworkProgress =
    std::function<void(size_t layer, size_t layers, int64_t evaluations, int64_t budget, double)>;

struct NetworkRow {
  std::string name;
  std::string same_as;  // the first layer of this shape, when this row repeats it (not searched)
  MapperResult r;
};

struct NetworkResult {
  std::vector<NetworkRow> rows;  // one per layer, in the model's order
  // Totals over every layer (count included): cycles and energy add; edp = cycles x energy.
  int64_t cycles = 0;
  double energy_pj = 0;
  LowerBound bound;  // the layers' bounds, added the same way
  int64_t evaluations = 0;
  double seconds = 0;
  bool all_found = true;
  double edp() const { return static_cast<double>(cycles) * energy_pj; }
};

// Maps `layers` on `h` (energies from `ert`); `progress` may be empty. Throws InputError for
// bad constraints, options or checkpoints.
NetworkResult map_network(const std::vector<NetworkLayer>& layers, const arch::Hierarchy& h,
                          const arch::EnergyTable* ert, const NetworkOptions& o,
                          const NetworkProgress& progress = {});

// {"layers": [{name, same_as?, found, algo, cycles, energy_pj, edp, utilization,
//   evaluations, space_points?, seconds, bound: {cycles, energy_pj, edp}, edp_over_bound}],
//  "total": {cycles, energy_pj, edp, evaluations, seconds, bound: {...}, edp_over_bound}}.
nlohmann::json to_json(const NetworkResult& r);

}  // namespace sparsemap::dse::timeloop
