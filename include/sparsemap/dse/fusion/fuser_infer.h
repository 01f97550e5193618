// The learned fusion mapper's inference without libtorch: the decision transformer's token
// features, its weights in a plain binary file (written by `fuse-train` beside the torch
// archive), cached autoregressive decoding on plain arrays, and `fuse --method learned`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/cost/fusion.h"
#include "sparsemap/dse/fusion/fusion_search.h"

namespace sparsemap::dse::fusion {

// Action of one layer: its micro-batch class k (micro-batch 2^k, clipped to the largest divisor
// of B not above it) and whether its group ends after it. Index = 2 k + cut.
inline constexpr int kMicroBatchClasses = 8;
inline constexpr int kActions = 2 * kMicroBatchClasses;
inline constexpr int kStateDims = 24;
inline constexpr int kConditionDims = 3;

// The features of node i (state token) and its condition token (the requested buffer, the
// fraction of layers left, the batch); all O(1) scaled. Documented in docs/dnnfuser.md.
std::vector<float> state_features(const cost::FusionCostModel& m, int node);
std::vector<float> condition_features(const cost::FusionCostModel& m, int node);
int action_of(const cost::FusionCostModel& m, const cost::FusionMapping& f, int node);
// Applies action `a` to node i of `f` (micro-batch and, for i < n - 1, the cut after it).
void apply_action(const cost::FusionCostModel& m, int node, int a, cost::FusionMapping& f);

struct FuserConfig {
  int d_model = 32;
  int layers = 2;
  int heads = 4;
  int max_nodes = 128;  // longest model (positions)
};
// Empty when the configuration is one a file may hold, else why not.
std::string fuser_config_problem(const FuserConfig& c);

// The network's parameters as plain float arrays. A Linear's weight [out, in] is stored
// transposed, [in][out] ("_wt"), so that y += W^T x runs over contiguous rows.
struct FuserBlockWeights {
  std::vector<float> ln1_w, ln1_b, qkv_wt, qkv_b, proj_wt, proj_b, ln2_w, ln2_b, fc1_wt, fc1_b,
      fc2_wt, fc2_b;
};
struct FuserWeights {
  FuserConfig config;
  std::vector<float> cond_wt, cond_b, state_wt, state_b, action, pos, kind, ln_w, ln_b, head_wt,
      head_b;
  std::vector<FuserBlockWeights> blocks;
  // Every array in file order with its expected element count for `config`.
  std::vector<std::pair<std::vector<float>*, size_t>> arrays();
};

// The file (little-endian): "SMFUSER\0", u32 version (1), i32 d_model, layers, heads,
// max_nodes, then every array of FuserWeights::arrays() as u64 count + count float32, and
// nothing after. The reader checks the magic, the version, the configuration, each count
// against the configuration before reading it, finiteness, and the exact file size; anything
// else throws InputError naming the file.
void write_fuser_weights(const FuserWeights& w, const std::string& path);
FuserWeights read_fuser_weights(const std::string& path);
bool is_fuser_weights_file(const std::string& path);  // starts with the magic
// Where fuse-train writes the plain weights of the torch archive `torch_path`: the same path
// with the extension .bin (model.pt -> model.bin; a path without extension gains .bin).
std::string fuser_weights_path(const std::string& torch_path);

// Greedy autoregressive decoding with a key/value cache: for each layer, the most likely action
// given c_<=i, s_<=i and a_<i (no repair). Throws InputError when the model has more layers
// than the weights have positions.
cost::FusionMapping infer_mapping(const FuserWeights& w, const cost::FusionCostModel& m);

// `fuse --method learned`: infer_mapping, then repair() to meet the buffer. samples counts the
// repair's evaluations (the first prices the inferred mapping); wall_s covers inference, repair
// and the final cost (not reading the weights).
FusionResult learned(const cost::FusionCostModel& m, Objective o, const FuserWeights& w,
                     bool* repaired = nullptr);

}  // namespace sparsemap::dse::fusion
