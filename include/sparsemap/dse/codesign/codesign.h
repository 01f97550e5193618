// DiGamma-style HW-mapping co-design (Kao, Pellauer, Parashar, Krishna, DATE 2022): one genome
// holds the accelerator's resources and one GAMMA mapping per distinct layer of a model; a
// design is scored over every layer under an area budget.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/cost.h"
#include "sparsemap/dse/mapper/gamma_ops.h"
#include "sparsemap/dse/mapper/map_space.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/search/optimizer.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::dse::codesign {

// How L1 (per PE) and L2 are chosen:
//   Need   sized to need: L1 = max over layers of what its mapping needs per PE, L2 likewise
//          (the l1/l2 genes are carried but unused);
//   Genes  the l1/l2 genes pick the sizes (log-uniform over [kMinL1, kMaxL1] and
//          [kMinL2, kMaxL2] bytes); a layer whose mapping needs more is infeasible.
enum class BufferMode : uint8_t { Need, Genes };
BufferMode parse_buffer_mode(const std::string& text);  // throws InputError at --buffers
std::string buffer_mode_name(BufferMode m);
inline constexpr int64_t kMinL1 = 16, kMaxL1 = 64 * 1024;
inline constexpr int64_t kMinL2 = 1024, kMaxL2 = 64 * 1024 * 1024;

// A platform: the area budget and the PE limit.
//   edge   0.2 mm^2, at most 200 PEs (DiGamma's example configuration);
//   cloud  7 mm^2, at most 16,384 PEs (ours, not DiGamma's).
struct Platform {
  std::string name;
  double area_budget_mm2 = 0.2;
  int64_t pe_limit = 200;
};
Platform platform(const std::string& name);  // throws InputError at --platform

struct CodesignOptions {
  double area_budget_mm2 = 0.2;
  int64_t pe_limit = 200;
  int64_t pe_step = 8;  // PEs = pe_step k, k = 1..floor(pe_limit / pe_step)
  BufferMode buffers = BufferMode::Need;
  mapper::Objective objective = mapper::Objective::Latency;
  mapper::MapSpaceOptions space;  // per-layer map space (levels, divisors, constraint)
  // Memoise recent designs (a pure cache: results and sample counts never depend on it; off
  // in the test that shows so).
  bool memo = true;
};

// The objective of a whole-model design from its totals (one definition for the search and
// the fixed-grid baseline): latency = runtime_cycles; energy = energy_nj; edp = runtime_cycles
// x energy_nj; throughput = runtime_cycles / macs (cycles per MAC, the inverse of MACs per
// cycle; for one model it ranks designs as latency does).
double design_objective(mapper::Objective o, int64_t runtime_cycles, double energy_nj,
                        int64_t macs);

// Fitness of an infeasible design: kPenalty (1 + violation), violation = relative area excess
// (area / budget - 1, when positive) + the number of infeasible layers (+ their relative
// buffer shortfall in Genes mode). Finite and below search::kInfeasible, so every optimiser is
// pulled towards feasibility the same way; any fitness >= kPenalty is infeasible.
inline constexpr double kPenalty = 1e200;
inline bool feasible_fitness(double f) { return f < kPenalty; }

// Everything the evaluation of one genome found (per distinct layer and totals).
struct DesignEval {
  int64_t pes = 0, l1_bytes = 0, l2_bytes = 0;
  double area_mm2 = 0, power_mw = 0;
  bool feasible = false;
  double fitness = kPenalty;
  int64_t runtime_cycles = 0;  // sum over every layer of the model (repeats counted)
  double energy_nj = 0;
  std::vector<double> layer_objective;      // per distinct layer, objective_value of its cost
  std::vector<int64_t> layer_runtime;       // per distinct layer: cycles (0 when not Ok)
  std::vector<double> layer_energy;         // per distinct layer: nJ (0 when not Ok)
  std::vector<int64_t> layer_l1, layer_l2;  // per distinct layer: bytes its mapping needs
  std::vector<cost::Cost> layer_cost;       // per distinct layer (only when asked for)
};

