// Sparse training of a small classifier on Fashion-MNIST with any algorithm of the updater
// API, and the measurement of the masking overhead per training step. Torch-free header (the
// CLI includes it); the implementation links libtorch.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sparsemap/ml/data/fashion_mnist.h"
#include "sparsemap/ml/prune/algorithm.h"
#include "sparsemap/sparse/format/dense.h"

namespace sparsemap::ml::prune {

// One line of progress (no newline). Null: quiet.
using ProgressFn = std::function<void(const std::string&)>;

struct DataOptions {
  // "fashion-mnist", or "synthetic": ten deterministic noisy prototypes of 28 x 28 images
  // (for tests and machines without the package).
  std::string name = "fashion-mnist";
  std::string dir = data::kFashionMnistDir;
  int64_t train_limit = 0;  // the first N training images (0: all 60,000)
  int64_t test_limit = 0;   // the first N test images (0: all 10,000)
  uint64_t seed = 1;        // synthetic data only
};

struct TrainOptions {
  std::string model = "mlp";  // mlp | cnn
  DataOptions data;
  std::string algorithm = "magnitude";
  double sparsity = 0.8;
  std::string type = "unstructured";  // parse_sparsity_type
  std::string dist = "uniform";       // uniform | erk
  std::string layer_sparsity;         // "NAME=S,..." (Distribution::custom)
  std::string keep_dense;             // "SUBSTRING,..." (Distribution::keep_dense)
  std::string schedule = "auto";      // auto (default_config) or parse_schedule's forms
  int mask_gradients = -1;            // -1: the algorithm's default, else 0 or 1
  std::string grow;                   // SET/RigL regrowth: "" (default), random or gradient
  double drop_fraction = 0.3;         // SET/RigL
  std::string optimizer = "adam";     // sgd | adam | adamw
  double lr = 1e-3;
  double momentum = 0.9;  // sgd
  double weight_decay = 0.0;
  bool cosine_lr = true;  // lr * (1 + cos(pi * step / steps)) / 2
  int epochs = 5;
  int64_t batch = 256;
  uint64_t seed = 1;
  int threads = 0;            // libtorch intra-op threads; 0: its default
  bool keep_weights = false;  // fill TrainResult::weights (for export)
};

struct EpochStats {
  int epoch = 0;  // 1-based
  double train_loss = 0;
  double test_accuracy_pct = 0;
  double pruned_sparsity_pct = 0;  // of the pruned parameters' masks (what the forward sees)
  double elapsed_s = 0;            // since the start of training, evaluation included
};

// A weight matrix after training: rows x cols as sparsity_type.h views it, and its mask (the
// non-zeros for parameters the updater does not prune).
struct TrainedWeight {
  std::string name;
  std::vector<int64_t> shape;
  sparse::DenseMatrix weight;
  sparse::Mask mask;
};

struct TrainResult {
  std::string model, algorithm, type, dist, schedule, optimizer;
  double target_sparsity = 0;
  int epochs = 0;
  int64_t batch = 0;
  int64_t steps = 0;
  int64_t train_examples = 0, test_examples = 0;
  double test_accuracy_pct = 0;  // after finalize (the sparse model)
  double train_loss = 0;         // mean over the last epoch
  double step_ms = 0;            // mean wall time of a training step (all of it)
  double hook_ms_per_step = 0;   // of which in the updater's hooks
  double train_ms = 0;           // training wall time, evaluation excluded
  int64_t mask_updates = 0;
  double pruned_sparsity = 0;  // zeros / entries over the parameters the updater prunes
  double model_sparsity = 0;   // zeros / entries over all parameters
  std::vector<LayerSparsity> layers;
  std::vector<EpochStats> history;
  std::vector<TrainedWeight> weights;  // keep_weights: every parameter with >= 2 dimensions
};

// The updater configuration that `train` uses: default_config for the algorithm over
// `total_steps`, overridden by the options. Throws InputError on a bad option.
UpdaterConfig make_config(const TrainOptions& o, int64_t total_steps);

// Trains `o.model` on the data with the algorithm; evaluates on the test set after every
// epoch and after finalize. Deterministic for a seed and thread count.
// Throws InputError on bad options or missing data.
TrainResult train(const TrainOptions& o, const ProgressFn& progress = nullptr);

struct OverheadOptions {
  std::string model = "mlp";
  DataOptions data;
  std::vector<std::string> algorithms = {"magnitude", "set", "rigl", "magnitude_ste"};
  double sparsity = 0.8;
  int64_t batch = 256;
  int steps = 10;  // timed steps per round and per contender
  int rounds = 6;  // rounds alternate dense and sparse steps, so drifts hit both alike
  int64_t schedule_steps = 2350;  // the training length the schedules are made for
  std::string optimizer = "adam";
  uint64_t seed = 1;
  int threads = 0;
};

// The cost of masking per step of one algorithm against a dense step (same model, data and
// optimiser, no updater).
struct OverheadRow {
  std::string algorithm;
  double dense_step_ms = 0;  // median dense step
  double step_ms = 0;        // median step without a mask update
  double overhead_pct = 0;   // (step_ms - dense_step_ms) / dense_step_ms * 100
  double hook_ms = 0;        // median time in the updater's hooks per such step
  double hook_pct = 0;       // hook_ms / dense_step_ms * 100
  double update_ms = 0;      // median time of one mask update (before_step on update steps)
  int64_t update_every = 0;  // steps between updates in the default schedule (0: none; the
                             // straight-through hooks make their masks in every step)
  double amortized_pct = 0;  // update_ms / update_every / dense_step_ms * 100
  int samples = 0;           // timed steps without an update
};

// Sets libtorch's intra-op threads and, when libtorch's GEMMs run on OpenBLAS (Debian's
// libtorch), OpenBLAS's own thread pool, whose idle workers otherwise spin on the other cores
// (sched_yield) and skew timings on a busy machine. threads 0: no change. InputError at
// "<flag --threads>" below 0 or above the machine's hardware threads.
void set_compute_threads(int threads);

// Measures every algorithm of `o.algorithms`. Throws InputError on bad options or data.
std::vector<OverheadRow> measure_overhead(const OverheadOptions& o,
                                          const ProgressFn& progress = nullptr);

}  // namespace sparsemap::ml::prune
