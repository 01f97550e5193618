// The Updater: scores, masks on scheduled steps, straight-through forwards, SET/RigL drop and
// regrow, and the conversions between tensors and sparse/ views.
#include "sparsemap/ml/prune/updater.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "sparsemap/error.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::ml::prune {

using sparse::ConstMatrixView;
using sparse::Mask;

namespace {

[[noreturn]] void fail(const std::string& message) {
  throw InputError({"<updater>", 0, 0}, message);
}

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Contiguous fp32 CPU scores of a tensor, detached.
torch::Tensor as_scores(const torch::Tensor& t) {
  return t.detach().to(torch::kFloat).contiguous();
}

// Scores from a float vector in a tensor's shape (no copy: the vector must outlive it).
torch::Tensor wrap_scores(std::vector<float>& v, at::IntArrayRef shape) {
  return torch::from_blob(v.data(), shape, torch::kFloat);
}

}  // namespace

std::vector<NamedParam> named_params(const torch::nn::Module& module) {
  std::vector<NamedParam> out;
  for (const auto& item : module.named_parameters(/*recurse=*/true))
    out.push_back({item.key(), item.value()});
  return out;
}

ConstMatrixView matrix_view(const torch::Tensor& t) {
  SPARSEMAP_ASSERT(t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.is_contiguous());
  const int64_t rows = t.dim() >= 2 ? t.size(0) : 1;
  const int64_t cols = rows > 0 ? t.numel() / rows : 0;
  return {t.data_ptr<float>(), rows, cols, cols};
}

torch::Tensor mask_to_tensor(const Mask& m, at::IntArrayRef shape, torch::Dtype dtype) {
  auto u8 = torch::from_blob(const_cast<uint8_t*>(m.keep.data()),
                             {static_cast<int64_t>(m.keep.size())}, torch::kUInt8);
  return u8.to(dtype).reshape(shape);
}

Mask tensor_to_mask(const torch::Tensor& t) {
  const auto u8 = t.detach().ne(0).to(torch::kUInt8).contiguous();
  Mask m;
  m.rows = t.dim() >= 2 ? t.size(0) : 1;
  m.cols = m.rows > 0 ? t.numel() / m.rows : 0;
  m.keep.assign(u8.data_ptr<uint8_t>(), u8.data_ptr<uint8_t>() + u8.numel());
  return m;
}

// ----------------------------------------------------------------------------------------------

Updater::Updater(UpdaterConfig config, std::vector<NamedParam> params)
    : config_(std::move(config)) {
  config_.validate();
  std::vector<ParamShape> shapes;
  for (const NamedParam& p : params) {
    if (!p.tensor.defined()) fail("parameter '" + p.name + "' is undefined");
    shapes.push_back({p.name, p.tensor.sizes().vec()});
  }
  std::vector<std::optional<double>> targets(params.size());
  if (config_.algorithm != Algorithm::NoPrune)
    targets = layer_sparsities(shapes, config_.sparsity, config_.distribution);
  const double own = config_.type.intrinsic_sparsity();
  for (size_t i = 0; i < params.size(); ++i) {
    LayerState l;
    l.name = params[i].name;
    l.param = params[i].tensor;
    l.shape = shapes[i].shape;
    l.target = targets[i];
    if (l.target && own >= 0) l.target = own;  // N:M fixes its own sparsity
    if (l.target && (!l.param.device().is_cpu() || l.param.scalar_type() != torch::kFloat))
      fail("parameter '" + l.name + "' must be a CPU fp32 tensor to be pruned");
    layers_.push_back(std::move(l));
  }
  init_masks();
}

std::vector<float> Updater::random_scores(size_t layer, int64_t step, int64_t n) const {
  uint64_t state = config_.seed * 0x2545F4914F6CDD1Dull + (layer + 1) * 0x9E3779B97F4A7C15ull +
                   static_cast<uint64_t>(step + 1) * 0xD1B54A32D192ED03ull;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v)  // uniform in (0, 1]: 24 random bits
    x = static_cast<float>((splitmix64(state) >> 40) + 1) * (1.0f / 16777216.0f);
  return v;
}

