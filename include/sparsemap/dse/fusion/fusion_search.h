// Fusion mappers (DNNFuser's map space): no fusion, greedy, dynamic programming over group
// boundaries, exhaustive enumeration, and a GA (the search engine) over per-layer micro-batches
// and boundaries, all under an on-chip buffer limit (cost/fusion.h prices a mapping).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sparsemap/cost/fusion.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::dse::fusion {

enum class Objective : uint8_t { Latency, Energy, Edp };
Objective parse_objective(const std::string& text);  // latency|energy|edp; InputError otherwise
std::string objective_name(Objective o);
// latency_cycles, energy_nj, or their product (cycles x nJ).
double objective_value(const cost::FusionCost& c, Objective o);

struct FusionResult {
  std::string method;  // "none", "greedy", "dp", "exhaustive", "search", "learned"
  cost::FusionMapping mapping;
  cost::FusionCost cost;
  // Cost-model samples spent: whole-mapping evaluations (search, exhaustive) plus one per group
  // evaluated (greedy, dp, repair). The single-layer evaluations that build the model's cache
  // (FusionCostModel::evaluations()) are shared by all methods and not included.
  int64_t samples = 0;
  double wall_s = 0;  // wall time of the method alone (the cost model's cache excluded)
};

// Every layer alone at the whole batch.
FusionResult no_fusion(const cost::FusionCostModel& m, Objective o);

// Walks the layers in order and adds each one to the open group when the group with it (at
// its best micro-batch, the same for the whole group) meets the buffer and costs no more than
// closing the group and starting a new one; EDP is judged per group as latency x energy.
FusionResult greedy(const cost::FusionCostModel& m, Objective o);

// Optimal over boundaries with one micro-batch per group (any divisor of B), for latency and
// energy (both sum over groups):  best[j] = min_{i <= j, mb} best[i - 1] + f(group(i..j, mb)),
// groups that do not meet the buffer excluded. For EDP, the best EDP of the DP optima of
// w L / L0 + (1 - w) E / E0 for w in {0, 1/4, 1/2, 3/4, 1} (a heuristic; L0, E0: no fusion).
// Works on DAGs too: a group's cost depends only on its range (fusion.h).
FusionResult dp(const cost::FusionCostModel& m, Objective o);

// Every mapping of DP's space (boundaries x one micro-batch per group), each evaluated whole;
// exact for every objective. Throws InputError when the space has more than `max_points`.
FusionResult exhaustive(const cost::FusionCostModel& m, Objective o, int64_t max_points = 2000000);

// The GA's genome: gene i < n picks node i's micro-batch (the floor(g * D)-th divisor of B);
// gene n + i (i < n - 1) cuts after node i when >= 0.5.
size_t genome_dims(const cost::FusionCostModel& m);
cost::FusionMapping decode(const cost::FusionCostModel& m, const search::Genome& g);
search::Genome encode(const cost::FusionCostModel& m, const cost::FusionMapping& f);
// Per-gene levels for search::make_optimizer("exhaustive") over the full space.
std::vector<int64_t> exhaustive_levels(const cost::FusionCostModel& m);
// Fitness: the objective when the mapping meets the buffer; else 1e200 x (request / buffer),
// so that infeasible mappings still rank by how far over they are.
double fitness(const cost::FusionCostModel& m, const cost::FusionMapping& f, Objective o);

struct SearchOptions {
  std::string algo = "ga";  // any search::optimizer_names() entry
  int64_t budget = 6000;    // whole-mapping samples
  uint64_t seed = 1;
  int threads = 1;
  size_t population = 64;
  // Seeds for the first generation: no fusion, greedy and dp (their samples are added).
  bool seed_baselines = true;
  std::string checkpoint_file;       // search::run_search checkpoints (and resume when it exists)
  int64_t checkpoint_every = 10000;  // samples between checkpoints (and one at the end)
  bool resume = false;
  std::function<void(int64_t, double)> progress;  // (samples, best fitness)
};
FusionResult search(const cost::FusionCostModel& m, Objective o, const SearchOptions& s);

// Makes a mapping meet the buffer: while some group's request is over, tries splitting the
// worst group at each inner boundary and halving (to the next smaller divisor) the micro-batch
// of each of its nodes, and keeps the candidate with the smallest (excess, objective). Returns
// the mapping unchanged when it meets the buffer; the result may still be over when even
// single layers at micro-batch 1 are. Adds the groups it evaluates to *samples.
cost::FusionMapping repair(const cost::FusionCostModel& m, cost::FusionMapping f, Objective o,
                           int64_t* samples);

}  // namespace sparsemap::dse::fusion
