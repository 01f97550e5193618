// The pruning and sparse-training algorithms (JaxPruner's set) and the configuration of an
// updater: algorithm, sparsity type, distribution, schedule and their knobs. Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/ml/prune/distribution.h"
#include "sparsemap/ml/prune/schedule.h"
#include "sparsemap/ml/prune/sparsity_type.h"

namespace sparsemap::ml::prune {

enum class Algorithm {
  NoPrune,          // dense: no masks
  Magnitude,        // |w|, on the schedule's update steps (gradual with a polynomial schedule)
  Random,           // uniform random scores; pruned weights stay pruned
  Saliency,         // |w * g|; one-shot at step 0 is SNIP
  MagnitudeSte,     // straight-through: the forward uses top-|w| of the dense weights, which the
                    // optimiser keeps updating with the gradient of the sparse forward
  RandomSte,        // straight-through with random scores drawn once
  GlobalMagnitude,  // |w| / ||w||_2 per layer, one top-k over all pruned layers
  GlobalSaliency,   // |w g| / ||w g||_2 per layer, one top-k over all pruned layers
  StaticSparse,     // a random mask at step 0, never updated
  Set,              // drop the smallest |w|, regrow at random (Mocanu et al.)
  Rigl,             // drop the smallest |w|, regrow the largest |g| (Evci et al.)
  SrSte,            // straight-through plus the SR-STE decay of pruned weights (Zhou et al.)
};

// "no_prune", "magnitude", "random", "saliency", "magnitude_ste", "random_ste",
// "global_magnitude", "global_saliency", "static_sparse", "set", "rigl", "sr_ste".
const char* algorithm_name(Algorithm a);
// Accepts the names above with '-' for '_', and "dense" / "none" for no_prune.
// Throws InputError (file "<flag --algo>") listing the names.
Algorithm parse_algorithm(const std::string& text);
std::vector<Algorithm> all_algorithms();

// Traits of an algorithm.
bool is_ste(Algorithm a);           // magnitude_ste, random_ste, sr_ste
bool is_global(Algorithm a);        // global_magnitude, global_saliency
bool is_dynamic(Algorithm a);       // set, rigl
bool needs_gradients(Algorithm a);  // saliency, global_saliency, rigl (at update steps)

enum class GrowKind { Random, Gradient };

struct UpdaterConfig {
  Algorithm algorithm = Algorithm::Magnitude;
  double sparsity = 0.8;  // model-level target, shared out by `distribution`
  SparsityType type;
  Distribution distribution;
  Schedule schedule;
  // Zero the gradients of masked weights before the optimiser step (JaxPruner's
  // is_sparse_gradients). Never applied to straight-through algorithms.
  bool mask_gradients = false;
  // SET/RigL: skip the optimiser step on mask-update steps (JaxPruner's skip_gradients).
  bool skip_step_on_update = false;
  // SET/RigL: fraction of each layer's kept weights dropped (and regrown) at an update;
  // with cosine_drop it decays as f(t) = drop_fraction/2 * (1 + cos(pi * t / end_step)).
  double drop_fraction = 0.3;
  bool cosine_drop = true;
  GrowKind grow = GrowKind::Random;
  // SR-STE: grad += srste_decay * (1 - mask) * w before the optimiser step.
  double srste_decay = 2e-4;
  uint64_t seed = 0;

  // Checks the combination (throws InputError, file "<updater>"): sparsity in [0, 1],
  // global and SET/RigL need unstructured sparsity, drop fraction in [0, 1], a valid schedule.
  void validate() const;
  // SET/RigL drop fraction at `step`.
  double drop_fraction_at(int64_t step) const;
};

// Final (or current) sparsity of one parameter.
struct LayerSparsity {
  std::string name;
  std::vector<int64_t> shape;
  int64_t numel = 0;
  int64_t zeros = 0;          // entries of the parameter equal to 0
  double target = -1;         // the updater's target; -1 when the parameter stays dense
  double mask_sparsity = -1;  // fraction the mask drops; -1 without a mask
  double sparsity() const { return numel ? static_cast<double>(zeros) / numel : 0.0; }
};

// JaxPruner-style defaults for `a` at `sparsity` over `total_steps` optimiser steps:
//   magnitude, random, saliency, global_*, *_ste, sr_ste: polynomial (cubic) schedule from
//     10% to 75% of training, every 0.65 T / 20 steps (about 21 updates; start and end on multiples
//     of the frequency, so the last update reaches the target);
//   static_sparse: no update, masked gradients;
//   set, rigl: periodic every clamp(T/20, 2, 100) steps until 75% of training, drop fraction 0.3 on
//     a cosine decay, masked gradients, the optimiser step skipped on update steps;
//     RigL grows by |g|, SET at random;
//   no_prune: no update.
UpdaterConfig default_config(Algorithm a, double sparsity, int64_t total_steps);

}  // namespace sparsemap::ml::prune