torch::Tensor Updater::layer_mask(const LayerState& l, const torch::Tensor& scores,
                                  double sparsity) {
  const torch::Tensor s = as_scores(scores);
  const Mask m =
      compute_mask(matrix_view(s), config_.type, std::clamp(sparsity, 0.0, 1.0), l.shape);
  return mask_to_tensor(m, l.param.sizes(), l.param.scalar_type());
}

void Updater::init_masks() {
  torch::NoGradGuard no_grad;
  const Algorithm a = config_.algorithm;
  for (size_t i = 0; i < layers_.size(); ++i) {
    LayerState& l = layers_[i];
    if (!l.target) continue;
    if (a == Algorithm::StaticSparse || is_dynamic(a)) {
      std::vector<float> r = random_scores(i, -1, l.param.numel());
      l.mask = layer_mask(l, wrap_scores(r, l.param.sizes()), *l.target);
      l.param.mul_(l.mask);
    } else if (a == Algorithm::RandomSte) {
      l.fixed_scores = random_scores(i, -1, l.param.numel());
    }
  }
}

// The straight-through hooks run at every step, so they avoid temporaries and copies: the mask
// comes from the parameter itself (every mask rule ranks |score|, so w and |w| give the same
// mask); one pass writes the {0,1} mask and the masked weights (w * (mask + (1 - mask) * beta),
// beta = pruned_scale_, 0 unless a recipe sets it) into a second buffer, and the parameter is
// pointed at that buffer for the forward and backward (set_data) and back at its dense storage
// afterwards, so the dense weights are never copied.
void Updater::pre_forward(int64_t step) {
  if (!is_ste(config_.algorithm) || masked_forward_ || frozen_) return;
  torch::NoGradGuard no_grad;
  const float beta = static_cast<float>(pruned_scale_);
  for (size_t i = 0; i < layers_.size(); ++i) {
    LayerState& l = layers_[i];
    if (!l.target) continue;
    const double s = std::clamp(config_.schedule.sparsity_at(*l.target, step), 0.0, 1.0);
    l.dense = l.param.detach();
    SPARSEMAP_ASSERT(l.dense.is_contiguous());
    const ConstMatrixView w = matrix_view(l.dense);
    const ConstMatrixView scores =
        config_.algorithm == Algorithm::RandomSte
            ? ConstMatrixView{l.fixed_scores.data(), w.rows, w.cols, w.cols}
            : w;
    // Both rewritten in place unless someone else holds them.
    if (!l.masked.defined() || l.masked.use_count() > 1 || l.masked.sizes() != l.dense.sizes())
      l.masked = torch::empty_like(l.dense);
    // Unstructured masks are written only when mask decay or SR-STE with beta > 0 needs them;
    // before_step then takes SR-STE's decay from the masked weights.
    const bool unstructured = config_.type.kind == SparsityKind::Unstructured;
    if (unstructured && !scale_pruned_gradients_ && pruned_scale_ == 0.0) {
      l.mask = torch::Tensor();
    } else if (!l.mask.defined() || l.mask.use_count() > 1 || l.mask.sizes() != l.dense.sizes()) {
      l.mask = torch::empty_like(l.dense);
    }
    float* out = l.masked.data_ptr<float>();
    float* mk = l.mask.defined() ? l.mask.data_ptr<float>() : nullptr;
    const int64_t n = l.dense.numel();
    if (unstructured) {
      ste_mask_unstructured(w.data, scores.data, out, mk, n, sparse::kept_units(n, s), beta,
                            l.band);
    } else {
      const Mask m = compute_mask(scores, config_.type, s, l.shape);
      for (int64_t j = 0; j < n; ++j) {
        const float k = m.keep[static_cast<size_t>(j)] ? 1.0f : 0.0f;
        mk[j] = k;
        out[j] = w.data[j] * (k + (1.0f - k) * beta);
      }
    }
    l.param.set_data(l.masked);
  }
  masked_forward_ = true;
}

