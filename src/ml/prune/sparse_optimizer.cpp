// SparseOptimizer: the updater's hooks around a torch::optim optimiser, and the reset of the
// optimiser moments of regrown weights.
#include <chrono>

#include "sparsemap/error.h"
#include "sparsemap/ml/prune/updater.h"

namespace sparsemap::ml::prune {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

SparseOptimizer::SparseOptimizer(std::unique_ptr<torch::optim::Optimizer> inner,
                                 std::shared_ptr<Updater> updater)
    : inner_(std::move(inner)), updater_(std::move(updater)) {
  if (!inner_ || !updater_) throw InputError({"<optimizer>", 0, 0}, "no optimiser or updater");
  const torch::optim::Optimizer* o = inner_.get();
  if (!dynamic_cast<const torch::optim::SGD*>(o) && !dynamic_cast<const torch::optim::Adam*>(o) &&
      !dynamic_cast<const torch::optim::AdamW*>(o))
    throw InputError({"<optimizer>", 0, 0},
                     "the sparse optimiser wraps SGD, Adam or AdamW (whose moments it resets)");
}

void SparseOptimizer::pre_forward() {
  const auto t0 = std::chrono::steady_clock::now();
  updater_->pre_forward(count_);
  hook_ms_ += ms_since(t0);
}

void SparseOptimizer::reset_moments(const torch::Tensor& param, const torch::Tensor& where) {
  auto& state = inner_->state();
  auto it = state.find(c10::guts::to_string(param.unsafeGetTensorImpl()));
  if (it == state.end() || !it->second) return;
  torch::NoGradGuard no_grad;
  const torch::Tensor keep = 1 - where.to(param.scalar_type());
  auto zero = [&](const torch::Tensor& t) {
    if (t.defined()) t.mul_(keep);
  };
  torch::optim::OptimizerParamState* s = it->second.get();
  if (auto* adam = dynamic_cast<torch::optim::AdamParamState*>(s)) {
    zero(adam->exp_avg());
    zero(adam->exp_avg_sq());
    zero(adam->max_exp_avg_sq());
  } else if (auto* adamw = dynamic_cast<torch::optim::AdamWParamState*>(s)) {
    zero(adamw->exp_avg());
    zero(adamw->exp_avg_sq());
    zero(adamw->max_exp_avg_sq());
  } else if (auto* sgd = dynamic_cast<torch::optim::SGDParamState*>(s)) {
    zero(sgd->momentum_buffer());
  }
}

void SparseOptimizer::step() {
  auto t0 = std::chrono::steady_clock::now();
  last_ = updater_->before_step(count_);
  const auto& layers = updater_->layers();
  for (size_t i = 0; i < layers.size() && i < last_.activated.size(); ++i)
    if (last_.activated[i].defined()) reset_moments(layers[i].param, last_.activated[i]);
  double before = ms_since(t0);
  if (last_.mask_update) update_ms_ += before;
  if (!last_.skip_inner) inner_->step();
  t0 = std::chrono::steady_clock::now();
  updater_->after_step(count_);
  hook_ms_ += before + ms_since(t0);
  ++count_;
}

}  // namespace sparsemap::ml::prune
