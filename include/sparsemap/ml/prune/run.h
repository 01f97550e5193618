// `sparsemap prune-train`, `prune-compare` and `prune-overhead` as library calls: one Options
// (the three commands share their flags), the option tables (the CLI's flags and the Python
// keywords, apps/option_table.h and python/src/keywords.h), run_train / run_compare /
// run_overhead (train.h's train, export.h's export_weights and measure_overhead), a Result per
// command, and to_json(), the one place each command's JSON is built. The CLI
// (apps/cmd_prune_train.cpp) prints the tables.
//
// Torch-free header: `sparsemap`, which never links libtorch, registers the commands' flags from
// the option tables (src/ml/prune/options.cpp, in the core library); the run functions link
// libtorch (src/ml/prune/run.cpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/ml/data/fashion_mnist.h"
#include "sparsemap/ml/prune/export.h"
#include "sparsemap/ml/prune/train.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::ml::prune {

// --algos's default in prune-compare and in prune-overhead.
inline constexpr const char* kCompareAlgorithms = "dense,magnitude,random,set,rigl,magnitude_ste";
inline constexpr const char* kOverheadAlgorithms =
    "magnitude,random,static_sparse,set,rigl,magnitude_ste,sr_ste";

// One field per flag of the three commands (but --json and --quiet, which only the CLI has),
// same names and defaults; a command reads only its own flags' fields.
struct Options {
  std::string model = "mlp";  // mlp | cnn
  std::string data = "fashion-mnist";
  std::string data_dir = data::kFashionMnistDir;
  int64_t train_limit = 0;                 // first N training images (0: all)
  int64_t test_limit = 0;                  // first N test images (0: all)
  std::string algo = "magnitude";          // prune-train
  std::string algos = kCompareAlgorithms;  // prune-compare, prune-overhead: comma-separated
  double sparsity = 0.8;                   // target, in [0, 1]
  std::string type = "unstructured";       // parse_sparsity_type
  std::string dist = "uniform";            // uniform | erk
  std::string layer_sparsity;              // NAME=S,...
  std::string keep_dense;                  // SUBSTR,...
  std::string schedule = "auto";
  std::string mask_grads = "auto";  // auto | on | off
  std::string grow;                 // SET/RigL regrowth: "" | random | gradient
  double drop_fraction = 0.3;
  std::string optimizer = "adam";  // sgd | adam | adamw
  double lr = 1e-3;
  double momentum = 0.9;
  double weight_decay = 0.0;
  bool constant_lr = false;  // no cosine decay
  int epochs = 5;
  int64_t batch = 256;
  uint64_t seed = 1;
  int threads = 0;                // libtorch (and kernel) threads; 0: all cores
  std::string export_formats;     // prune-train --export: csr,cvse:4,... ("": no export)
  int64_t export_n = 256;         // columns of B in the export timing
  double export_ms = 100;         // minimum timing per kernel, ms
  int steps = 10;                 // prune-overhead: timed steps per round and contender
  int rounds = 6;                 // prune-overhead
  int64_t schedule_steps = 2350;  // prune-overhead: training length of the default schedules
};

// prune-overhead's defaults (its own --algos).
inline Options overhead_defaults() {
  Options o;
  o.algos = kOverheadAlgorithms;
  return o;
}

// The flags of each command, in its --help order (--json and --quiet among them; defined in
// src/ml/prune/options.cpp, torch-free: `sparsemap` registers them without libtorch).
// prune-overhead's --algos default is overhead_defaults()'s.
const options::Table<Options>& train_option_table();
const options::Table<Options>& compare_option_table();
const options::Table<Options>& overhead_option_table();

// prune-train: one training run, and with --export its weights in the formats.
struct TrainRunResult {
  Options options;
  TrainResult train;      // weights cleared after the export
  bool exported = false;  // --export named formats (the JSON has "export")
  std::vector<ExportRow> export_rows;
};

// prune-compare: one training run per algorithm of --algos, in its order.
struct CompareResult {
  Options options;
  std::vector<TrainResult> runs;
};

// prune-overhead: the masking overhead of each algorithm (but dense / no_prune) of --algos.
struct OverheadResult {
  Options options;
  std::string openblas_core;  // the kernel OpenBLAS runs (sparse::openblas_core_name)
  std::vector<OverheadRow> rows;
};

// Each trains (or times) as the command does; the progress lines (one per epoch, or per
// algorithm for run_overhead) go to observer.on_note, each followed by a progress report
// (item: the algorithm of items, done of total: epochs; best: the epoch's training loss, or the
// sparse step's ms for run_overhead); a stop (observer.cancelled() or stop_requested()) is seen
// at the next report and throws search::Cancelled. run_overhead warns (observer.on_warning,
// without a "warning: " prefix)
// when OPENBLAS_L2_SIZE is set or OpenBLAS does not run its best kernel for this CPU.
// InputError for bad options or missing data, before any training where it can be seen then.
TrainRunResult run_train(const Options& o, search::Observer& observer);
CompareResult run_compare(const Options& o, search::Observer& observer);
OverheadResult run_overhead(const Options& o, search::Observer& observer);

// The JSON each command writes with --json.
nlohmann::json to_json(const TrainRunResult& r);
nlohmann::json to_json(const CompareResult& r);
nlohmann::json to_json(const OverheadResult& r);

}  // namespace sparsemap::ml::prune