void Updater::restore_dense() {
  if (!masked_forward_) return;
  torch::NoGradGuard no_grad;
  for (LayerState& l : layers_)
    if (l.target && l.dense.defined()) l.param.set_data(l.dense);
  masked_forward_ = false;
}

std::vector<torch::Tensor> Updater::compute_masks(int64_t step) {
  const Algorithm a = config_.algorithm;
  std::vector<torch::Tensor> scores(layers_.size());
  for (size_t i = 0; i < layers_.size(); ++i) {
    LayerState& l = layers_[i];
    if (!l.target) continue;
    const torch::Tensor w = l.param.detach();
    if (a == Algorithm::Magnitude || a == Algorithm::GlobalMagnitude) {
      scores[i] = w.abs();
    } else if (a == Algorithm::Saliency || a == Algorithm::GlobalSaliency) {
      if (!l.param.grad().defined())
        fail(std::string(algorithm_name(a)) + " needs the gradients of '" + l.name +
             "' at its update steps: call backward() before step()");
      scores[i] = (w * l.param.grad()).abs();
    } else if (a == Algorithm::Random) {
      std::vector<float> r = random_scores(i, step, l.param.numel());
      scores[i] = wrap_scores(r, l.param.sizes()).clone();
      if (l.mask.defined()) scores[i].mul_(l.mask);  // pruned weights stay pruned
    }
  }
  std::vector<torch::Tensor> masks(layers_.size());
  if (!is_global(a)) {
    for (size_t i = 0; i < layers_.size(); ++i)
      if (scores[i].defined())
        masks[i] = layer_mask(layers_[i], scores[i],
                              config_.schedule.sparsity_at(*layers_[i].target, step));
    return masks;
  }
  // Global: scores normalised per layer, one top-k over the layers the rule prunes; layers in
  // the custom map keep their own sparsity.
  std::vector<size_t> pooled;
  std::vector<torch::Tensor> flat;
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (!scores[i].defined()) continue;
    if (config_.distribution.custom.count(layers_[i].name)) {
      masks[i] =
          layer_mask(layers_[i], scores[i], config_.schedule.sparsity_at(*layers_[i].target, step));
      continue;
    }
    pooled.push_back(i);
    flat.push_back(as_scores(scores[i]).reshape({-1}) / (scores[i].norm().item<double>() + 1e-8));
  }
  if (pooled.empty()) return masks;
  const torch::Tensor all = torch::cat(flat).contiguous();
  const ConstMatrixView v{all.data_ptr<float>(), 1, all.numel(), all.numel()};
  const double s = config_.schedule.sparsity_at(config_.sparsity, step);
  const Mask m = sparse::magnitude_mask(v, std::clamp(s, 0.0, 1.0));
  const torch::Tensor keep = mask_to_tensor(m, {all.numel()}, torch::kFloat);
  int64_t offset = 0;
  for (size_t i : pooled) {
    const int64_t n = layers_[i].param.numel();
    masks[i] = keep.slice(0, offset, offset + n).reshape(layers_[i].param.sizes()).clone();
    offset += n;
  }
  return masks;
}