// The search space of one model under one platform. Genome layout (all genes in [0, 1)):
//   gene 0  PEs: pe_step (1 + floor(g K)), K = floor(pe_limit / pe_step)
//   gene 1  L1 bytes per PE (Genes mode): log-uniform over [kMinL1, kMaxL1]
//   gene 2  L2 bytes (Genes mode): log-uniform over [kMinL2, kMaxL2]
//   then one mapper::MapSpace genome per distinct layer (its dims() genes), in order.
// Thread-safe: evaluate() may run concurrently; it memoises recent designs when
// CodesignOptions::memo (a pure cache: results never depend on it, and a search counts every
// call as a sample, hit or miss).
class CodesignSpace {
 public:
  static constexpr size_t kHwGenes = 3;
  // `layers`: a model's layers (layers without MACs are skipped); `base`: the template
  // accelerator (bandwidths, energies, clock, area constants; its PEs and buffers are replaced).
  // Throws InputError for bad options or a model without GEMM-class layers.
  CodesignSpace(const std::vector<workload::Layer>& layers, const arch::Arch& base,
                const CodesignOptions& options);

  size_t dims() const { return dims_; }
  size_t unique_layers() const { return unique_.size(); }
  const workload::Layer& unique_layer(size_t u) const { return unique_[u]; }
  int64_t multiplicity(size_t u) const { return count_[u]; }
  // Distinct-layer index of each GEMM-class layer of the model, in model order.
  const std::vector<size_t>& layer_index() const { return index_; }
  const std::vector<workload::Layer>& model_layers() const { return model_; }
  // Up to 4 other distinct layers nearest to u (mapper::layer_distance), nearest first.
  const std::vector<size_t>& neighbours(size_t u) const { return near_[u]; }
  size_t offset(size_t u) const { return kHwGenes + u * map_dims_; }
  size_t map_dims() const { return map_dims_; }
  const CodesignOptions& options() const { return options_; }
  const arch::Arch& base() const { return base_; }

  int64_t pes_of(double gene) const;
  double gene_of_pes(int64_t pes) const;  // the gene that decodes to the largest step <= pes
  int64_t l1_of(double gene) const;
  int64_t l2_of(double gene) const;
  double gene_of_l1(int64_t bytes) const;  // smallest gene whose size >= bytes
  double gene_of_l2(int64_t bytes) const;
  // area = (P pe_um2 + 8 (P L1 + L2) sram_um2_per_bit) / 1e6 (arch::area_mm2).
  double area(int64_t pes, int64_t l1, int64_t l2) const;

  // The accelerator a genome decodes to (before buffer sizing in Need mode: L1/L2 = genes).
  arch::Arch arch_for(int64_t pes, int64_t l1, int64_t l2) const;
  mapper::MapSpace layer_space(size_t u, int64_t pes) const;

  // Full evaluation (memoised); with_costs adds DesignEval::layer_cost (not memoised).
  std::shared_ptr<const DesignEval> evaluate(const search::Genome& g,
                                             bool with_costs = false) const;
  double fitness(const search::Genome& g) const { return evaluate(g)->fitness; }
  // Designs the cost model has evaluated (memo misses, or every call without the memo), not
  // counting with_costs reports: a search without the memo evaluates exactly its samples.
  int64_t evaluations() const { return evaluations_.load(); }

 private:
  std::shared_ptr<const DesignEval> compute(const search::Genome& g, bool with_costs) const;

  std::vector<workload::Layer> model_;
  std::vector<workload::Layer> unique_;
  std::vector<int64_t> count_;
  std::vector<size_t> index_;
  std::vector<std::vector<size_t>> near_;
  arch::Arch base_;
  CodesignOptions options_;
  size_t map_dims_ = 0, dims_ = 0;
  // Memo: two generations of at most kMemo entries each (hash -> genome, result).
  static constexpr size_t kMemo = 2048;
  struct MemoEntry {
    search::Genome g;
    std::shared_ptr<const DesignEval> e;
  };
  mutable std::mutex memo_mu_;
  mutable std::unordered_multimap<uint64_t, MemoEntry> memo_new_, memo_old_;
  mutable std::atomic<int64_t> evaluations_{0};
};

