// The learned fusion mapper's torch-free half: token features, the plain weights file, cached
// decoding and `fuse --method learned` (fuser_infer.h).
#include "sparsemap/dse/fusion/fuser_infer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sparsemap/error.h"

namespace sparsemap::dse::fusion {
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

// y[o] = b[o] + sum_i W[o][i] x[i], with W stored transposed ([in][out]). `out` may be a
// prefix (offset `first`) of the layer's outputs.
void linear(const std::vector<float>& wt, const std::vector<float>& b, const float* x, int in,
            int out, float* y, int first = 0, int count = -1) {
  if (count < 0) count = out;
  std::copy(b.begin() + first, b.begin() + first + count, y);
  for (int i = 0; i < in; ++i) {
    const float* row = wt.data() + static_cast<size_t>(i) * out + first;
    const float xi = x[i];
    for (int o = 0; o < count; ++o) y[o] += row[o] * xi;
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

// Causal decoding with a key/value cache: push() runs one token through every block. Tokens
// whose output nobody reads (condition and action tokens) skip, in the last block, everything
// but their keys and values: the outputs of the state tokens are the same either way.
class Decoder {
 public:
  Decoder(const FuserWeights& w, int max_tokens)
      : w_(w),
        d_(w.config.d_model),
        t_(d_),
        qkv_(3 * d_),
        y_(d_),
        m1_(4 * d_),
        m2_(d_),
        att_(max_tokens) {
    cache_.assign(w.blocks.size(), std::vector<float>(static_cast<size_t>(max_tokens) * 2 * d_));
  }
  // x: the token's embedding (d), overwritten. With `want_output`, returns the final hidden
  // state (after the last LayerNorm); otherwise nullptr.
  const float* push(float* x, bool want_output) {
    const int d = d_, h = w_.config.heads, hd = d / h;
    const size_t nb = w_.blocks.size();
    for (size_t l = 0; l < nb; ++l) {
      const FuserBlockWeights& b = w_.blocks[l];
      float* kv = cache_[l].data();
      layer_norm(b.ln1_w, b.ln1_b, x, d, t_.data());
      if (!want_output && l + 1 == nb) {  // keys and values only
        linear(b.qkv_wt, b.qkv_b, t_.data(), d, 3 * d, kv + static_cast<size_t>(n_) * 2 * d, d,
               2 * d);
        break;
      }
      linear(b.qkv_wt, b.qkv_b, t_.data(), d, 3 * d, qkv_.data());
      std::copy(qkv_.begin() + d, qkv_.begin() + 3 * d, kv + static_cast<size_t>(n_) * 2 * d);
      attend(kv, h, hd);
      linear(b.proj_wt, b.proj_b, y_.data(), d, d, t_.data());
      for (int i = 0; i < d; ++i) x[i] += t_[i];
      layer_norm(b.ln2_w, b.ln2_b, x, d, t_.data());
      linear(b.fc1_wt, b.fc1_b, t_.data(), d, 4 * d, m1_.data());
      for (float& v : m1_) v = 0.5f * v * (1.0f + std::erf(v * 0.70710678f));
      linear(b.fc2_wt, b.fc2_b, m1_.data(), 4 * d, d, m2_.data());
      for (int i = 0; i < d; ++i) x[i] += m2_[i];
    }
    ++n_;
    if (!want_output) return nullptr;
    layer_norm(w_.ln_w, w_.ln_b, x, d, t_.data());
    return t_.data();
  }

 private:
  // y_ = softmax(q k^T / sqrt(hd)) v per head, over the tokens so far and this one.
  void attend(const float* kv, int h, int hd) {
    const int d = d_;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    for (int hh = 0; hh < h; ++hh) {
      const float* q = qkv_.data() + hh * hd;
      float mx = -1e30f;
      for (int j = 0; j <= n_; ++j) {
        const float* k = kv + static_cast<size_t>(j) * 2 * d + hh * hd;
        float s = 0;
        for (int i = 0; i < hd; ++i) s += q[i] * k[i];
        att_[j] = s * scale;
        mx = std::max(mx, att_[j]);
      }
      float z = 0;
      for (int j = 0; j <= n_; ++j) z += (att_[j] = std::exp(att_[j] - mx));
      for (int i = 0; i < hd; ++i) y_[hh * hd + i] = 0;
      for (int j = 0; j <= n_; ++j) {
        const float* v = kv + static_cast<size_t>(j) * 2 * d + d + hh * hd;
        const float p = att_[j] / z;
        for (int i = 0; i < hd; ++i) y_[hh * hd + i] += p * v[i];
      }
    }
  }

  const FuserWeights& w_;
  int d_;
  std::vector<float> t_, qkv_, y_, m1_, m2_, att_;
  std::vector<std::vector<float>> cache_;  // per block: [token][k (d), v (d)]
  int n_ = 0;
};

constexpr char kMagic[8] = {'S', 'M', 'F', 'U', 'S', 'E', 'R', '\0'};
constexpr uint32_t kVersion = 1;

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

std::string fuser_config_problem(const FuserConfig& c) {
  if (c.d_model < 4 || c.d_model > 1024) return "d_model must be 4 to 1024";
  if (c.layers < 1 || c.layers > 16) return "layers must be 1 to 16";
  if (c.heads < 1 || c.d_model % c.heads != 0) return "heads must divide d_model";
  if (c.max_nodes < 1 || c.max_nodes > 4096) return "max_nodes must be 1 to 4096";
  return "";
}

std::vector<std::pair<std::vector<float>*, size_t>> FuserWeights::arrays() {
  const size_t d = static_cast<size_t>(config.d_model);
  std::vector<std::pair<std::vector<float>*, size_t>> a = {
      {&cond_wt, kConditionDims * d},
      {&cond_b, d},
      {&state_wt, kStateDims * d},
      {&state_b, d},
      {&action, (kActions + 1) * d},
      {&pos, static_cast<size_t>(config.max_nodes) * d},
      {&kind, 3 * d},
      {&ln_w, d},
      {&ln_b, d},
      {&head_wt, d * kActions},
      {&head_b, static_cast<size_t>(kActions)}};
  blocks.resize(static_cast<size_t>(config.layers));
  for (FuserBlockWeights& b : blocks) {
    for (auto& x : std::vector<std::pair<std::vector<float>*, size_t>>{{&b.ln1_w, d},
                                                                       {&b.ln1_b, d},
                                                                       {&b.qkv_wt, d * 3 * d},
                                                                       {&b.qkv_b, 3 * d},
                                                                       {&b.proj_wt, d * d},
                                                                       {&b.proj_b, d},
                                                                       {&b.ln2_w, d},
                                                                       {&b.ln2_b, d},
                                                                       {&b.fc1_wt, d * 4 * d},
                                                                       {&b.fc1_b, 4 * d},
                                                                       {&b.fc2_wt, 4 * d * d},
                                                                       {&b.fc2_b, d}})
      a.push_back(x);
  }
  return a;
}

void write_fuser_weights(const FuserWeights& w, const std::string& path) {
  FuserWeights copy = w;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError({path, 0, 0}, "cannot write the weights file");
  out.write(kMagic, sizeof kMagic);
  const uint32_t version = kVersion;
  out.write(reinterpret_cast<const char*>(&version), 4);
  for (int32_t x :
       {copy.config.d_model, copy.config.layers, copy.config.heads, copy.config.max_nodes})
    out.write(reinterpret_cast<const char*>(&x), 4);
  for (const auto& [v, count] : copy.arrays()) {
    SPARSEMAP_ASSERT(v->size() == count);
    const uint64_t c = count;
    out.write(reinterpret_cast<const char*>(&c), 8);
    out.write(reinterpret_cast<const char*>(v->data()), static_cast<std::streamsize>(4 * count));
  }
  out.close();
  if (!out) throw InputError({path, 0, 0}, "cannot write the weights file");
}

bool is_fuser_weights_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof kMagic] = {};
  in.read(magic, sizeof magic);
  return in && std::memcmp(magic, kMagic, sizeof kMagic) == 0;
}

std::string fuser_weights_path(const std::string& torch_path) {
  return std::filesystem::path(torch_path).replace_extension(".bin").string();
}

FuserWeights read_fuser_weights(const std::string& path) {
  auto fail = [&](const std::string& what) -> InputError { return InputError({path, 0, 0}, what); };
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw fail("no such weights file");
  if (!std::filesystem::is_regular_file(path, ec))
    throw fail("not a regular file (expected a fuse-train weights file)");
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw fail("cannot read the weights file");
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof kMagic] = {};
  uint32_t version = 0;
  int32_t cfg[4] = {};
  in.read(magic, sizeof magic);
  in.read(reinterpret_cast<char*>(&version), 4);
  in.read(reinterpret_cast<char*>(cfg), 16);
  if (!in || std::memcmp(magic, kMagic, sizeof kMagic) != 0)
    throw fail("not a fuse-train weights file (expected the SMFUSER header)");
  if (version != kVersion)
    throw fail("unsupported weights file version " + std::to_string(version) + " (expected " +
               std::to_string(kVersion) + ")");
  FuserWeights w;
  w.config = {cfg[0], cfg[1], cfg[2], cfg[3]};
  const std::string problem = fuser_config_problem(w.config);
  if (!problem.empty()) throw fail("bad configuration: " + problem);
  const auto arrays = w.arrays();
  uint64_t expected = sizeof kMagic + 4 + 16;
  for (const auto& a : arrays) expected += 8 + 4 * static_cast<uint64_t>(a.second);
  if (size != expected)
    throw fail("the file has " + std::to_string(size) + " bytes; its configuration (d_model " +
               std::to_string(cfg[0]) + ", " + std::to_string(cfg[1]) + " layers) needs " +
               std::to_string(expected) + " (truncated or not written by fuse-train)");
  for (size_t k = 0; k < arrays.size(); ++k) {
    uint64_t count = 0;
    in.read(reinterpret_cast<char*>(&count), 8);
    if (!in || count != arrays[k].second)
      throw fail("array " + std::to_string(k) + " holds " + std::to_string(count) +
                 " values, expected " + std::to_string(arrays[k].second));
    std::vector<float>& v = *arrays[k].first;
    v.resize(count);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(4 * count));
    if (!in) throw fail("truncated in array " + std::to_string(k));
    for (float x : v)
      if (!std::isfinite(x)) throw fail("array " + std::to_string(k) + " holds a non-finite value");
  }
  return w;
}