// SET/RigL: in each layer drop the floor(f * active) active weights of smallest |w|, then
// activate as many of the others (the just-dropped included) with the largest grow scores
// (random, or |g| for RigL). The number of active weights is unchanged.
std::vector<torch::Tensor> Updater::dynamic_masks(int64_t step) {
  const double f = config_.drop_fraction_at(step);
  std::vector<torch::Tensor> masks(layers_.size());
  for (size_t i = 0; i < layers_.size(); ++i) {
    LayerState& l = layers_[i];
    if (!l.target || !l.mask.defined()) continue;
    const torch::Tensor old = l.mask.to(torch::kFloat);
    const int64_t active = old.sum().item<int64_t>();
    const int64_t drop = static_cast<int64_t>(std::floor(f * static_cast<double>(active)));
    // Active weights score at least FLT_MIN, so every kept weight is an active one.
    const torch::Tensor drop_scores = as_scores(l.param.detach().abs().clamp_min(FLT_MIN) * old);
    const Mask kept = top_k_mask(matrix_view(drop_scores), active - drop);
    const torch::Tensor kept_t = mask_to_tensor(kept, l.param.sizes(), torch::kFloat);
    torch::Tensor grow;
    if (config_.grow == GrowKind::Gradient) {
      if (!l.param.grad().defined())
        fail("rigl needs the gradients of '" + l.name + "' at its update steps");
      grow = l.param.grad().detach().abs().to(torch::kFloat).clamp_min(FLT_MIN);
    } else {
      std::vector<float> r = random_scores(i, step, l.param.numel());
      grow = wrap_scores(r, l.param.sizes()).clone();
    }
    grow = as_scores(grow * (1 - kept_t));  // candidates: everything not kept
    const Mask grown = top_k_mask(matrix_view(grow), drop);
    masks[i] = (kept_t + mask_to_tensor(grown, l.param.sizes(), torch::kFloat))
                   .clamp_max(1)
                   .to(l.param.scalar_type());
  }
  return masks;
}

StepInfo Updater::before_step(int64_t step) {
  torch::NoGradGuard no_grad;
  StepInfo info;
  info.activated.resize(layers_.size());
  const Algorithm a = config_.algorithm;
  if (frozen_) {  // fine-tuning with fixed binary masks
    for (LayerState& l : layers_)
      if (l.mask.defined() && l.param.grad().defined()) l.param.mutable_grad().mul_(l.mask);
    return info;
  }
  if (is_ste(a)) {
    // One pass over each gradient: scale the pruned weights' (mask decay: the gradient of
    // w * (mask + (1 - mask) * beta)) and add SR-STE's lambda_W * (1 - mask) * w; then point
    // the parameters back at their dense weights.
    const float lambda = a == Algorithm::SrSte ? static_cast<float>(config_.srste_decay) : 0.0f;
    const float gscale =
        masked_forward_ && scale_pruned_gradients_ ? static_cast<float>(pruned_scale_) : 1.0f;
    for (LayerState& l : layers_) {
      torch::Tensor g = l.param.mutable_grad();
      if (!l.target || !g.defined() || (lambda == 0 && gscale == 1.0f)) continue;
      const bool masked = masked_forward_ && l.dense.defined();
      const torch::Tensor w = masked ? l.dense : l.param.detach();
      const bool fast = g.is_contiguous() && g.scalar_type() == torch::kFloat;
      if (masked && !l.mask.defined()) {  // beta = 0, no scaling: (1 - mask) w = w - masked w
        if (fast)
          ste_decay(g.data_ptr<float>(), w.data_ptr<float>(), l.masked.data_ptr<float>(), lambda,
                    g.numel());
        else
          g.add_(w - l.masked, lambda);
      } else if (!l.mask.defined()) {
        continue;  // no mask yet
      } else if (fast) {
        ste_gradient(g.data_ptr<float>(), w.data_ptr<float>(), l.mask.data_ptr<float>(), lambda,
                     gscale, g.numel());
      } else {
        g.mul_(l.mask + (1 - l.mask) * gscale).add_(w * (1 - l.mask), lambda);
      }
    }
    restore_dense();
    return info;
  }
  if (a != Algorithm::NoPrune && config_.schedule.is_update_step(step)) {
    std::vector<torch::Tensor> masks = is_dynamic(a) ? dynamic_masks(step) : compute_masks(step);
    for (size_t i = 0; i < layers_.size(); ++i) {
      if (!masks[i].defined()) continue;
      LayerState& l = layers_[i];
      if (l.mask.defined()) {
        const torch::Tensor act = masks[i] * (1 - l.mask);
        const int64_t n_act = act.sum().item<int64_t>();
        info.regrown += n_act;
        info.dropped += (l.mask * (1 - masks[i])).sum().item<int64_t>();
        if (n_act > 0) info.activated[i] = act;
      } else {
        info.dropped += (1 - masks[i]).sum().item<int64_t>();
      }
      l.mask = masks[i];
    }
    info.mask_update = true;
    info.skip_inner = config_.skip_step_on_update;
  }
  if (config_.mask_gradients)
    for (LayerState& l : layers_)
      if (l.mask.defined() && l.param.grad().defined()) l.param.mutable_grad().mul_(l.mask);
  return info;
}

