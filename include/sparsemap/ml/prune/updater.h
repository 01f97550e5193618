// The updater API on libtorch (JaxPruner's BaseUpdater and wrap_optax): an Updater holds a
// sparsity type, a distribution, a schedule and a scorer (the algorithm); it initialises the
// masks, updates them on scheduled steps, re-applies them after the optimiser step, and for
// straight-through variants recomputes them before each forward. SparseOptimizer wraps a
// torch::optim optimiser (SGD, Adam, AdamW): it masks gradients where asked and zeroes the
// optimiser moments of regrown weights.
//
// One training step:
//   opt.pre_forward();            // STE: parameters <- dense * mask(step)
//   loss = model(x) ...; opt.zero_grad(); loss.backward();
//   opt.step();                   // updater.before_step -> inner step -> updater.after_step
//
// Masks come from sparsity_type.h (sparse/prune's rules on CPU views of the scores).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/ml/prune/algorithm.h"
#include "sparsemap/ml/prune/ste_mask.h"
#include "sparsemap/sparse/format/dense.h"

namespace sparsemap::ml::prune {

struct NamedParam {
  std::string name;
  torch::Tensor tensor;  // the module's parameter (shares its storage)
};

// The parameters of a module in registration order ("fc1.weight", "fc1.bias", ...).
std::vector<NamedParam> named_params(const torch::nn::Module& module);

// A CPU fp32 contiguous tensor seen as a matrix (rows = size(0), cols = the rest). The tensor
// must outlive the view.
sparse::ConstMatrixView matrix_view(const torch::Tensor& t);
// A keep-mask as a {0, 1} tensor of `dtype` with the given shape.
torch::Tensor mask_to_tensor(const sparse::Mask& m, at::IntArrayRef shape,
                             torch::Dtype dtype = torch::kFloat);
// A {0, 1} (or bool) tensor as a keep-mask over its matrix view.
sparse::Mask tensor_to_mask(const torch::Tensor& t);

// The state of one parameter.
struct LayerState {
  std::string name;
  torch::Tensor param;
  std::vector<int64_t> shape;
  std::optional<double> target;  // nullopt: the parameter stays dense
  torch::Tensor mask;    // {0,1}, the parameter's dtype and shape; undefined: no mask. Unstructured
                         // straight-through layers get theirs at finalize (during training only
                         // when mask decay needs it: see pre_forward)
  torch::Tensor dense;   // STE: the dense weights (the parameter's own storage) while a masked
                         // forward runs
  torch::Tensor masked;  // STE: the buffer the parameter points at during a masked forward
  std::vector<float> fixed_scores;  // random_ste: scores drawn once
  SteBand band;                     // STE, unstructured: the threshold tracked between steps
};

// What the last before_step did.
struct StepInfo {
  bool mask_update = false;  // masks were recomputed at this step
  bool skip_inner = false;   // the optimiser step is to be skipped
  // Per layer (same order as layers()): {0,1} tensors of the weights that the update
  // activated (0 before, 1 after); undefined where none were.
  std::vector<torch::Tensor> activated;
  int64_t dropped = 0;  // weights deactivated by the update, all layers
  int64_t regrown = 0;  // weights activated by the update, all layers
};

class Updater {
 public:
  // Computes per-parameter targets with the distribution and the initial masks (random for
  // static_sparse, SET and RigL, which are applied to the parameters at once; none for the
  // gradual pruners until their first update). Parameters must be CPU fp32.
  // Throws InputError for an invalid configuration.
  Updater(UpdaterConfig config, std::vector<NamedParam> params);

  const UpdaterConfig& config() const { return config_; }
  const std::vector<LayerState>& layers() const { return layers_; }

