// The suite's building blocks (see layers.h).
#include "layers.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

namespace sparsemap::ml::nongemm {

Init::Init(uint64_t seed) : gen_(at::make_generator<at::CPUGeneratorImpl>(seed)) {}

at::Tensor Init::uniform(at::IntArrayRef sizes, double stddev) {
  const double a = stddev * std::sqrt(3.0);
  return at::empty(sizes).uniform_(-a, a, gen_);
}

at::Tensor Init::range(at::IntArrayRef sizes, double lo, double hi) {
  return at::empty(sizes).uniform_(lo, hi, gen_);
}

at::Tensor Init::ids(at::IntArrayRef sizes, int64_t vocab) {
  return at::empty(sizes, at::kLong).random_(0, vocab, gen_);
}

Linear Linear::make(Init& init, int64_t in, int64_t out, bool bias, double stddev) {
  if (stddev <= 0) stddev = 1.0 / std::sqrt(static_cast<double>(in));
  Linear l;
  l.w = init.uniform({out, in}, stddev);
  if (bias) l.b = init.uniform({out}, 0.02);
  return l;
}

Conv2d Conv2d::make(Init& init, int64_t in, int64_t out, int64_t kernel, int64_t stride,
                    int64_t pad, int64_t groups, bool bias) {
  Conv2d c;
  const int64_t fan_in = in / groups * kernel * kernel;
  c.w = init.uniform({out, in / groups, kernel, kernel}, std::sqrt(2.0 / fan_in));
  if (bias) c.b = init.uniform({out}, 0.02);
  c.stride = stride, c.pad = pad, c.groups = groups;
  return c;
}

Norm2d Norm2d::make(Init& init, int64_t channels, bool frozen, double eps) {
  Norm2d n;
  n.w = init.range({channels}, 0.5, 1.0);
  n.b = init.uniform({channels}, 0.1);
  n.mean = init.uniform({channels}, 0.1);
  n.var = init.range({channels}, 0.5, 2.0);
  n.frozen = frozen, n.eps = eps;
  return n;
}

at::Tensor Norm2d::operator()(const at::Tensor& x) const {
  if (!frozen) return at::batch_norm(x, w, b, mean, var, false, 0.1, eps, true);
  // torchvision.ops.FrozenBatchNorm2d.forward
  SPARSEMAP_COMPOSITE_OP("frozen_batch_norm");
  const at::Tensor ww = w.reshape({1, -1, 1, 1}), bb = b.reshape({1, -1, 1, 1});
  const at::Tensor rv = var.reshape({1, -1, 1, 1}), rm = mean.reshape({1, -1, 1, 1});
  const at::Tensor scale = ww * (rv + eps).rsqrt();
  const at::Tensor shift = bb - rm * scale;
  return x * scale + shift;
}

LayerNorm LayerNorm::make(Init& init, int64_t dim, double eps) {
  LayerNorm n;
  n.w = init.range({dim}, 0.5, 1.5);
  n.b = init.uniform({dim}, 0.02);
  n.eps = eps;
  return n;
}

RmsNorm RmsNorm::make(Init& init, int64_t dim, double eps) {
  RmsNorm n;
  n.w = init.range({dim}, 0.5, 1.5);
  n.eps = eps;
  return n;
}

at::Tensor RmsNorm::operator()(const at::Tensor& x) const {
  // LlamaRMSNorm.forward (fp32 model: the dtype casts are no-ops and left out).
  SPARSEMAP_COMPOSITE_OP("rms_norm");
  const at::Tensor variance = x.pow(2).mean(-1, true);
  return w * (x * at::rsqrt(variance + eps));
}

Embedding Embedding::make(Init& init, int64_t rows, int64_t dim, double stddev) {
  return Embedding{init.uniform({rows, dim}, stddev)};
}

at::Tensor gelu_new(const at::Tensor& x) {
  // transformers.activations.NewGELUActivation
  SPARSEMAP_COMPOSITE_OP("gelu_new");
  const double c = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + at::tanh(c * (x + 0.044715 * at::pow(x, 3.0))));
}

at::Tensor split_heads(const at::Tensor& x, int64_t heads) {
  const int64_t b = x.size(0), l = x.size(1), d = x.size(2) / heads;
  return x.view({b, l, heads, d}).permute({0, 2, 1, 3});
}

at::Tensor merge_heads(const at::Tensor& x) {
  const int64_t b = x.size(0), h = x.size(1), l = x.size(2), d = x.size(3);
  return x.permute({0, 2, 1, 3}).contiguous().view({b, l, h * d});
}

at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                     const at::Tensor& mask) {
  at::Tensor scores = at::matmul(q, k.transpose(-1, -2));
  scores = scores / std::sqrt(static_cast<double>(q.size(-1)));
  if (mask.defined()) scores = scores + mask;
  const at::Tensor probs = at::softmax(scores, -1);
  return at::matmul(probs, v);
}

at::Tensor Bottleneck::operator()(const at::Tensor& x) const {
  // torchvision.models.resnet.Bottleneck.forward
  at::Tensor out = n1(c1(x));
  out.relu_();
  out = n2(c2(out));
  out.relu_();
  out = n3(c3(out));
  const at::Tensor identity = has_down ? down_norm(down(x)) : x;
  out.add_(identity);
  out.relu_();
  return out;
}

ResNetTrunk ResNetTrunk::make(Init& init, int64_t stem, std::vector<int64_t> widths,
                              std::vector<int64_t> blocks, bool frozen_norm) {
  ResNetTrunk t;
  t.conv1 = Conv2d::make(init, 3, stem, 7, 2, 3);
  t.bn1 = Norm2d::make(init, stem, frozen_norm);
  int64_t in = stem;
  for (size_t s = 0; s < widths.size(); ++s) {
    std::vector<Bottleneck> stage;
    const int64_t width = widths[s], out = widths[s] * 4;
    for (int64_t i = 0; i < blocks[s]; ++i) {
      const int64_t stride = (i == 0 && s > 0) ? 2 : 1;
      Bottleneck b;
      b.c1 = Conv2d::make(init, in, width, 1);
      b.n1 = Norm2d::make(init, width, frozen_norm);
      b.c2 = Conv2d::make(init, width, width, 3, stride, 1);
      b.n2 = Norm2d::make(init, width, frozen_norm);
      b.c3 = Conv2d::make(init, width, out, 1);
      // A small last scale keeps the residual sum's magnitude steady through the stages.
      b.n3 = Norm2d::make(init, out, frozen_norm);
      b.n3.w = b.n3.w * 0.2;
      if (i == 0) {
        b.has_down = true;
        b.down = Conv2d::make(init, in, out, 1, stride);
        b.down_norm = Norm2d::make(init, out, frozen_norm);
      }
      stage.push_back(std::move(b));
      in = out;
    }
    t.stages.push_back(std::move(stage));
  }
  return t;
}

std::vector<at::Tensor> ResNetTrunk::operator()(const at::Tensor& x) const {
  at::Tensor h = bn1(conv1(x));
  h.relu_();
  h = at::max_pool2d(h, {3, 3}, {2, 2}, {1, 1});
  std::vector<at::Tensor> outs;
  for (const auto& stage : stages) {
    for (const Bottleneck& b : stage) h = b(h);
    outs.push_back(h);
  }
  return outs;
}

}  // namespace sparsemap::ml::nongemm