void Updater::after_step(int64_t /*step*/) {
  if (is_ste(config_.algorithm) && !frozen_) return;
  torch::NoGradGuard no_grad;
  for (LayerState& l : layers_)
    if (l.mask.defined()) l.param.mul_(l.mask);
}

void Updater::finalize(int64_t /*step*/) {
  if (!is_ste(config_.algorithm) || frozen_) return;
  restore_dense();
  torch::NoGradGuard no_grad;
  for (LayerState& l : layers_) {
    if (!l.target) continue;
    const double s = *l.target;
    l.mask = config_.algorithm == Algorithm::RandomSte
                 ? layer_mask(l, wrap_scores(l.fixed_scores, l.param.sizes()), s)
                 : layer_mask(l, l.param.abs(), s);
    l.param.mul_(l.mask);
  }
}

void Updater::set_sparsity_type(const SparsityType& type) {
  if (type.kind != SparsityKind::Nm || config_.type.kind != SparsityKind::Nm)
    fail("set_sparsity_type changes one N:M ratio for another");
  config_.type = type;
  const double own = type.intrinsic_sparsity();
  for (LayerState& l : layers_)
    if (l.target) l.target = own;
}

void Updater::set_pruned_scale(double beta, bool scale_gradients) {
  if (!(beta >= 0.0 && beta <= 1.0)) fail("the pruned weights' scale must be in [0, 1]");
  pruned_scale_ = beta;
  scale_pruned_gradients_ = scale_gradients;
}

void Updater::freeze(int64_t step) {
  if (frozen_) return;
  if (is_ste(config_.algorithm)) {
    finalize(step);
  } else {
    torch::NoGradGuard no_grad;
    for (LayerState& l : layers_)
      if (l.mask.defined()) l.param.mul_(l.mask);
  }
  frozen_ = true;
}

void Updater::freeze_with(const std::vector<torch::Tensor>& masks) {
  if (masks.size() != layers_.size()) fail("freeze_with: one mask per parameter expected");
  restore_dense();
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < layers_.size(); ++i) {
    LayerState& l = layers_[i];
    if (!masks[i].defined()) continue;
    if (masks[i].sizes() != l.param.sizes())
      fail("freeze_with: mask of '" + l.name + "' has the wrong shape");
    l.mask = masks[i].to(l.param.scalar_type()).contiguous().clone();
    l.param.mul_(l.mask);
  }
  frozen_ = true;
}

std::vector<LayerSparsity> Updater::sparsity() const {
  std::vector<LayerSparsity> out;
  for (const LayerState& l : layers_) {
    LayerSparsity s;
    s.name = l.name;
    s.shape = l.shape;
    s.numel = l.param.numel();
    s.zeros = (l.param.detach() == 0).sum().item<int64_t>();
    s.target = l.target ? *l.target : -1.0;
    if (l.mask.defined())
      s.mask_sparsity = 1.0 - l.mask.to(torch::kDouble).sum().item<double>() /
                                  static_cast<double>(std::max<int64_t>(s.numel, 1));
    else if (l.target && l.band.last_keep >= 0)  // unstructured straight-through: no mask tensor
      s.mask_sparsity = 1.0 - static_cast<double>(l.band.last_keep) /
                                  static_cast<double>(std::max<int64_t>(s.numel, 1));
    out.push_back(s);
  }
  return out;
}

}  // namespace sparsemap::ml::prune
