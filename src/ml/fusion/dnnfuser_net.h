// Internal to ml/fusion: the decision transformer's network (a GPT over interleaved condition,
// state and action tokens) and its file format.
#pragma once

#include <torch/torch.h>

#include <string>

#include "sparsemap/error.h"
#include "sparsemap/ml/fusion/dnnfuser.h"

namespace sparsemap::ml::fusion {

// Pre-norm transformer block with causal multi-head self-attention.
struct DtBlockImpl : torch::nn::Module {
  DtBlockImpl(int d, int heads) : heads_(heads) {
    ln1 = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
    qkv = register_module("qkv", torch::nn::Linear(d, 3 * d));
    proj = register_module("proj", torch::nn::Linear(d, d));
    ln2 = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
    fc1 = register_module("fc1", torch::nn::Linear(d, 4 * d));
    fc2 = register_module("fc2", torch::nn::Linear(4 * d, d));
  }
  // x [B, T, d]; mask [T, T] bool, true where attention is forbidden.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask) {
    const int64_t b = x.size(0), t = x.size(1), d = x.size(2), hd = d / heads_;
    auto q = qkv(ln1(x)).view({b, t, 3, heads_, hd}).permute({2, 0, 3, 1, 4});
    auto att = torch::matmul(q[0], q[1].transpose(-2, -1)) / std::sqrt(static_cast<double>(hd));
    att = torch::softmax(att.masked_fill(mask, -1e9), -1);
    auto y = torch::matmul(att, q[2]).transpose(1, 2).reshape({b, t, d});
    auto h = x + proj(y);
    return h + fc2(torch::gelu(fc1(ln2(h))));
  }
  int heads_;
  torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  torch::nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(DtBlock);

// Tokens per layer i: condition c_i, state s_i, action a_i (in that order); the action of
// layer i is predicted from the output at s_i, which sees c_<=i, s_<=i and a_<i only.
struct DtNetImpl : torch::nn::Module {
  explicit DtNetImpl(const FuserConfig& c) {
    const int d = c.d_model;
    cond = register_module("cond", torch::nn::Linear(kConditionDims, d));
    state = register_module("state", torch::nn::Linear(kStateDims, d));
    action = register_module("action", torch::nn::Embedding(kActions + 1, d));
    pos = register_module("pos", torch::nn::Embedding(c.max_nodes, d));
    kind = register_module("kind", torch::nn::Embedding(3, d));
    for (int l = 0; l < c.layers; ++l)
      blocks.push_back(register_module("block" + std::to_string(l), DtBlock(d, c.heads)));
    ln = register_module("ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
    head = register_module("head", torch::nn::Linear(d, kActions));
  }
  // cond [B, n, kConditionDims], st [B, n, kStateDims], act [B, n] long -> logits [B, n, kActions]
  torch::Tensor forward(const torch::Tensor& c, const torch::Tensor& st, const torch::Tensor& act) {
    const int64_t b = st.size(0), n = st.size(1), d = pos->options.embedding_dim();
    const torch::Tensor p = pos(torch::arange(n, torch::kLong)).unsqueeze(0);
    const torch::Tensor k = kind->weight;
    auto tc = cond(c) + p + k[0];
    auto ts = state(st) + p + k[1];
    auto ta = action(act) + p + k[2];
    auto x = torch::stack({tc, ts, ta}, 2).reshape({b, 3 * n, d});
    const torch::Tensor mask =
        torch::ones({3 * n, 3 * n}, torch::kBool).triu(1);  // j > i forbidden
    for (auto& blk : blocks) x = blk->forward(x, mask);
    x = ln(x).view({b, n, 3, d}).select(2, 1);  // outputs at the state tokens
    return head(x);
  }
  torch::nn::Linear cond{nullptr}, state{nullptr}, head{nullptr};
  torch::nn::Embedding action{nullptr}, pos{nullptr}, kind{nullptr};
  torch::nn::LayerNorm ln{nullptr};
  std::vector<DtBlock> blocks;
};
TORCH_MODULE(DtNet);

struct Fuser::Impl {
  FuserConfig config;
  DtNet net{nullptr};
  FuserWeights fast;  // the same parameters as plain arrays, for inference
};

// The network's parameters as plain arrays (Linear weights transposed), for inference.
FuserWeights extract_weights(const DtNet& net, const FuserConfig& c);

inline constexpr int64_t kFileVersion = 1;

// File: a torch archive with "sparsemap_dnnfuser" = [version, d_model, layers, heads,
// max_nodes, epoch] and the network's parameters.
inline void save_net(const DtNet& net, const FuserConfig& c, const std::string& path,
                     int64_t epoch) {
  torch::serialize::OutputArchive ar;
  ar.write("sparsemap_dnnfuser", torch::tensor({kFileVersion, int64_t{c.d_model}, int64_t{c.layers},
                                                int64_t{c.heads}, int64_t{c.max_nodes}, epoch}));
  net->save(ar);
  try {
    ar.save_to(path);
  } catch (const c10::Error& e) {
    throw InputError({path, 0, 0}, "cannot write the model file");
  }
}

inline DtNet load_net(const std::string& path, FuserConfig* c, int64_t* epoch) {
  torch::serialize::InputArchive ar;
  torch::Tensor h;
  try {
    ar.load_from(path);
    ar.read("sparsemap_dnnfuser", h);
  } catch (const c10::Error&) {
    throw InputError({path, 0, 0}, "not a sparsemap fuse-train model (torch archive expected)");
  }
  if (h.numel() != 6 || h[0].item<int64_t>() != kFileVersion)
    throw InputError({path, 0, 0}, "unsupported fuse-train model version");
  c->d_model = static_cast<int>(h[1].item<int64_t>());
  c->layers = static_cast<int>(h[2].item<int64_t>());
  c->heads = static_cast<int>(h[3].item<int64_t>());
  c->max_nodes = static_cast<int>(h[4].item<int64_t>());
  *epoch = h[5].item<int64_t>();
  const std::string problem = dse::fusion::fuser_config_problem(*c);
  if (!problem.empty())
    throw InputError({path, 0, 0}, "bad fuse-train model configuration: " + problem);
  DtNet net(*c);
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& p : net->parameters()) shapes.push_back(p.sizes().vec());
  const auto mismatch = [&] {
    return InputError({path, 0, 0}, "the model file's parameters do not match its configuration");
  };
  try {
    net->load(ar);  // replaces each parameter by the file's tensor, whatever its shape
  } catch (const c10::Error&) {
    throw mismatch();
  }
  const auto params = net->parameters();
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].sizes().vec() != shapes[i] || params[i].scalar_type() != torch::kFloat ||
        !torch::isfinite(params[i]).all().item<bool>())
      throw mismatch();
  return net;
}

}  // namespace sparsemap::ml::fusion
