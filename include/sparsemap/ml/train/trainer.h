// N:M sparse training of the study's transformers with a recipe (recipe.h): the ViT on
// Fashion-MNIST and the char-GPT on the King James text, with periodic evaluation,
// checkpoints, resume and a refusal when the loss stops being finite. Torch-free header (the
// CLI includes it); the implementation links libtorch.
//
// Masks: ml/prune's Updater (one per group of weights: attention and MLP when their ratios
// differ) with the N:M sparsity type, magnitude STE or SR-STE, recomputed every step; its
// recipe controls do the mask decay (set_pruned_scale), the structure decay
// (set_sparsity_type) and the fine-tune (freeze).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sparsemap/ml/data/fashion_mnist.h"
#include "sparsemap/ml/train/recipe.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::ml::train {

struct TrainOptions {
  std::string model = "vit-tiny";      // vit-tiny | char-gpt
  std::string data = "fashion-mnist";  // fashion-mnist | kjv | synthetic (tests: random data)
  std::string data_dir = data::kFashionMnistDir;
  Recipe recipe;
  std::string nm_attention;  // "N:M" for the attention Linears ("" : recipe.nm)
  std::string nm_mlp;        // "N:M" for the MLP Linears ("" : recipe.nm)
  bool quick = false;        // the small model configuration
  int epochs = 10;
  int64_t steps = 0;           // > 0: this many optimiser steps instead of `epochs`
  int64_t batch = 0;           // 0: 128 (ViT), 64 windows (GPT)
  double lr = 0;               // 0: 1e-3 (ViT), 2e-3 (GPT); warm-up then cosine to 0
  double weight_decay = 0.05;  // AdamW
  int64_t train_limit = 0;     // ViT: first N training images (0: all); GPT: first N characters
  int64_t test_limit = 0;      // ViT: first N test images; GPT: validation characters (0: all)
  int64_t eval_every = 0;      // steps between evaluations (0: about 10 per run)
  uint64_t seed = 1;
  int threads = 0;         // libtorch intra-op threads (0: its default)
  std::string checkpoint;  // written (atomically) at every evaluation while finite
  std::string resume;      // continue from this checkpoint (same options)
  // Tests: a scale of the model (tiny sizes) and a stop after this many steps (0: none).
  bool tiny = false;
  int64_t stop_after = 0;
};

struct EvalPoint {
  int64_t step = 0;
  double train_loss = 0;  // mean since the last evaluation
  double metric = 0;      // test accuracy % (ViT) or validation nats/char (GPT)
  double elapsed_s = 0;
};

struct LayerNm {
  std::string name;
  std::string ratio;   // N:M of its mask at the end
  bool exact = false;  // every group of M holds exactly N kept weights, and the rest are 0
  double sparsity_pct = 0;
};

struct TrainResult {
  std::string model, data, recipe, nm;
  std::string metric_name;  // "test_accuracy_pct" | "valid_nats_per_char"
  double metric = 0;        // at the end (after the fine-tune, with the final masks)
  double train_loss = 0;    // mean over the last evaluation interval
  int64_t steps = 0, batch = 0, params = 0;
  double train_s = 0;  // training wall time (evaluations excluded)
  double total_s = 0;
  double training_flops = 0;  // recipe.h's count over the whole run
  double dense_flops = 0;     // the same run, dense
  std::vector<EvalPoint> history;
  std::vector<LayerNm> layers;  // the N:M weights (empty for the dense recipe)
  bool resumed = false;
  int64_t resumed_from = 0;
  // Tests: the final parameters, flattened in registration order.
  std::vector<float> final_params;
};

// Trains. Throws InputError on bad options, missing data, a checkpoint that does not match, or
// a loss that stops being finite (the message names the step; the last checkpoint written, if
// any, is left as it was).
//
// Progress goes to `observer`: every max(1, total / 200) steps a report (done: steps so far,
// total: the run's steps, best: that step's training loss, label: its phase, recipe.h's
// phase_name), and at each evaluation but the last a note (one line, no newline: the step, the
// training loss since the last evaluation, the metric and the elapsed seconds). Between steps
// the observer may stop the run: Cancelled, and the last checkpoint written, if any, is left as
// it was.
TrainResult train(const TrainOptions& o, search::Observer& observer);
// The same without progress.
TrainResult train(const TrainOptions& o);

}  // namespace sparsemap::ml::train