// DiGamma, as this project runs it (docs/codesign.md): a search of the joint genome in which
// every sample is one whole-model design, organised to exploit what the cost model makes
// separable. For a fixed accelerator (PEs, an L1 cap per PE and an L2 cap) whose area fits the
// budget, the model's latency and energy are sums over its layers, and a layer's cost depends
// on its own mapping only; so each distinct layer runs its own GAMMA population (GAMMA's
// operators and rate), all of them in lockstep: sample i takes the next child of every
// layer's GA, is evaluated once as a whole design (one counted sample), and each layer's GA is
// told its own layer's cost (a mapping over the caps is penalised by how much it needs over
// them). On top of GAMMA's operators, migration: in each batch, the first kMigrants children
// of a layer are instead the best mapping of a similar layer (CodesignSpace::neighbours) that
// costs less per MAC, re-encoded for the layer's extents (tiles as they were, or scaled).
// The accelerators are the fixed grid's (fixed_grid), culled by successive halving:
//   round 1  every grid accelerator, a quarter of the budget split evenly;
//   round 2  the best three (one per PE count first), another quarter;
//   round 3  the best one alone, the rest; its last sample is its assembled design: each
//            layer's best mapping so far (never over the caps, so the design fits).
// Accelerators rank by their assembled design (sum over layers of each layer's best cost):
// exact for latency and energy (separable), a proxy for EDP.
// Every cost-model call the search makes is one of its counted samples: the operators read
// the layers' costs of their own batch (EvalRecords), never evaluate.
// Tuned constants and their tuning set: digamma_search.cpp (tuning_models, tuning_seeds).
// A hash of a genome's genes (bit patterns), for the memo and EvalRecords.
uint64_t hash_genome(const search::Genome& g);

// The results of one batch, handed by the fitness function to the optimiser that asked for
// it (thread-safe). put() is called once per evaluated genome; take() finds a genome's result
// (equal genes); clear() empties it before the next batch. No result is kept past its batch,
// so it is a hand-over, not a cache.
struct EvalRecords {
  void put(const search::Genome& g, std::shared_ptr<const DesignEval> e);
  std::shared_ptr<const DesignEval> take(const search::Genome& g) const;  // nullptr: not there
  void clear();

 private:
  mutable std::mutex mu_;
  std::unordered_multimap<uint64_t, std::pair<search::Genome, std::shared_ptr<const DesignEval>>>
      map_;
};

// Algorithms: "digamma" (the search above), then the search engine's
// optimisers on the same genome and fitness with generic operators: "ga", "random", "sa",
// "de", "pso", "cmaes", "oneplusone", "bo" (budget capped at search::kBoSampleCap).
const std::vector<std::string>& codesign_algos();

// The tuning set of every constant chosen by trying values (DiGamma's schedule here, GAMMA's
// operator rate in dse/mapper): models and seeds. Reported figures use other seeds
// (kHeldOutSeeds) and mark the tuning models.
const std::vector<std::string>& tuning_models();
const std::vector<uint64_t>& tuning_seeds();

// The optimiser of `algo` and its batch. population 0: clamp(budget / 20, 20, 100) for the GAs
// (digamma: the population of each layer's GA, 0: clamp(budget / 50, 10, 40)). For "digamma",
// *records is set to the hand-over its fitness function must fill (see run_codesign); for
// the others it is set to null.
std::unique_ptr<search::Optimizer> make_codesign_optimizer(
    const std::shared_ptr<const CodesignSpace>& space, const std::string& algo, int64_t budget,
    uint64_t seed, size_t population, size_t* batch, std::shared_ptr<EvalRecords>* records);
// The "digamma" optimiser alone (digamma_search.cpp); the same contract.
std::unique_ptr<search::Optimizer> make_digamma_search(
    const std::shared_ptr<const CodesignSpace>& space, int64_t budget, uint64_t seed,
    size_t population, size_t* batch, std::shared_ptr<EvalRecords>* records);

// One finished search of the joint space.
struct CodesignResult {
  std::string algo;
  int64_t samples = 0;  // whole-model designs evaluated
  search::Genome best;
  DesignEval design;                       // of `best`, with layer_cost
  std::vector<mapping::Mapping> mappings;  // per distinct layer
  // Pareto front of (area, latency) over the feasible designs this process evaluated, by
  // area ascending (under MPI: this rank's share; after a resume: since the resume).
  std::vector<std::pair<double, int64_t>> pareto;
  std::vector<double> history;  // best fitness after each sample
};

