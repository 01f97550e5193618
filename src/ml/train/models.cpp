// The ViT and char-GPT of the N:M study.
#include "sparsemap/ml/train/models.h"

#include <cmath>
#include <limits>

#include "sparsemap/error.h"

namespace sparsemap::ml::train {

double TransformerConfig::block_linear_macs() const {
  // qkv dim x 3dim, proj dim x dim, fc1 dim x mlp, fc2 mlp x dim, per token and block.
  return static_cast<double>(depth * tokens) * (4.0 * dim * dim + 2.0 * dim * mlp);
}

double TransformerConfig::other_macs() const {
  // Q K^T and A V: 2 T^2 dim per block (counted whole, also when causal); the head on every
  // token (GPT) or the class token (ViT); the patch embedding (ViT).
  const double t = static_cast<double>(tokens);
  double macs = static_cast<double>(depth) * 2.0 * t * t * static_cast<double>(dim);
  if (causal)
    macs += t * static_cast<double>(dim * classes);
  else
    macs += static_cast<double>(dim * classes) + (t - 1) * static_cast<double>(patch * patch * dim);
  return macs;
}

TransformerConfig vit_tiny_config(bool quick) {
  TransformerConfig c;
  c.patch = 7;
  c.tokens = (28 / c.patch) * (28 / c.patch) + 1;
  c.classes = 10;
  if (quick) {
    c.dim = 32;
    c.depth = 2;
    c.heads = 2;
    c.mlp = 64;
  }
  return c;
}

TransformerConfig char_gpt_config(int64_t vocab, bool quick) {
  TransformerConfig c;
  c.causal = true;
  c.classes = vocab;
  c.tokens = quick ? 64 : 128;
  c.dim = quick ? 64 : 128;
  c.depth = quick ? 2 : 4;
  c.heads = quick ? 2 : 4;
  c.mlp = 4 * c.dim;
  return c;
}

BlockImpl::BlockImpl(const TransformerConfig& c) : heads_(c.heads), causal_(c.causal) {
  SPARSEMAP_ASSERT(c.dim % c.heads == 0);
  ln1_ = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.dim})));
  qkv_ = torch::nn::Linear(c.dim, 3 * c.dim);
  proj_ = torch::nn::Linear(c.dim, c.dim);
  attn_ = register_module("attn", torch::nn::Sequential(qkv_, proj_));
  ln2_ = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.dim})));
  fc1_ = torch::nn::Linear(c.dim, c.mlp);
  fc2_ = torch::nn::Linear(c.mlp, c.dim);
  mlp_ = register_module("mlp", torch::nn::Sequential(fc1_, torch::nn::GELU(), fc2_));
}

torch::Tensor BlockImpl::forward(torch::Tensor x) {
  const int64_t b = x.size(0), t = x.size(1), d = x.size(2), hd = d / heads_;
  auto qkv = qkv_->forward(ln1_->forward(x)).view({b, t, 3, heads_, hd}).permute({2, 0, 3, 1, 4});
  const torch::Tensor q = qkv[0], k = qkv[1], v = qkv[2];  // [B, H, T, hd]
  torch::Tensor att = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(hd));
  if (causal_) {
    const torch::Tensor future = torch::ones({t, t}, torch::kBool).triu(1);
    att = att.masked_fill(future, -std::numeric_limits<float>::infinity());
  }
  const torch::Tensor y = torch::matmul(att.softmax(-1), v).transpose(1, 2).reshape({b, t, d});
  x = x + proj_->forward(y);
  return x + mlp_->forward(ln2_->forward(x));
}

TransformerImpl::TransformerImpl(const TransformerConfig& c) : c_(c) {
  if (c.causal) {
    tok_ = register_module("tok", torch::nn::Embedding(c.classes, c.dim));
  } else {
    patch_ = register_module("patch", torch::nn::Linear(c.patch * c.patch, c.dim));
    cls_ = register_parameter("cls", torch::randn({1, 1, c.dim}) * 0.02);
  }
  pos_ = register_parameter("pos", torch::randn({1, c.tokens, c.dim}) * 0.02);
  blocks_ = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.depth; ++i) blocks_->push_back(Block(c));
  ln_ = register_module("ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.dim})));
  head_ = register_module("head", torch::nn::Linear(c.dim, c.classes));
}

torch::Tensor TransformerImpl::forward(torch::Tensor x) {
  torch::Tensor h;
  if (c_.causal) {
    const int64_t t = x.size(1);
    h = tok_->forward(x) + pos_.slice(1, 0, t);
  } else {
    const int64_t b = x.size(0), p = c_.patch, g = 28 / p;
    // [B, 1, 28, 28] -> [B, g*g, p*p] patches, row-major.
    const torch::Tensor patches =
        x.reshape({b, g, p, g, p}).permute({0, 1, 3, 2, 4}).reshape({b, g * g, p * p});
    h = torch::cat({cls_.expand({b, 1, c_.dim}), patch_->forward(patches)}, 1) + pos_;
  }
  for (const auto& blk : *blocks_) h = blk->as<BlockImpl>()->forward(h);
  h = ln_->forward(h);
  return c_.causal ? head_->forward(h) : head_->forward(h.select(1, 0));
}

bool is_attention_weight(const std::string& name) {
  return name.rfind("blocks.", 0) == 0 && name.find(".attn.") != std::string::npos &&
         name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0;
}

bool is_mlp_weight(const std::string& name) {
  return name.rfind("blocks.", 0) == 0 && name.find(".mlp.") != std::string::npos &&
         name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0;
}

}  // namespace sparsemap::ml::train
