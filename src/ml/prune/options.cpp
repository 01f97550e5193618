// The option tables of prune-train, prune-compare and prune-overhead (run.h). Torch-free: in
// the core library, so that `sparsemap` registers these commands' flags without libtorch.
#include "sparsemap/ml/prune/run.h"

namespace sparsemap::ml::prune {

namespace {

using O = Options;
using Row = options::Option<Options>;

// The flags of all three commands, in the CLI's order (--json and --quiet among them).
options::Table<Options> common() {
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
      Row{"--json", options::kJsonHelp, options::CliValue{}},
      Row{"--quiet", "No table or progress output", options::CliSwitch{}},
  };
}

// The flags of prune-train and prune-compare after the common ones.
options::Table<Options> training() {
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

options::Table<Options> joined(std::vector<options::Table<Options>> parts) {
  options::Table<Options> all;
  for (auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

}  // namespace

// prune-train's flags, in its --help order.
const options::Table<Options>& train_option_table() {
  static const options::Table<Options> table =
      joined({common(),
              training(),
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
const options::Table<Options>& compare_option_table() {
  static const options::Table<Options> table = joined(
      {common(), training(), {Row{"--algos", "Algorithms, comma-separated", SM_FIELD(O, algos)}}});
  return table;
}

// prune-overhead's flags, in its --help order (its --algos default: overhead_defaults()).
const options::Table<Options>& overhead_option_table() {
  static const options::Table<Options> table =
      joined({common(),
              {Row{"--algos", "Algorithms, comma-separated", SM_FIELD(O, algos)},
               Row{"--steps", "Timed steps per round and contender", SM_FIELD(O, steps)},
               Row{"--rounds", "Rounds (dense and sparse alternate)", SM_FIELD(O, rounds)},
               Row{"--schedule-steps",
                   "Training length the default schedules are made for (update frequency)",
                   SM_FIELD(O, schedule_steps)}}});
  return table;
}

}  // namespace sparsemap::ml::prune
