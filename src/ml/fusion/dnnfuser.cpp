// The DNNFuser-style decision transformer in libtorch: trajectories, the network, save/load
// and the reference decoding (dnnfuser.h); inference itself is dse/fusion/fuser_infer.cpp.
#include "sparsemap/ml/fusion/dnnfuser.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "dnnfuser_net.h"
#include "sparsemap/error.h"

namespace sparsemap::ml::fusion {
namespace {

std::vector<float> flat(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().to(torch::kFloat).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// A Linear's weight [out, in] stored transposed, [in][out], so that y += W^T x vectorises.
std::vector<float> flat_t(const torch::Tensor& w) { return flat(w.t()); }

}  // namespace

FuserWeights extract_weights(const DtNet& net, const FuserConfig& c) {
  FuserWeights f;
  f.config = c;
  f.cond_wt = flat_t(net->cond->weight);
  f.cond_b = flat(net->cond->bias);
  f.state_wt = flat_t(net->state->weight);
  f.state_b = flat(net->state->bias);
  f.action = flat(net->action->weight);
  f.pos = flat(net->pos->weight);
  f.kind = flat(net->kind->weight);
  f.ln_w = flat(net->ln->weight);
  f.ln_b = flat(net->ln->bias);
  f.head_wt = flat_t(net->head->weight);
  f.head_b = flat(net->head->bias);
  for (const auto& b : net->blocks) {
    dse::fusion::FuserBlockWeights x;
    x.ln1_w = flat(b->ln1->weight), x.ln1_b = flat(b->ln1->bias);
    x.qkv_wt = flat_t(b->qkv->weight), x.qkv_b = flat(b->qkv->bias);
    x.proj_wt = flat_t(b->proj->weight), x.proj_b = flat(b->proj->bias);
    x.ln2_w = flat(b->ln2->weight), x.ln2_b = flat(b->ln2->bias);
    x.fc1_wt = flat_t(b->fc1->weight), x.fc1_b = flat(b->fc1->bias);
    x.fc2_wt = flat_t(b->fc2->weight), x.fc2_b = flat(b->fc2->bias);
    f.blocks.push_back(std::move(x));
  }
  return f;
}

Trajectory trajectory_of(const cost::FusionCostModel& m, const cost::FusionMapping& expert,
                         double expert_objective) {
  Trajectory t;
  t.model = m.graph().name;
  t.batch = m.graph().batch;
  t.buffer_bytes = m.buffer_bytes();
  t.expert_objective = expert_objective;
  for (int i = 0; i < m.size(); ++i) {
    t.conditions.push_back(condition_features(m, i));
    t.states.push_back(state_features(m, i));
    t.actions.push_back(action_of(m, expert, i));
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// The Fuser.

Fuser::Fuser(const FuserConfig& config, uint64_t seed) : impl_(std::make_unique<Impl>()) {
  torch::manual_seed(seed);
  impl_->config = config;
  impl_->net = DtNet(config);
  impl_->net->eval();
  impl_->fast = extract_weights(impl_->net, config);
}
Fuser::~Fuser() = default;
Fuser::Fuser(Fuser&&) noexcept = default;
Fuser& Fuser::operator=(Fuser&&) noexcept = default;

const FuserConfig& Fuser::config() const { return impl_->config; }

int64_t Fuser::parameters() const {
  int64_t s = 0;
  for (const auto& p : impl_->net->parameters()) s += p.numel();
  return s;
}

void Fuser::save(const std::string& path) const { save_net(impl_->net, impl_->config, path, -1); }

Fuser Fuser::load(const std::string& path) {
  FuserConfig c;
  int64_t epoch = 0;
  DtNet net = load_net(path, &c, &epoch);
  Fuser f(c);
  f.impl_->net = net;
  f.impl_->net->eval();
  f.impl_->fast = extract_weights(f.impl_->net, c);
  return f;
}

const FuserWeights& Fuser::weights() const { return impl_->fast; }

cost::FusionMapping Fuser::infer(const cost::FusionCostModel& m) const {
  return dse::fusion::infer_mapping(impl_->fast, m);
}

cost::FusionMapping infer_reference(const Fuser& fuser, const cost::FusionCostModel& m) {
  const int n = m.size();
  torch::NoGradGuard ng;
  std::vector<float> cond, state;
  for (int i = 0; i < n; ++i) {
    const auto c = condition_features(m, i);
    const auto s = state_features(m, i);
    cond.insert(cond.end(), c.begin(), c.end());
    state.insert(state.end(), s.begin(), s.end());
  }
  const torch::Tensor ct = torch::from_blob(cond.data(), {1, n, kConditionDims}).clone();
  const torch::Tensor st = torch::from_blob(state.data(), {1, n, kStateDims}).clone();
  torch::Tensor at = torch::full({1, n}, kActions, torch::kLong);  // kActions: not chosen yet
  cost::FusionMapping f = cost::FusionMapping::no_fusion(n, m.graph().batch);
  for (int i = 0; i < n; ++i) {
    // Tokens after s_i cannot influence it (causal), so the prefix up to step i suffices.
    const torch::Tensor logits = fuser.impl().net->forward(
        ct.narrow(1, 0, i + 1), st.narrow(1, 0, i + 1), at.narrow(1, 0, i + 1));
    const int a = static_cast<int>(logits[0][i].argmax().item<int64_t>());
    at[0][i] = a;
    apply_action(m, i, a, f);
  }
  return f;
}

dse::fusion::FusionResult learned(const cost::FusionCostModel& m, dse::fusion::Objective o,
                                  const Fuser& fuser, bool* repaired) {
  return dse::fusion::learned(m, o, fuser.weights(), repaired);
}

}  // namespace sparsemap::ml::fusion
