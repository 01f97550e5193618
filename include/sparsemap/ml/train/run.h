// `sparsemap train` as a library call: Options (the command's flags, with its defaults), run()
// (one N:M recipe on vit-tiny or char-gpt, trainer.h), Result, and to_json(), the one place the
// command's JSON is built. The CLI (apps/cmd_train.cpp) prints the summary. Torch-free header
// (the CLI includes it); the implementation links libtorch.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sparsemap/ml/data/fashion_mnist.h"
#include "sparsemap/ml/train/trainer.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::ml::train {

// One field per flag of `sparsemap train` (but --json and --quiet, which only the CLI has),
// same names and defaults.
struct Options {
  std::string model = "vit-tiny";  // vit-tiny | char-gpt
  std::string data;                // fashion-mnist | kjv | synthetic; "": kjv for char-gpt, else
                                   // fashion-mnist
  std::string data_dir = data::kFashionMnistDir;
  std::string recipe = "srste";  // recipe.h's parse_recipe
  std::string nm = "2:4";        // target N:M of every Linear in the blocks
  std::string nm_attention;      // N:M of the attention Linears ("": nm)
  std::string nm_mlp;            // N:M of the MLP Linears ("": nm)
  std::string sequence;          // structure decay: N:M,N:M,... (ending at nm)
  double dense_fraction = 0.0;   // dense phase, fraction of the run
  double fine_fraction = 0.2;    // fine-tune phase with a fixed binary mask, fraction of the run
  double lambda = 2e-4;          // SR-STE lambda_W
  double alpha = 0.0;  // mask decay rate per step (0: beta reaches 0, or exp(-5), at 3/4 of the
                       // sparse phase)
  bool quick = false;  // the small model configuration
  int epochs = 10;
  int64_t steps = 0;           // > 0: optimiser steps instead of epochs
  int64_t batch = 0;           // 0: 128 images or 64 windows
  double lr = 0;               // peak AdamW learning rate (0: 1e-3 ViT, 2e-3 GPT)
  double weight_decay = 0.05;  // AdamW
  int64_t train_limit = 0;     // first N training images / characters (0: all)
  int64_t test_limit = 0;      // first N test images / held-out characters (0: all)
  int64_t eval_every = 0;      // steps between evaluations (0: 10 per run)
  uint64_t seed = 1;
  int threads = 0;         // libtorch threads (0: all cores)
  std::string checkpoint;  // written at every evaluation
  std::string resume;      // continue from this checkpoint
};

// `sparsemap train`'s flags and sparsemap.train's keywords (sparsemap/option_table.h):
// the Options' fields with their help, beside --json and --quiet of the CLI. Defined in
// options.cpp, torch-free and compiled into the core library: `sparsemap` built without
// libtorch registers these flags and hands the command over.
const options::Table<Options>& option_table();

struct Result {
  Options options;
  TrainResult train;
  bool nm_exact = true;  // every N:M layer's mask is exactly N:M (true for the dense recipe)
};

// Checks the options, trains (trainer.h's train, whose progress and notes go to `observer`;
// Cancelled when it asks to stop) and returns the outcome. Throws InputError for bad options,
// missing data or a checkpoint that does not match.
Result run(const Options& o, search::Observer& observer);

// The JSON `sparsemap train --json` writes.
nlohmann::json to_json(const Result& r);

}  // namespace sparsemap::ml::train
