// The DNNFuser-style decision transformer: token features, the causal transformer, save/load,
// autoregressive inference and the learned mapper with repair (dnnfuser.h).
#include "sparsemap/ml/fusion/dnnfuser.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "dnnfuser_net.h"
#include "sparsemap/error.h"

namespace sparsemap::ml::fusion {
namespace {

float lg(double x) { return static_cast<float>(std::log2(std::max(1e-30, x))); }
float clip(float x, float lim = 2.0f) { return std::max(-lim, std::min(lim, x)); }

int64_t in_elems(const cost::FusionNode& n) {
  int64_t s = n.model_in_elems;
  for (int64_t e : n.in_elems) s += e;
  return s;
}

// The largest divisor of B not above 2^k.
int64_t micro_batch_of_class(const cost::FusionCostModel& m, int k) {
  const int64_t cap = int64_t{1} << k;
  int64_t best = 1;
  for (int64_t x : m.micro_batches())
    if (x <= cap) best = x;
  return best;
}

std::vector<float> flat(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().to(torch::kFloat).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// A Linear's weight [out, in] stored transposed, [in][out], so that y += W^T x vectorises.
std::vector<float> flat_t(const torch::Tensor& w) { return flat(w.t()); }

FastNet extract(const DtNet& net, const FuserConfig& c) {
  FastNet f;
  f.d = c.d_model;
  f.heads = c.heads;
  f.cond_w = flat_t(net->cond->weight);
  f.cond_b = flat(net->cond->bias);
  f.state_w = flat_t(net->state->weight);
  f.state_b = flat(net->state->bias);
  f.action = flat(net->action->weight);
  f.pos = flat(net->pos->weight);
  f.kind = flat(net->kind->weight);
  f.ln_w = flat(net->ln->weight);
  f.ln_b = flat(net->ln->bias);
  f.head_w = flat_t(net->head->weight);
  f.head_b = flat(net->head->bias);
  for (const auto& b : net->blocks) {
    FastBlock x;
    x.ln1_w = flat(b->ln1->weight), x.ln1_b = flat(b->ln1->bias);
    x.qkv_w = flat_t(b->qkv->weight), x.qkv_b = flat(b->qkv->bias);
    x.proj_w = flat_t(b->proj->weight), x.proj_b = flat(b->proj->bias);
    x.ln2_w = flat(b->ln2->weight), x.ln2_b = flat(b->ln2->bias);
    x.fc1_w = flat_t(b->fc1->weight), x.fc1_b = flat(b->fc1->bias);
    x.fc2_w = flat_t(b->fc2->weight), x.fc2_b = flat(b->fc2->bias);
    f.blocks.push_back(std::move(x));
  }
  return f;
}

// y[o] = b[o] + sum_i W[o][i] x[i], with W stored transposed ([in][out], flat_t()).
void linear(const std::vector<float>& wt, const std::vector<float>& b, const float* x, int in,
            int out, float* y) {
  std::copy(b.begin(), b.begin() + out, y);
  for (int i = 0; i < in; ++i) {
    const float* row = wt.data() + static_cast<size_t>(i) * out;
    const float xi = x[i];
    for (int o = 0; o < out; ++o) y[o] += row[o] * xi;
  }
}

void layer_norm(const std::vector<float>& g, const std::vector<float>& b, const float* x, int d,
                float* y) {
  double mean = 0, var = 0;
  for (int i = 0; i < d; ++i) mean += x[i];
  mean /= d;
  for (int i = 0; i < d; ++i) var += (x[i] - mean) * (x[i] - mean);
  const double inv = 1.0 / std::sqrt(var / d + 1e-5);
  for (int i = 0; i < d; ++i) y[i] = static_cast<float>((x[i] - mean) * inv) * g[i] + b[i];
}

// Causal decoding with a key/value cache: push() runs one token through every block.
class Decoder {
 public:
  Decoder(const FastNet& f, int max_tokens) : f_(f) {
    cache_.assign(f.blocks.size(), std::vector<float>(static_cast<size_t>(max_tokens) * 2 * f.d));
  }
  // x: the token's embedding (d); returns the final hidden state (after the last LayerNorm).
  std::vector<float> push(std::vector<float> x) {
    const int d = f_.d, h = f_.heads, hd = d / h;
    std::vector<float> t(d), qkv(3 * d), y(d), m1(4 * d), m2(d), att(n_ + 1);
    for (size_t l = 0; l < f_.blocks.size(); ++l) {
      const FastBlock& b = f_.blocks[l];
      float* kv = cache_[l].data();
      layer_norm(b.ln1_w, b.ln1_b, x.data(), d, t.data());
      linear(b.qkv_w, b.qkv_b, t.data(), d, 3 * d, qkv.data());
      std::copy(qkv.begin() + d, qkv.begin() + 3 * d, kv + static_cast<size_t>(n_) * 2 * d);
      const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
      for (int hh = 0; hh < h; ++hh) {
        const float* q = qkv.data() + hh * hd;
        float mx = -1e30f;
        for (int j = 0; j <= n_; ++j) {
          const float* k = kv + static_cast<size_t>(j) * 2 * d + hh * hd;
          float s = 0;
          for (int i = 0; i < hd; ++i) s += q[i] * k[i];
          att[j] = s * scale;
          mx = std::max(mx, att[j]);
        }
        float z = 0;
        for (int j = 0; j <= n_; ++j) z += (att[j] = std::exp(att[j] - mx));
        for (int i = 0; i < hd; ++i) y[hh * hd + i] = 0;
        for (int j = 0; j <= n_; ++j) {
          const float* v = kv + static_cast<size_t>(j) * 2 * d + d + hh * hd;
          const float p = att[j] / z;
          for (int i = 0; i < hd; ++i) y[hh * hd + i] += p * v[i];
        }
      }
      linear(b.proj_w, b.proj_b, y.data(), d, d, t.data());
      for (int i = 0; i < d; ++i) x[i] += t[i];
      layer_norm(b.ln2_w, b.ln2_b, x.data(), d, t.data());
      linear(b.fc1_w, b.fc1_b, t.data(), d, 4 * d, m1.data());
      for (float& v : m1) v = 0.5f * v * (1.0f + std::erf(v * 0.70710678f));
      linear(b.fc2_w, b.fc2_b, m1.data(), 4 * d, d, m2.data());
      for (int i = 0; i < d; ++i) x[i] += m2[i];
    }
    ++n_;
    layer_norm(f_.ln_w, f_.ln_b, x.data(), d, t.data());
    return t;
  }

 private:
  const FastNet& f_;
  std::vector<std::vector<float>> cache_;  // per block: [token][k (d), v (d)]
  int n_ = 0;
};

}  // namespace

std::vector<float> state_features(const cost::FusionCostModel& m, int i) {
  const auto& g = m.graph();
  const int n = m.size();
  const cost::FusionNode& node = g.nodes[i];
  const double w = static_cast<double>(m.arch().word_bytes);
  const double buf = static_cast<double>(m.buffer_bytes());
  const int64_t B = g.batch;
  const double in_b = static_cast<double>(in_elems(node)) * w;
  const double out_b = static_cast<double>(node.out_elems) * w;
  const double wt_b = static_cast<double>(node.layer.weight_elems()) * w;
  const double macs = static_cast<double>(node.layer.macs()) / static_cast<double>(B);
  std::vector<float> f(kStateDims, 0.0f);
  f[0] = lg(in_b) / 24;
  f[1] = lg(out_b) / 24;
  f[2] = lg(1 + wt_b) / 24;
  f[3] = lg(1 + macs) / 32;
  const auto& l = node.layer;
  const bool conv = l.kind == workload::OpKind::Conv || l.kind == workload::OpKind::NgConv ||
                    l.kind == workload::OpKind::TrConv;
  const bool pointwise = conv && l.dim(workload::Dim::R) == 1 && l.dim(workload::Dim::S) == 1;
  f[4] = conv && !pointwise;
  f[5] = pointwise;
  f[6] = l.kind == workload::OpKind::DsConv;
  f[7] = !conv && l.kind != workload::OpKind::DsConv;
  f[8] = node.inputs.size() > 1;
  bool skip_source = false;
  for (int v : g.consumers[i]) skip_source = skip_source || v > i + 1;
  f[9] = skip_source;
  f[10] = static_cast<float>(g.consumers[i].size()) / 3.0f;
  f[11] = clip(lg(buf / out_b) / 16);
  f[12] = clip(lg(buf / (1 + wt_b)) / 16);
  f[13] = clip(lg(buf / in_b) / 16);
  f[14] = static_cast<float>(i) / static_cast<float>(n);
  const cost::LayerPass& p1 = m.pass(i, 1);
  const cost::LayerPass& pb = m.pass(i, B);
  f[15] = lg(p1.onchip_cycles) / 32;
  f[16] = clip(lg(macs / (in_b + out_b)) / 16);
  f[17] = clip(lg(pb.onchip_cycles / (static_cast<double>(B) * p1.onchip_cycles)) / 8);
  if (i + 1 < n) {
    const cost::FusionNode& nx = g.nodes[i + 1];
    f[18] = lg(static_cast<double>(nx.out_elems) * w) / 24;
    f[19] = lg(1 + static_cast<double>(nx.layer.weight_elems()) * w) / 24;
    f[20] = clip(lg(buf / (static_cast<double>(nx.out_elems) * w)) / 16);
  }
  f[21] = lg(static_cast<double>(B)) / 8;
  const double words = pb.offchip_words;
  f[22] = clip(lg(words / m.arch().offchip_words_per_cycle / pb.onchip_cycles) / 8);
  f[23] = clip(lg(in_b / out_b) / 8);
  return f;
}

std::vector<float> condition_features(const cost::FusionCostModel& m, int i) {
  const int n = m.size();
  return {lg(static_cast<double>(m.buffer_bytes())) / 24,
          static_cast<float>(n - i) / static_cast<float>(n),
          lg(static_cast<double>(m.graph().batch)) / 8};
}

int action_of(const cost::FusionCostModel& m, const cost::FusionMapping& f, int i) {
  int k = 0;
  while (k + 1 < kMicroBatchClasses && (int64_t{2} << k) <= f.micro_batch[i]) ++k;
  const bool cut = i + 1 >= m.size() || f.cut[i];
  return 2 * k + (cut ? 1 : 0);
}

void apply_action(const cost::FusionCostModel& m, int i, int a, cost::FusionMapping& f) {
  f.micro_batch[i] = micro_batch_of_class(m, a / 2);
  if (i + 1 < m.size()) f.cut[i] = static_cast<uint8_t>(a % 2);
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
  impl_->fast = extract(impl_->net, config);
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
  f.impl_->fast = extract(f.impl_->net, c);
  return f;
}

cost::FusionMapping Fuser::infer(const cost::FusionCostModel& m) const {
  const int n = m.size();
  if (n > impl_->config.max_nodes)
    throw InputError({"<fuse --method learned>", 0, 0},
                     "the model has " + std::to_string(n) + " layers; this fuser handles " +
                         std::to_string(impl_->config.max_nodes));
  const FastNet& fn = impl_->fast;
  const int d = fn.d;
  Decoder dec(fn, 3 * n);
  cost::FusionMapping f = cost::FusionMapping::no_fusion(n, m.graph().batch);
  std::vector<float> x(d), logits(kActions);
  auto embed = [&](const std::vector<float>& w, const std::vector<float>& b,
                   const std::vector<float>& in, int pos, int kind) {
    linear(w, b, in.data(), static_cast<int>(in.size()), d, x.data());
    for (int k = 0; k < d; ++k)
      x[k] += fn.pos[static_cast<size_t>(pos) * d + k] + fn.kind[static_cast<size_t>(kind) * d + k];
    return x;
  };
  for (int i = 0; i < n; ++i) {
    dec.push(embed(fn.cond_w, fn.cond_b, condition_features(m, i), i, 0));
    const std::vector<float> h =
        dec.push(embed(fn.state_w, fn.state_b, state_features(m, i), i, 1));
    linear(fn.head_w, fn.head_b, h.data(), d, kActions, logits.data());
    const int a = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    apply_action(m, i, a, f);
    for (int k = 0; k < d; ++k)
      x[k] = fn.action[static_cast<size_t>(a) * d + k] + fn.pos[static_cast<size_t>(i) * d + k] +
             fn.kind[static_cast<size_t>(2) * d + k];
    if (i + 1 < n) dec.push(x);
  }
  return f;
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
  const auto t0 = std::chrono::steady_clock::now();
  cost::FusionMapping f = fuser.infer(m);
  int64_t samples = 0;
  cost::FusionMapping r = dse::fusion::repair(m, f, o, &samples);
  if (repaired) *repaired = !(r == f);
  dse::fusion::FusionResult res;
  res.method = "learned";
  res.cost = m.evaluate(r);
  res.mapping = std::move(r);
  res.samples = samples;
  res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace sparsemap::ml::fusion
