// Internal to ml/nongemm: the building blocks of the suite's models, written against ATen so
// that each records the operators a PyTorch user of the reference implementation would see.
#pragma once

#include <ATen/ATen.h>
#include <ATen/record_function.h>

#include <cstdint>
#include <vector>

#include "../region.h"

namespace sparsemap::ml::nongemm {

// Seeded weights and inputs. Weights are uniform with the given standard deviation (cheaper to
// draw than normal ones; the values do not change what the operators cost, only that they stay
// finite and free of denormals).
class Init {
 public:
  explicit Init(uint64_t seed);
  at::Tensor uniform(at::IntArrayRef sizes, double stddev);
  at::Tensor range(at::IntArrayRef sizes, double lo, double hi);  // uniform in [lo, hi)
  at::Tensor ids(at::IntArrayRef sizes, int64_t vocab);           // int64 in [0, vocab)

 private:
  at::Generator gen_;
};

// torch.nn.Linear applied as torch.nn.functional.linear: one aten::linear on any rank.
struct Linear {
  at::Tensor w, b;  // w: [out, in]; b: [out] or undefined
  static Linear make(Init& init, int64_t in, int64_t out, bool bias = true, double stddev = 0);
  at::Tensor operator()(const at::Tensor& x) const { return at::linear(x, w, b); }
};

struct Conv2d {
  at::Tensor w, b;  // w: [out, in / groups, k, k]
  int64_t stride = 1, pad = 0, groups = 1;
  static Conv2d make(Init& init, int64_t in, int64_t out, int64_t kernel, int64_t stride = 1,
                     int64_t pad = 0, int64_t groups = 1, bool bias = false);
  at::Tensor operator()(const at::Tensor& x) const {
    return at::conv2d(x, w, b, {stride, stride}, {pad, pad}, {1, 1}, groups);
  }
};

// BatchNorm2d in eval mode (aten::batch_norm) or FrozenBatchNorm2d (torchvision, HF DETR):
// the latter is x * scale + shift computed from the buffers, counted as one composite operator.
struct Norm2d {
  at::Tensor w, b, mean, var;
  bool frozen = false;
  double eps = 1e-5;
  static Norm2d make(Init& init, int64_t channels, bool frozen, double eps = 1e-5);
  at::Tensor operator()(const at::Tensor& x) const;
};

struct LayerNorm {
  at::Tensor w, b;
  double eps = 1e-5;
  static LayerNorm make(Init& init, int64_t dim, double eps = 1e-5);
  at::Tensor operator()(const at::Tensor& x) const {
    return at::layer_norm(x, {w.size(0)}, w, b, eps);
  }
};

// LlamaRMSNorm: x * rsqrt(mean(x^2) + eps) * w, one composite operator.
struct RmsNorm {
  at::Tensor w;
  double eps = 1e-5;
  static RmsNorm make(Init& init, int64_t dim, double eps = 1e-5);
  at::Tensor operator()(const at::Tensor& x) const;
};

struct Embedding {
  at::Tensor w;  // [rows, dim]
  static Embedding make(Init& init, int64_t rows, int64_t dim, double stddev = 0.02);
  at::Tensor operator()(const at::Tensor& ids) const { return at::embedding(w, ids); }
};

// GPT-2's NewGELUActivation (tanh approximation written out), one composite operator.
at::Tensor gelu_new(const at::Tensor& x);

// [B, L, H*D] -> [B, H, L, D] (view + permute), as HF's transpose_for_scores.
at::Tensor split_heads(const at::Tensor& x, int64_t heads);
// [B, H, L, D] -> [B, L, H*D] (permute + contiguous + view), as HF's merge.
at::Tensor merge_heads(const at::Tensor& x);

// HF's eager self-attention core on [B, H, L, D] tensors: matmul(q, k^T) / sqrt(D) (+ mask),
// softmax, matmul with v. `mask` is added to the scores when defined.
at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                     const at::Tensor& mask = {});

// Multiplies a block count by the model's full/run ratio (1 when not overridden).
inline double layer_weight(int64_t layers_full, int64_t layers_run) {
  return layers_run > 0 ? static_cast<double>(layers_full) / static_cast<double>(layers_run) : 1.0;
}

// ResNet-50's trunk (torchvision resnet50 v1.5: stride on the 3x3 conv). `widths` are the
// bottleneck widths of the four stages (64, 128, 256, 512), `blocks` their depths (3, 4, 6, 3).
struct Bottleneck {
  Conv2d c1, c2, c3, down;
  Norm2d n1, n2, n3, down_norm;
  bool has_down = false;
  at::Tensor operator()(const at::Tensor& x) const;
};
struct ResNetTrunk {
  Conv2d conv1;
  Norm2d bn1;
  std::vector<std::vector<Bottleneck>> stages;
  static ResNetTrunk make(Init& init, int64_t stem, std::vector<int64_t> widths,
                          std::vector<int64_t> blocks, bool frozen_norm);
  int64_t out_channels(size_t stage) const { return stages[stage].back().c3.w.size(0); }
  // The outputs of the four stages (C2..C5).
  std::vector<at::Tensor> operator()(const at::Tensor& x) const;
};

}  // namespace sparsemap::ml::nongemm
