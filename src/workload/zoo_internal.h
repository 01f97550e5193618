// Internal to the zoo: resolved sizes, the per-family builders and the helpers they share.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sparsemap/error.h"
#include "sparsemap/workload/layer.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::workload::zoo_detail {

// ZooOptions after validation, with the model's defaults filled in. Fields that do not apply
// to a model are 0.
struct Sizes {
  int64_t batch = 1;
  int64_t seq_len = 0;     // tokens per sequence (language models)
  int64_t image_size = 0;  // pixels per side (vision models)
};

// Naming convention shared by every builder:
//   - modules carry their framework path ("layer1.0.conv1",
//   "encoder.layer.0.attention.self.query");
//   - a function called inside a module (torch.matmul, +, softmax) is "<module path>.<op>";
//   - a module or function called again inside the same module gets torch.fx's suffix "_1",
//     "_2", ... ("layer1.0.relu", "layer1.0.relu_1"), so every name in a model is unique.
// Dropout, flatten, view/reshape/transpose and split are omitted (no work at inference).

// Appends layers to a model with their dataflow edges (Model::producers). A layer reads the
// tail (the layer appended last; the model input before the first) unless reads() named its
// producers for it. Derived builders add the layer shapes.
template <class Derived>
class ModelBuilder {
 public:
  explicit ModelBuilder(std::string model_name) { model_.name = std::move(model_name); }

  // The layer whose output is the current activation; -1: the model input.
  int tail() const { return tail_; }
  void set_tail(int layer) { tail_ = layer; }
  // The producers of the next layer appended, instead of the tail: layer indices, -1 for the
  // model input (not listed). reads({}) makes it read the model input.
  Derived& reads(std::vector<int> producers) {
    next_ = std::move(producers);
    has_next_ = true;
    return static_cast<Derived&>(*this);
  }
  // Appends `l` with its producers; it becomes the tail. Returns its index.
  int push(Layer l) {
    std::vector<int> from;
    for (int p : has_next_ ? next_ : std::vector<int>{tail_}) {
      SPARSEMAP_ASSERT(p < static_cast<int>(model_.layers.size()));
      bool seen = p < 0;
      for (int q : from) seen = seen || q == p;
      if (!seen) from.push_back(p);
    }
    has_next_ = false;
    model_.layers.push_back(std::move(l));
    model_.producers.push_back(std::move(from));
    tail_ = static_cast<int>(model_.layers.size()) - 1;
    return tail_;
  }

  Model take() { return std::move(model_); }

 private:
  Model model_;
  int tail_ = -1;
  std::vector<int> next_;
  bool has_next_ = false;
};

// Appends the layers of a CNN and tracks its activation, NCHW (square images: H == W). Every
// layer reads the tail; a residual add reads the tail and the layer named by add().
class CnnBuilder : public ModelBuilder<CnnBuilder> {
 public:
  CnnBuilder(std::string model_name, int64_t batch, int64_t channels, int64_t image)
      : ModelBuilder(std::move(model_name)), n_(batch), c_(channels), h_(image), w_(image) {}

  struct Shape {
    int64_t c, h, w;
    bool operator==(const Shape& o) const { return c == o.c && h == o.h && w == o.w; }
  };
  Shape shape() const { return {c_, h_, w_}; }
  // Rewinds to a saved activation (the input of a residual branch).
  void set_shape(Shape s) { c_ = s.c, h_ = s.h, w_ = s.w; }

  // Conv2d on the current activation; groups == channels gives a depthwise conv.
  void conv(std::string name, int64_t c_out, int64_t kernel, int64_t stride, int64_t pad,
            int64_t groups = 1, bool bias = false) {
    Layer l = conv2d(std::move(name), n_, c_, h_, w_, c_out, kernel, stride, pad, groups, bias);
    c_ = c_out, h_ = l.out_y(), w_ = l.out_x();
    push(std::move(l));
  }
  void batch_norm(std::string name) {
    push(nongemm(std::move(name), OpKind::BatchNorm, "batch_norm", nchw()));
  }
  void act(std::string name, std::string op) {
    push(nongemm(std::move(name), OpKind::Activation, std::move(op), nchw()));
  }
  // Residual add of two activations of the current shape: the tail's and `other`'s output.
  void add(std::string name, int other) {
    reads({tail(), other});
    push(nongemm(std::move(name), OpKind::Elementwise, "add", nchw(), 2));
  }
  void pool(std::string name, std::string op, int64_t kernel, int64_t stride, int64_t pad = 0) {
    Layer l = pool2d(std::move(name), std::move(op), n_, c_, h_, w_, kernel, stride, pad);
    h_ = l.out_y(), w_ = l.out_x();
    push(std::move(l));
  }
  // AdaptiveAvgPool2d(1) / mean over H and W.
  void global_avg_pool(std::string name) { pool(std::move(name), "global_avg_pool", h_, 1); }
  // AdaptiveAvgPool2d(out): windows of `stride = H / out` rows and `H - (out-1)*stride` rows,
  // exact when out divides H (torch's windows vary by a row otherwise). Needs H >= out.
  void adaptive_avg_pool(std::string name, int64_t out) {
    SPARSEMAP_ASSERT(h_ >= out);
    const int64_t stride = h_ / out;
    pool(std::move(name), "adaptive_avg_pool", h_ - (out - 1) * stride, stride);
  }
  // Linear on the flattened activation; afterwards the activation is [N, out].
  void linear(std::string name, int64_t out, bool bias = true) {
    push(fc(std::move(name), n_, c_ * h_ * w_, out, bias));
    c_ = out, h_ = 1, w_ = 1, flat_ = true;
  }

