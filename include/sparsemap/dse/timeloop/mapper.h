// The mapper on Timeloop's map space: one problem (a layer) on one storage hierarchy, searched
// by GAMMA's genetic operators or any optimiser of the search engine, or enumerated when the
// space is small, ranked by Timeloop's optimization metrics.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sparsemap/arch/hierarchy.h"
#include "sparsemap/cost/loopnest.h"
#include "sparsemap/dse/timeloop/map_space.h"
#include "sparsemap/mapping/loop_nest.h"
#include "sparsemap/search/optimizer.h"
#include "sparsemap/workload/einsum.h"

namespace sparsemap::dse::timeloop {

enum class Metric { kDelay, kEnergy, kEdp };

// "delay" | "energy" | "edp" (Timeloop's names; "last_level_accesses" and the rest are refused
// with InputError at `where`).
Metric parse_metric(const std::string& name, const std::string& where);
std::string metric_name(Metric m);

struct MapperOptions {
  // "gamma" (the GA with the map space's genetic operators), "exhaustive" (every point; refused
  // above exhaustive_limit), "auto" (exhaustive when the space has at most exhaustive_limit
  // points, else gamma), or a search-engine optimiser ("ga", "random", "sa", "de", "pso",
  // "cmaes", "oneplusone", "bo").
  std::string algo = "auto";
  int64_t budget = 10000;  // loop-nest evaluations per problem (searches; enumeration ignores it)
  uint64_t exhaustive_limit = 2'000'000;
  std::vector<Metric> metrics = {Metric::kEdp};  // lexicographic, first most important
  uint64_t seed = 1;
  int threads = 1;
  double mutation_rate = 0.3;
  size_t population = 0;             // 0: clamp(budget / 25, 20, 100)
  std::vector<search::Genome> warm;  // genomes evaluated first (warm start)
  // Evaluations split over MPI ranks too (every rank must call map_problem alike; search::
  // Evaluator). The result never depends on threads or ranks.
  bool use_mpi = false;
  // A search's state (search::run_search's checkpoint) written to checkpoint_file every
  // checkpoint_every evaluations and at its end; with resume, continued from that file when it
  // exists. An enumeration keeps no state (it is run again: at most exhaustive_limit points).
  std::string checkpoint_file;
  int64_t checkpoint_every = 2000;
  bool resume = false;
  // Called after each batch with (evaluations so far, the search's budget or 0 for an
  // enumeration, best fitness so far); may be empty.
  std::function<void(int64_t, int64_t, double)> progress;
};

// Bounds no mapping can beat (cycles from compute and from each level's compulsory traffic at
// its bandwidth; energy from the compute and the outermost level's compulsory accesses).
struct LowerBound {
  int64_t cycles = 0;
  double energy_pj = 0;
  double edp() const { return static_cast<double>(cycles) * energy_pj; }
};
LowerBound lower_bound(const workload::Einsum& p, const arch::Hierarchy& h,
                       const arch::EnergyTable* ert);

struct MapperResult {
  bool found = false;           // a mapping that fits
  std::string algo;             // what ran ("exhaustive", "gamma", ...)
  cost::LoopNestResult result;  // the best mapping's evaluation
  mapping::LoopNest mapping;    // the best mapping, named
  search::Genome genome;        // its genome (empty when enumerated)
  int64_t evaluations = 0;      // loop-nest evaluations spent (every one counted)
  uint64_t space_points = 0;    // points of the space when enumerated, else 0
  double seconds = 0;           // wall time of the search
  LowerBound bound;
};

// The best mapping of `p` on `h` (energies from `ert`, nullptr: energy 0) under the options.
// Throws InputError for bad constraints (MapSpace) or options.
MapperResult map_problem(const workload::Einsum& p, const arch::Hierarchy& h,
                         const arch::EnergyTable* ert, const MapperOptions& o);

// The result of genome `g` of p's map space on `h` (MapSpace::decode, then the full evaluation):
// found false when it decodes to no fitting mapping; algo empty, evaluations 0.
MapperResult evaluate_genome(const workload::Einsum& p, const arch::Hierarchy& h,
                             const arch::EnergyTable* ert, const search::Genome& g);

// The scalar an optimiser minimises for `metrics`: the first metric, ties broken by the second
// (mapped into [0, 1) as v / (v + its value at `scale`, the layer's lower bound) and added
// below the first one's resolution: half a cycle for delay, a relative 1e-12 otherwise; later
// metrics are not used). kInfeasible when `s` is not ok.
double fitness(const cost::LoopNestSummary& s, const std::vector<Metric>& metrics,
               const LowerBound& scale);

}  // namespace sparsemap::dse::timeloop
