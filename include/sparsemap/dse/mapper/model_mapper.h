// Whole-model mapping search: one search per distinct layer shape (duplicates reuse the result),
// warm-start from similar layers or a mapping database, density ranges, and a checkpoint that
// lets a killed run resume to exactly the uninterrupted result.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/cost.h"
#include "sparsemap/cost/sparsity.h"
#include "sparsemap/dse/mapper/map_space.h"
#include "sparsemap/mapping/mapping.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::dse::mapper {

// Algorithms `map` accepts: "gamma" (the GA with GAMMA's operators), then the search engine's
// optimisers: "ga" (generic operators), "random", "sa", "de", "pso", "cmaes", "oneplusone",
// "bo" (capped at search::kBoSampleCap samples per layer), "exhaustive".
const std::vector<std::string>& mapper_algos();
void check_algo(const std::string& algo);  // throws InputError at --algo

// A saved best mapping of one layer, for warm-start (mapping DB files, map --mapping-db-out).
struct DbEntry {
  workload::Layer layer;
  MapSpace::Decoded decoded;
};
nlohmann::json decoded_to_json(const MapSpace::Decoded& d);
MapSpace::Decoded decoded_from_json(const nlohmann::json& j);   // throws InputError
std::vector<DbEntry> read_mapping_db(const std::string& path);  // throws InputError
void write_mapping_db(const std::vector<DbEntry>& db, const std::string& path);

// Distance between two layers' shapes: sum over the six slots of |ln E_a - ln E_b| (E: the
// slot's extent, map_space.h), plus 10 when the kinds differ.
double layer_distance(const MapSpace& a, const MapSpace& b);

// Density points of a range (any tensor with density_lo < density): `points` evenly spaced
// from lo to hi, all ranged tensors moving together; one point otherwise.
std::vector<cost::SparsityOptions> density_points(const cost::SparsityOptions& s, int points = 3);

struct MapperOptions {
  std::string algo = "gamma";
  int64_t budget = 1000;  // samples per distinct layer (BO: at most kBoSampleCap)
  uint64_t seed = 1;
  int threads = 1;
  Objective objective = Objective::Latency;
  MapSpaceOptions space;
  cost::SparsityOptions sparsity;  // a density range gives a robust search (density_points)
  bool worst_case = false;         // robust fitness: the worst density instead of the mean
  bool regret = true;              // with a range: also search each density alone (regret)
  bool warm_start = false;         // seed from the most similar layers searched before
  bool warm_compare = true;        // with warm_start: also run cold, for samples-to-quality
  int warm_sources = 3;            // similar layers (and DB entries) used as seeds
  // The first `spatial_seeds` genomes of spatial_seeds(space, n, minimal = true) (spatial.h:
  // the layer's best spreads over the PEs, with three tilings each, the last fitting small
  // buffers) open every search's first generation, as counted samples; 0: none.
  size_t spatial_seeds = 0;
  std::vector<DbEntry> mapping_db;
  size_t population = 0;       // GA population; 0: clamp(budget / 25, 20, 100)
  double mutation_rate = 0.6;  // GAMMA's per-level operator rate
  // Checkpoint of the whole run (this file, plus FILE.search for the search in progress),
  // written after each search and every `checkpoint_every` samples inside one.
  std::string checkpoint_file;
  int64_t checkpoint_every = 2000;
  bool resume = false;        // continue from checkpoint_file
  bool keep_history = false;  // LayerOutcome::history (MSE convergence curves)
  // Progress: (distinct layer index, distinct layers, samples, budget, best fitness).
  std::function<void(size_t, size_t, int64_t, int64_t, double)> progress;
};

struct LayerOutcome {
  workload::Layer layer;
  size_t unique = 0;    // index of its distinct shape
  bool reused = false;  // a repeat of an earlier layer's shape (not searched again)
  MapSpace::Decoded decoded;
  mapping::Mapping mapping;
  search::Genome genome;
  double fitness = search::kInfeasible;
  cost::Cost cost;      // at MapperOptions::sparsity (a range: its upper end), enforce_buffers
  int64_t samples = 0;  // samples spent on this layer (0 when reused)
  int64_t samples_to_5pct = -1;  // samples until within 5% of this search's own best
  // warm_start with warm_compare: the cold search's best, and the samples each search needed
  // to reach it (-1: never).
  double cold_fitness = search::kInfeasible;
  int64_t cold_samples_to_target = -1, warm_samples_to_target = -1;
  // Density range: per point, its density of the first ranged tensor, the robust mapping's
  // objective there, the best of a search for that point alone, and the regret (robust/alone-1).
  struct DensityRegret {
    double density = 1;
    double robust = 0, alone = 0, regret = 0;
  };
  std::vector<DensityRegret> regrets;
  std::vector<double> history;  // keep_history: best after each sample
};

struct ModelOutcome {
  std::vector<LayerOutcome> layers;  // GEMM-class layers, model order
  std::vector<std::string> skipped;  // "name (KIND)" of layers without MACs
  size_t unique_layers = 0;
};

// Maps every GEMM-class layer of `layers` on `arch`. Deterministic for a seed, whatever the
// threads or MPI ranks; with resume, ends exactly where an uninterrupted run would. Throws
// InputError for bad options or a checkpoint of another run.
ModelOutcome map_layers(const std::vector<workload::Layer>& layers, const arch::Arch& arch,
                        const MapperOptions& options);

// The directives on one line, "SpatialMap(1,1) K; TemporalMap(3,3) C; Cluster(8,P); ...".
std::string mapping_text(const mapping::Mapping& m);

}  // namespace sparsemap::dse::mapper