 private:
  void push(Layer l) {
    SPARSEMAP_ASSERT(h_ > 0 && w_ > 0);
    ModelBuilder::push(std::move(l));
  }
  std::vector<int64_t> nchw() const {
    if (flat_) return {n_, c_};
    return {n_, c_, h_, w_};
  }

  int64_t n_, c_, h_, w_;
  bool flat_ = false;
};

// Appends the layers of a transformer over `batch` sequences of `seq` tokens. Every layer
// reads the tail unless reads() names its producers (ModelBuilder).
class SeqBuilder : public ModelBuilder<SeqBuilder> {
 public:
  SeqBuilder(std::string model_name, int64_t batch, int64_t seq)
      : ModelBuilder(std::move(model_name)), b_(batch), l_(seq) {}
  int64_t batch() const { return b_; }
  int64_t seq() const { return l_; }
  int64_t tokens() const { return b_ * l_; }

  // nn.Linear / Conv1D over every token: Gemm M = batch*seq, N = out, K = in.
  void linear(std::string name, int64_t in, int64_t out, bool bias) {
    push(gemm(std::move(name), tokens(), out, in, bias));
  }
  // LayerNorm (op "layer_norm") or RMSNorm (op "rms_norm") over [batch, seq, width].
  void norm(std::string name, std::string op, int64_t width) {
    push(nongemm(std::move(name), OpKind::LayerNorm, std::move(op), {b_, l_, width}));
  }
  void act(std::string name, std::string op, int64_t width) {
    push(nongemm(std::move(name), OpKind::Activation, std::move(op), {b_, l_, width}));
  }
  // Elementwise op over [batch, seq, width] with `operands` inputs of that shape.
  void elementwise(std::string name, std::string op, int64_t width, int64_t operands = 2) {
    push(nongemm(std::move(name), OpKind::Elementwise, std::move(op), {b_, l_, width}, operands));
  }
  // Elementwise op over [batch, heads, seq, d].
  void head_elementwise(std::string name, std::string op, int64_t heads, int64_t d,
                        int64_t operands) {
    push(
        nongemm(std::move(name), OpKind::Elementwise, std::move(op), {b_, heads, l_, d}, operands));
  }
  void lookup(std::string name, int64_t lookups, int64_t rows, int64_t width) {
    push(embedding(std::move(name), lookups, rows, width));
  }
  // Attention scores Q x K^T: G = batch*heads, M = N = seq, K = head_dim.
  void scores(std::string name, int64_t heads, int64_t head_dim) {
    push(batched_gemm(std::move(name), b_ * heads, l_, l_, head_dim));
  }
  // Elementwise op on the scores [batch, heads, seq, seq] (scale, mask, bias).
  void score_op(std::string name, std::string op, int64_t heads, int64_t operands) {
    head_elementwise(std::move(name), std::move(op), heads, l_, operands);
  }
  void softmax(std::string name, int64_t heads) {
    push(nongemm(std::move(name), OpKind::Softmax, "softmax", {b_, heads, l_, l_}));
  }
  // Probabilities x V: G = batch*heads, M = seq, N = head_dim, K = seq.
  void context(std::string name, int64_t heads, int64_t head_dim) {
    push(batched_gemm(std::move(name), b_ * heads, l_, head_dim, l_));
  }

 private:
  int64_t b_, l_;
};

// Builders, one per model (zoo_cnn.cpp, zoo_transformer.cpp, zoo_recsys.cpp). They take
// validated sizes and never throw.
Model build_resnet18(const Sizes& s);
Model build_resnet50(const Sizes& s);
Model build_mobilenet_v2(const Sizes& s);
Model build_vgg16(const Sizes& s);
Model build_mnasnet(const Sizes& s);
Model build_bert_base(const Sizes& s);
Model build_bert_large(const Sizes& s);
Model build_gpt2(const Sizes& s);
Model build_gpt2_xl(const Sizes& s);
Model build_vit_b16(const Sizes& s);
Model build_t5_base(const Sizes& s);
Model build_llama2_7b(const Sizes& s);
Model build_dlrm(const Sizes& s);
Model build_ncf(const Sizes& s);

}  // namespace sparsemap::workload::zoo_detail
