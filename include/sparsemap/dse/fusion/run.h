// `sparsemap fuse` as a library call: Options (the command's flags, with its defaults), run()
// (each method on the model's fusion cost model, with --repeat's timing runs), Result, and
// to_json(), the one place the command's JSON is built. The CLI (apps/cmd_fuse.cpp) prints the
// table; the Python module's fuse() returns to_json as a dict.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/fusion.h"
#include "sparsemap/dse/fusion/fuser_infer.h"
#include "sparsemap/dse/fusion/fusion_search.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::dse::fusion {

// One field per flag of `sparsemap fuse`, same names and defaults.
struct Options {
  std::string model, hw = "flat-edge", method = "dp", objective = "latency";
  std::string dataflow = "best";
  std::string weights;  // learned: the weights file (the caller resolves the shipped default)
  std::string checkpoint, resume;
  int64_t batch = 1, buffer_kb = 0, budget = 6000, image_size = 0;
  uint64_t seed = 1;
  int threads = 1, repeat = 1;
  size_t population = 64;
  // In place of `model` / `hw` when set: a model or accelerator held in memory (Python objects).
  std::optional<workload::Model> model_object;
  std::optional<arch::Arch> hw_object;
  // Reads the learned mapper's weights from a path; empty: plain .bin weights only (a torch
  // archive is an InputError naming its .bin). The CLI built with libtorch reads .pt too.
  std::function<FuserWeights(const std::string&)> load_weights;
};

// `sparsemap fuse`'s flags and sparsemap.fuse's keywords (sparsemap/option_table.h): the
// Options' fields with their help, beside --groups, --json and --quiet of the CLI.
const options::Table<Options>& option_table();

// One method's outcome.
struct MethodRun {
  FusionResult result;  // wall_s: the median of the `repeat` runs
  double first_s = 0;   // the first run's wall time (cold caches)
  double load_s = 0;    // learned: loading the weights (not in wall_s)
};

struct Result {
  Options options;  // as given (model_object, hw_object and load_weights dropped)
  std::shared_ptr<const cost::FusionCostModel> model;
  cost::FusionCost none;        // no fusion: the reference of every table row
  std::vector<MethodRun> runs;  // one per method, in --method's order
};

// Checks every option, builds the model's fusion cost model and runs each method. Progress of
// the search method goes to `observer` after each batch; Cancelled when it asks to stop.
// Throws InputError for bad options or files.
Result run(const Options& o, search::Observer& observer);

// One method's JSON object.
nlohmann::json run_json(const Result& r, const MethodRun& run);
// The JSON `sparsemap fuse --json` writes: one method's object, or an array of them.
nlohmann::json to_json(const Result& r);

}  // namespace sparsemap::dse::fusion