  // STE variants: stores the dense weights and writes dense * mask into the parameters, the
  // mask being the type's mask of the scores at schedule.sparsity_at(target, step). No-op for
  // the others, and when the parameters are already masked for a forward.
  void pre_forward(int64_t step);
  // STE variants: writes the stored dense weights back after a masked forward that no
  // optimiser step follows (evaluation). No-op otherwise.
  void restore_dense();
  // After backward, before the optimiser step: restores the dense weights (STE), adds the
  // SR-STE decay, updates masks on scheduled steps (recording activated weights), and masks
  // gradients where configured.
  StepInfo before_step(int64_t step);
  // After the optimiser step: re-applies the masks (not for STE, whose parameters stay dense).
  void after_step(int64_t step);
  // End of training: STE variants write dense * mask at their target sparsity into the
  // parameters and keep that mask; the others are already masked. Idempotent.
  void finalize(int64_t step);

  // The per-parameter sparsity now.
  std::vector<LayerSparsity> sparsity() const;

  // Recipe controls (ml/train's N:M recipes).
  // Replaces the N:M ratio (structure decay): the pruned parameters' targets become the new
  // 1 - N/M (M:M keeps everything). Both the old and the new type must be N:M.
  void set_sparsity_type(const SparsityType& type);
  // STE variants (mask decay): the masked forward uses w * (mask + (1 - mask) * beta) instead of
  // w * mask; with scale_gradients, before_step multiplies the gradient by the same factor (the
  // gradient of that product: pruned weights get beta times theirs). beta in [0, 1]; 0 and false
  // are plain STE.
  void set_pruned_scale(double beta, bool scale_gradients);
  double pruned_scale() const { return pruned_scale_; }
  // Fixes the masks (fine-tuning with a binary mask): STE variants finalize (the masks at their
  // target from the current weights); from then on pre_forward does nothing, before_step only
  // masks the gradients and after_step re-applies the masks. freeze_with takes the masks
  // (one per parameter, undefined where none; e.g. from a checkpoint).
  void freeze(int64_t step);
  void freeze_with(const std::vector<torch::Tensor>& masks);
  bool frozen() const { return frozen_; }

 private:
  void init_masks();
  // New masks for an update at `step`, from the current parameters and gradients.
  std::vector<torch::Tensor> compute_masks(int64_t step);
  std::vector<torch::Tensor> dynamic_masks(int64_t step);
  torch::Tensor layer_mask(const LayerState& l, const torch::Tensor& scores, double sparsity);
  std::vector<float> random_scores(size_t layer, int64_t step, int64_t n) const;

  UpdaterConfig config_;
  std::vector<LayerState> layers_;
  bool masked_forward_ = false;
  bool frozen_ = false;
  double pruned_scale_ = 0.0;
  bool scale_pruned_gradients_ = false;
};

// The optimiser wrapper. Owns the inner optimiser and shares the updater.
class SparseOptimizer {
 public:
  // Throws InputError when `inner` is not SGD, Adam or AdamW (the optimisers whose moments
  // it knows how to reset).
  SparseOptimizer(std::unique_ptr<torch::optim::Optimizer> inner, std::shared_ptr<Updater> updater);

  void pre_forward();
  void zero_grad() { inner_->zero_grad(); }
  // updater.before_step; zeroes the moments of activated weights; the inner step (unless
  // skipped); updater.after_step; count += 1.
  void step();
  void finalize() { updater_->finalize(count_); }

  int64_t count() const { return count_; }
  torch::optim::Optimizer& inner() { return *inner_; }
  Updater& updater() { return *updater_; }
  const StepInfo& last() const { return last_; }
  // Wall time spent in the updater's hooks, summed over all steps (milliseconds).
  double hook_ms() const { return hook_ms_; }
  double update_ms() const { return update_ms_; }  // of which on mask-update steps' updates

  // Zeroes the optimiser state of `param` where `where` is 1 (momentum buffer for SGD; exp_avg,
  // exp_avg_sq and max_exp_avg_sq for Adam and AdamW). No-op before the first step.
  void reset_moments(const torch::Tensor& param, const torch::Tensor& where);

 private:
  std::unique_ptr<torch::optim::Optimizer> inner_;
  std::shared_ptr<Updater> updater_;
  int64_t count_ = 0;
  StepInfo last_;
  double hook_ms_ = 0;
  double update_ms_ = 0;
};

}  // namespace sparsemap::ml::prune
