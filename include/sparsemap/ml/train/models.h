// The transformers of the N:M study: a small ViT for 28 x 28 grey images (Fashion-MNIST) and a
// character-level GPT, built from one pre-norm block (multi-head attention, GELU MLP). Every
// Linear of the blocks is a candidate for N:M sparsity: attention (attn.qkv, attn.proj) and MLP
// (mlp.fc1, mlp.fc2) weights are told apart by name. Includes libtorch.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sparsemap::ml::train {

struct TransformerConfig {
  int64_t dim = 64;      // model width
  int64_t depth = 4;     // blocks
  int64_t heads = 4;     // attention heads (dim % heads == 0)
  int64_t mlp = 128;     // hidden width of the MLP
  int64_t tokens = 17;   // sequence length (ViT: patches + class token; GPT: context)
  int64_t patch = 7;     // ViT: patch side (28 % patch == 0)
  int64_t classes = 10;  // ViT: classes; GPT: vocabulary size
  bool causal = false;   // GPT

  // Multiply-adds per example (one image, or one window of `tokens` characters), forward:
  // in the blocks' Linear layers (the prunable ones) and in everything else (embeddings, the
  // attention products Q K^T and A V, the head).
  double block_linear_macs() const;
  double other_macs() const;
};

// vit-tiny: patch 7 (16 patches + class token), dim 64, depth 4, 4 heads, MLP 128;
// quick: dim 32, depth 2, 2 heads, MLP 64.
TransformerConfig vit_tiny_config(bool quick);
// char-gpt: context 128, dim 128, depth 4, 4 heads, MLP 512; quick: context 64, dim 64, depth 2,
// 2 heads, MLP 256.
TransformerConfig char_gpt_config(int64_t vocab, bool quick);

class BlockImpl : public torch::nn::Module {
 public:
  explicit BlockImpl(const TransformerConfig& c);
  torch::Tensor forward(torch::Tensor x);  // [B, T, dim] -> [B, T, dim]

 private:
  int64_t heads_;
  bool causal_;
  torch::nn::LayerNorm ln1_{nullptr}, ln2_{nullptr};
  torch::nn::Linear qkv_{nullptr}, proj_{nullptr}, fc1_{nullptr}, fc2_{nullptr};
  torch::nn::Sequential attn_{nullptr}, mlp_{nullptr};  // name scopes "attn" and "mlp"
};
TORCH_MODULE(Block);

// A ViT or a GPT, by config.causal. ViT: [B, 1, 28, 28] -> [B, classes] logits.
// GPT: [B, T] character ids (Long) -> [B, T, vocab] logits.
class TransformerImpl : public torch::nn::Module {
 public:
  explicit TransformerImpl(const TransformerConfig& c);
  torch::Tensor forward(torch::Tensor x);
  const TransformerConfig& config() const { return c_; }

 private:
  TransformerConfig c_;
  torch::nn::Linear patch_{nullptr};
  torch::nn::Embedding tok_{nullptr};
  torch::Tensor cls_, pos_;
  torch::nn::ModuleList blocks_{nullptr};
  torch::nn::LayerNorm ln_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(Transformer);

// Names of the weights N:M applies to: "blocks.<i>.attn.<0|1>.weight" (qkv, proj) and
// "blocks.<i>.mlp.<0|2>.weight" (fc1, fc2).
bool is_attention_weight(const std::string& name);
bool is_mlp_weight(const std::string& name);

}  // namespace sparsemap::ml::train
