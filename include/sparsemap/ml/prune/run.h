// `sparsemap prune-train`, `prune-compare` and `prune-overhead` as library calls: one Options
// (the three commands share their flags), the option tables (the CLI's flags and the Python
// keywords, apps/option_table.h and python/src/keywords.h), run_train / run_compare /
// run_overhead (train.h's train, export.h's export_weights and measure_overhead), a Result per
// command, and to_json(), the one place each command's JSON is built. The CLI
// (apps/cmd_prune_train.cpp) prints the tables.
//
// Torch-free header: `sparsemap`, which never links libtorch, registers the commands' flags from
// these tables, so they are defined here (inline) rather than in sparsemap_ml; the run functions
// link libtorch (src/ml/prune/run.cpp).
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

namespace table_rows {

using O = Options;
using Row = options::Option<Options>;

// The flags of all three commands, in the CLI's order (--json and --quiet among them).
inline options::Table<Options> common() {
  return {
      Row{"--model", "mlp (784-300-100-10) or cnn (2 conv + 2 fc)", SM_FIELD(O, model)},
      Row{"--data", "fashion-mnist, or synthetic (tests, no package)", SM_FIELD(O, data)},
      Row{"--data-dir", "Folder of the IDX files (Debian package dataset-fashion-mnist)",
          SM_FIELD(O, data_dir)},
      Row{"--threads", "libtorch (and kernel) threads; 0: all cores", SM_FIELD(O, threads)},
      Row{"--sparsity", "Target sparsity of the pruned weights, in [0, 1]", SM_FIELD(O, sparsity)},
      Row{"--optimizer", "sgd, adam or adamw", SM_FIELD(O, optimizer)},
      Row{"--seed", "Seed of the model, the batches and the masks", SM_FIELD(O, seed)},
      Row{"--batch", "Batch size", SM_FIELD(O, batch)},
      Row{"--json", "Write JSON to FILE, or - for stdout", options::CliValue{}},
      Row{"--quiet", "No table or progress output", options::CliSwitch{}},
  };
}

// The flags of prune-train and prune-compare after the common ones.
inline options::Table<Options> training() {
  return {
      Row{"--epochs", "Training epochs", SM_FIELD(O, epochs)},
      Row{"--train-limit", "Use the first N training images (0: all)", SM_FIELD(O, train_limit)},
      Row{"--test-limit", "Use the first N test images (0: all)", SM_FIELD(O, test_limit)},
      Row{"--type",
          "unstructured, block:HxW[:avg|max|l2], nm:N:M[:row|col], "
          "channel[:out|in][:avg|max|l2] or cvse:V",
          SM_FIELD(O, type)},
      Row{"--dist", "Sparsity distribution: uniform or erk", SM_FIELD(O, dist)},
      Row{"--layer-sparsity", "Per-parameter sparsity, NAME=S,... (e.g. fc3.weight=0.5)",
          SM_FIELD(O, layer_sparsity)},
      Row{"--keep-dense", "Leave parameters whose name contains one of SUBSTR,... dense",
          SM_FIELD(O, keep_dense)},
      Row{"--schedule",
          "auto, none, one-shot[:STEP], periodic:FREQ:START[:END] or "
          "poly:FREQ:START:END[:POWER] (optimiser steps)",
          SM_FIELD(O, schedule)},
      Row{"--mask-grads", "Zero gradients of masked weights: auto, on, off",
          SM_FIELD(O, mask_grads)},
      Row{"--lr", "Learning rate (cosine-decayed to 0)", SM_FIELD(O, lr)},
      Row{"--momentum", "SGD momentum", SM_FIELD(O, momentum)},
      Row{"--weight-decay", "Weight decay", SM_FIELD(O, weight_decay)},
      Row{"--constant-lr", "No cosine decay of the learning rate", SM_FIELD(O, constant_lr)},
  };
}

inline options::Table<Options> joined(std::vector<options::Table<Options>> parts) {
  options::Table<Options> all;
  for (auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

}  // namespace table_rows

// prune-train's flags, in its --help order.
inline const options::Table<Options>& train_option_table() {
  using table_rows::O;
  using table_rows::Row;
  static const options::Table<Options> table = table_rows::joined(
      {table_rows::common(),
       table_rows::training(),
       {Row{"--algo",
            "no_prune (dense), magnitude, random, saliency, magnitude_ste, random_ste, "
            "global_magnitude, global_saliency, static_sparse, set, rigl, sr_ste",
            SM_FIELD(O, algo)},
        Row{"--grow", "SET/RigL regrowth: random or gradient", SM_FIELD(O, grow)},
        Row{"--drop-fraction", "SET/RigL drop fraction", SM_FIELD(O, drop_fraction)},
        Row{"--export",
            "After training, store the pruned weights in these formats "
            "(csr,cvse:4,bsr:4x4,nm:2:4,...) and time their SpMM against OpenBLAS",
            SM_FIELD(O, export_formats)},
        Row{"--export-n", "Columns of B in the export timing", SM_FIELD(O, export_n)},
        Row{"--export-ms", "Minimum timing per kernel (ms)", SM_FIELD(O, export_ms)}}});
  return table;
}

// prune-compare's flags, in its --help order.
inline const options::Table<Options>& compare_option_table() {
  using table_rows::O;
  using table_rows::Row;
  static const options::Table<Options> table =
      table_rows::joined({table_rows::common(),
                          table_rows::training(),
                          {Row{"--algos", "Algorithms, comma-separated", SM_FIELD(O, algos)}}});
  return table;
}

// prune-overhead's flags, in its --help order (its --algos default: overhead_defaults()).
inline const options::Table<Options>& overhead_option_table() {
  using table_rows::O;
  using table_rows::Row;
  static const options::Table<Options> table = table_rows::joined(
      {table_rows::common(),
       {Row{"--algos", "Algorithms, comma-separated", SM_FIELD(O, algos)},
        Row{"--steps", "Timed steps per round and contender", SM_FIELD(O, steps)},
        Row{"--rounds", "Rounds (dense and sparse alternate)", SM_FIELD(O, rounds)},
        Row{"--schedule-steps",
            "Training length the default schedules are made for (update frequency)",
            SM_FIELD(O, schedule_steps)}}});
  return table;
}

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
