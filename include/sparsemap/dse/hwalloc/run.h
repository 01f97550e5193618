// `sparsemap hwalloc` as a library call: Options (the command's flags, with its defaults), run()
// (ConfuciuX's RL then GA fine-tuning, or a baseline, at equal cost-model calls, with
// checkpoints), Result, and to_json(), the one place the command's JSON is built. The CLI
// (apps/cmd_hwalloc.cpp) prints the table; the Python module's hwalloc() returns to_json as a
// dict. The RL methods' policy needs libtorch: it comes in through Options::rl
// (ml::hwalloc::rl_method()), so this folder stays torch-free.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/dse/hwalloc/hwalloc.h"
#include "sparsemap/dse/hwalloc/methods.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::dse::hwalloc {

// One field per flag of `sparsemap hwalloc`, same names and defaults.
struct Options {
  std::string model;  // a zoo model, a model file, or a ConfuciuX model CSV (K,C,Y,X,R,S,T)
  std::string dataflow = "dla", platform = "cloud", constraint = "area", objective = "latency",
              method = "confuciux", deployment = "pipelined", edges = "padded",
              budget_counts = "lookups";
  double fraction = -1;  // constraint fraction in [0, 1]; -1: the platform's
  int64_t budget = 10000;
  uint64_t seed = 1;
  double rl_fraction = 0.5;
  int64_t checkpoint_every = 20;
  int64_t episodes = 300;   // RL episode cap (0: none); tuned on ResNet-18/dla (docs)
  int64_t max_designs = 0;  // designs cap (0: 2 x budget)
  int64_t rl_stall = 100;   // RL stops after this many episodes without progress
  int64_t stall = 2000;     // GA / baselines stop after this many designs without progress
  std::string checkpoint, resume;
  // In place of `model` when set: a model held in memory (a Python object).
  std::optional<workload::Model> model_object;
  // The RL methods' agents (confuciux, rl, a2c); empty: those methods are an InputError.
  RlMethod rl;
};

// `sparsemap hwalloc`'s flags and sparsemap.hwalloc's keywords (sparsemap/option_table.h): the
// Options' fields with their help, beside --json, --plot and --quiet of the CLI.
const options::Table<Options>& option_table();

// confuciux, rl and a2c: the methods that need Options::rl.
bool is_rl_method(const std::string& method);

// The flags' checks, before any work, in the CLI's order; `json` and `plot` are the caller's
// output files (--json, --plot: "" for none), checked in their place. InputError at
// "<flag --NAME>", or at an output path that cannot be created. Does not check that an RL
// method has Options::rl (run() does).
void check_options(const Options& o, const std::string& json = "", const std::string& plot = "");

// One layer of the best design.
struct LayerRow {
  workload::Layer layer;
  LayerChoice choice;
  LayerCost cost;
};

struct Result {
  Options options;      // as given (model_object and rl dropped)
  std::string model;    // the model's name
  double fraction = 0;  // the constraint fraction used
  double constraint = 0, constraint_min = 0, constraint_max = 0;  // budget, min and max design
  BudgetCount budget_count = BudgetCount::Lookups;
  // The run's counts, taken when the search ended: calls = the budgeted count.
  int64_t calls = 0, states = 0, lookups = 0, designs = 0;
  int64_t rl_episodes = 0, ga_generations = 0;
  double wall_s = 0;             // problem setup and search (this process's clock)
  Tracker tracker;               // the best design, its cost and the convergence
  std::vector<LayerRow> layers;  // the best design's layers (none without a feasible design)
  std::string note;              // why the run did not go as asked, or ""
  // `states` or `lookups`, as the budget counts.
  int64_t budgeted(int64_t states_count, int64_t lookups_count) const {
    return budget_count == BudgetCount::States ? states_count : lookups_count;
  }
};

// Checks the options, builds the problem and runs the method to the budget, resuming from
// Options::resume and writing Options::checkpoint when named. Progress goes to `observer` after
// each episode, GA generation or baseline design (label "episode", "generation" or "design",
// item the count of that step, done / total the budgeted calls, best the best objective or
// search::kInfeasible); Cancelled when it asks to stop. Throws InputError for bad options or
// files (a checkpoint's state that does not fit names the --resume file), and for an RL method
// without Options::rl.
Result run(const Options& o, search::Observer& observer);

// The JSON `sparsemap hwalloc --json` writes.
nlohmann::json to_json(const Result& r);

// --plot: the best objective so far against the cost-model calls as `plot` (.png or .svg), its
// data beside it as PLOT.csv and its gnuplot script as PLOT.gp (replacing them); InputError
// when they cannot be written or gnuplot fails (the data stays).
void write_plot(const Result& r, const std::string& plot);

}  // namespace sparsemap::dse::hwalloc