cost::FusionMapping infer_mapping(const FuserWeights& w, const cost::FusionCostModel& m) {
  const int n = m.size();
  if (n > w.config.max_nodes)
    throw InputError({"<fuse --method learned>", 0, 0}, "the model has " + std::to_string(n) +
                                                            " layers; these weights handle " +
                                                            std::to_string(w.config.max_nodes));
  const int d = w.config.d_model;
  Decoder dec(w, 3 * n);
  cost::FusionMapping f = cost::FusionMapping::no_fusion(n, m.graph().batch);
  std::vector<float> x(d), logits(kActions);
  auto embed = [&](const std::vector<float>& wt, const std::vector<float>& b,
                   const std::vector<float>& in, int pos, int kind) {
    linear(wt, b, in.data(), static_cast<int>(in.size()), d, x.data());
    for (int k = 0; k < d; ++k)
      x[k] += w.pos[static_cast<size_t>(pos) * d + k] + w.kind[static_cast<size_t>(kind) * d + k];
  };
  for (int i = 0; i < n; ++i) {
    embed(w.cond_wt, w.cond_b, condition_features(m, i), i, 0);
    dec.push(x.data(), false);
    embed(w.state_wt, w.state_b, state_features(m, i), i, 1);
    const float* h = dec.push(x.data(), true);
    linear(w.head_wt, w.head_b, h, d, kActions, logits.data());
    const int a = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    apply_action(m, i, a, f);
    if (i + 1 == n) break;
    for (int k = 0; k < d; ++k)
      x[k] = w.action[static_cast<size_t>(a) * d + k] + w.pos[static_cast<size_t>(i) * d + k] +
             w.kind[static_cast<size_t>(2) * d + k];
    dec.push(x.data(), false);
  }
  return f;
}

FusionResult learned(const cost::FusionCostModel& m, Objective o, const FuserWeights& w,
                     bool* repaired) {
  const auto t0 = std::chrono::steady_clock::now();
  cost::FusionMapping f = infer_mapping(w, m);
  int64_t samples = 0;
  cost::FusionMapping r = repair(m, f, o, &samples);
  if (repaired) *repaired = !(r == f);
  FusionResult res;
  res.method = "learned";
  res.cost = m.evaluate(r);
  res.mapping = std::move(r);
  res.samples = samples;
  res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace sparsemap::dse::fusion
