// `sparsemap mse` as a library call: the map-space-exploration study (Kao et al., IISWC 2022
// style). Every search algorithm at every budget and seed on the distinct layers of several
// models (dse::mapper::map_layers); per algorithm and budget the geomean of latency / best found
// by any method, the samples to get within 5% of it, wall time, and convergence curves. Options
// (the command's flags, with its defaults), run(), Result, to_json() (the one place the command's
// JSON is built) and write_outputs() (--csv, --plot). The CLI (apps/cmd_mse.cpp) and the Python
// module (mse) are both flags/keywords -> Options -> run -> print/to_json.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::dse::mse {

// One field per flag of `sparsemap mse` (but --json and --quiet, the CLI's), same names, same
// defaults.
struct Options {
  std::string models = "resnet50,mobilenet-v2,bert-base";  // --models: comma list of zoo models
  std::string hw = "gamma-edge";                           // --hw: a preset name or a file
  std::string algos = "gamma,random,sa,de,pso,cmaes,oneplusone,bo";  // --algos: comma list
  std::string budgets = "1000,10000";  // --budgets: comma list of samples per layer
  std::string objective = "latency";   // --objective: latency, energy, edp or throughput
  int seeds = 3;                       // --seeds: seeds per algorithm and budget
  int threads = 1, levels = 2;         // --threads, --levels (cluster levels, 1 to 4)
  int max_layers = 0;                  // --max-layers: the first N distinct layers per model
  size_t population = 0;               // --population: GA/GAMMA population (0: from the budget)
  double mutation_rate = 0.6;          // --mutation-rate: GAMMA's per-level operator rate
  bool maestro_compatible = false;     // --maestro-compatible: R, S untiled
  uint64_t seed = 1;                   // --seed: the first seed (seed i runs with seed + i)
  std::string csv;                     // --csv: write_outputs writes the curves as CSV
  std::string plot;  // --plot FILE.png|svg: write_outputs renders the curves (and FILE.csv, ...)
};

// `sparsemap mse`'s flags and sparsemap.mse's keywords (sparsemap/option_table.h): the
// Options' fields with their help, beside --json and --quiet of the CLI.
const options::Table<Options>& option_table();

// One row of the study: an algorithm at one budget, over its seeds and the layers some method
// found feasible.
struct Row {
  std::string algo;
  int64_t budget = 0;
  double geomean = 0;           // geomean over layers x seeds of best / best of any method
  double median_samples = -1;   // samples to within 5% (median over layers x seeds); -1: > budget
  double reached_pct = 0;       // % of layers x seeds that got within 5%
  double wall_s = 0;            // per seed, mean
  std::vector<int64_t> points;  // samples at which the curve is read (curve_points(budget))
  std::vector<double> curve;    // geomean of best-so-far / best at points (NaN: infeasible)
};

struct Result {
  bool root = true;  // false on MPI ranks other than 0, where nothing below `options` is filled
  Options options;
  arch::Arch hw;
  std::vector<std::string> models, algos;
  std::vector<int64_t> budgets;
  // The distinct GEMM-class layers of every model (the first max_layers of each), the model
  // each comes from, and the best fitness any method found on it (kInfeasible: none).
  std::vector<workload::Layer> layers;
  std::vector<std::string> layer_model;
  std::vector<double> best;
  std::vector<Row> rows;  // per algorithm, per budget (a row without a feasible layer left out)
};

// Sample counts at which convergence curves are read: about 12 per decade, 1 .. budget.
std::vector<int64_t> curve_points(int64_t budget);

// Runs the study. Deterministic for a seed, whatever the threads (wall times aside). Progress
// goes to `observer`: before each (algo, budget, seed) run a report with done 0 (label "ALGO
// budget B seed S", items: the distinct layers), then after each batch of its searches;
// Cancelled when it asks to stop. Throws InputError for bad options or files (checked before
// the first search). Writes nothing.
Result run(const Options& o, search::Observer& observer);

// "bo capped at 1,000 samples": the note on BO's sample cap.
std::string bo_cap_note();

// The largest of the budgets.
int64_t largest_budget(const Result& r);

// --csv (every curve) and --plot (one curve per algorithm at the largest budget, with its data
// file and gnuplot script beside it), when the options name them. InputError when a file cannot
// be written.
void write_outputs(const Result& r);

// The JSON `sparsemap mse --json` writes: hw, objective, models, seeds, BO's cap, the layers
// with their best, and the rows.
nlohmann::json to_json(const Result& r);

}  // namespace sparsemap::dse::mse