struct RunOptions {
  std::string algo = "digamma";
  int64_t budget = 1000;  // whole-model samples
  uint64_t seed = 1;
  int threads = 1;
  size_t population = 0;
  std::string checkpoint_file;  // search::run_search's checkpoint
  int64_t checkpoint_every = 1000;
  bool resume = false;                            // continue from checkpoint_file when it exists
  std::function<void(int64_t, double)> progress;  // may throw to stop (tests)
  // Called with every design the search evaluates (each counted sample), one call at a time
  // (serialised across the evaluating threads); e.g. the report plots them all.
  std::function<void(const DesignEval&)> on_evaluated;
};

CodesignResult run_codesign(const std::shared_ptr<const CodesignSpace>& space,
                            const RunOptions& options);

// Baseline "best fixed accelerator from a grid, then GAMMA per layer". The grid: PEs in
// {P/4, P/2, P} (P: the PE limit rounded down to pe_step, and no more than fits the area budget
// with 1/8 of it left for SRAM), times the SRAM left by the PEs split as 1/4, 1/2 or 3/4 to L1
// (P L1 bytes) and the rest to L2: 9 accelerators, each within the budget. The sample budget
// N (whole-model evaluations) is split evenly: each accelerator gets floor(N / 9) samples per
// distinct layer, i.e. N / 9 whole-model evaluations' worth of cost-model calls, 9 of them in all.
struct FixedResult {
  arch::Arch best_arch;
  double fitness = kPenalty;  // design_objective on best_arch (kPenalty if none fits)
  int64_t runtime_cycles = 0;
  double energy_nj = 0;
  double area_mm2 = 0;
  int64_t samples_per_layer = 0;  // per grid point and distinct layer
  int64_t grid_points = 0;
  int64_t samples = 0;  // whole-model equivalents spent in all
};
std::vector<arch::Arch> fixed_grid(const CodesignSpace& space);
// spatial_seeds > 0 ("fixed-gamma-seeds"): each layer's GAMMA search on each grid accelerator
// opens with the first `spatial_seeds` genomes of mapper::spatial_seeds(space, n, minimal =
// true), as `map --spatial-seeds n` does on a fixed accelerator (MapperOptions::spatial_seeds;
// the third, least-L2 tiling is there for fixed buffers). The seeds are evaluated as counted
// samples inside the same floor(N / 9) per layer: the sample budget and the counting rules are
// those of the plain baseline. 0: plain GAMMA ("fixed-gamma").
FixedResult run_fixed_gamma(const CodesignSpace& space, int64_t budget, uint64_t seed, int threads,
                            size_t spatial_seeds = 0);
// The seeds per layer of "fixed-gamma-seeds": as many as each of digamma's per-layer GAs opens
// with (digamma_search.cpp, kSpatialSeeds).
inline constexpr size_t kGridSpatialSeeds = 4;

// The bound: no design in the space has a lower latency in the cost model. Per GEMM-class
// layer of the model (repeats counted),
//   max(ceil(MACs / P), ceil((input + weight + output elements) / B_off))
// summed over layers, where P is the most PEs any design can have (a multiple of pe_step,
// <= pe_limit, within the area budget with no SRAM) and B_off the template's off-chip words
// per cycle: every input and weight read once and every output written once (compulsory
// traffic) at the full off-chip bandwidth. A baseline's cycles over the bound is the largest
// speedup any co-design could show over it; codesign cycles over the bound is its distance.
int64_t compute_bound_cycles(const CodesignSpace& space);

// The same with the compute term ceil(MACs / P) replaced by the utilisation bound
// U(layer, P) (mapper/spatial.h): what P PEs can do with whole loop indices spread over them.
// compute_bound_cycles <= utilisation_bound_cycles <= every design's latency.
int64_t utilisation_bound_cycles(const CodesignSpace& space);

// The JSON of a design: accelerator, per-layer mappings and costs, totals.
nlohmann::json design_json(const CodesignSpace& space, const CodesignResult& r);

}  // namespace sparsemap::dse::codesign
