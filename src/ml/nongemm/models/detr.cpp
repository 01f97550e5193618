// detr-r50: HF DetrForObjectDetection (facebook/detr-resnet-50), operator by operator as
// transformers 4.3x runs it in eval mode: timm ResNet-50 with frozen batch norm, sine position
// embeddings for every backbone stage, a 6+6-layer post-norm transformer with 100 queries, and
// the class and box heads. Dropout is an identity at inference and left out.
#include <cmath>
#include <limits>

#include "layers.h"
#include "model.h"

namespace sparsemap::ml::nongemm {
namespace {

struct DetrConfig {
  int64_t stem;
  std::vector<int64_t> widths, blocks;
  int64_t d_model, heads, enc_layers, dec_layers, ffn, queries, labels;
};

struct DetrAttention {
  Linear q, k, v, out;
  int64_t heads = 8;
  double scaling = 1;
};

struct DetrEncoderLayer {
  DetrAttention self_attn;
  LayerNorm self_ln, final_ln;
  Linear fc1, fc2;
};

struct DetrDecoderLayer {
  DetrAttention self_attn, cross_attn;
  LayerNorm self_ln, cross_ln, final_ln;
  Linear fc1, fc2;
};

DetrAttention make_attention(Init& init, int64_t d, int64_t heads) {
  DetrAttention a;
  a.q = Linear::make(init, d, d), a.k = Linear::make(init, d, d);
  a.v = Linear::make(init, d, d), a.out = Linear::make(init, d, d);
  a.heads = heads;
  a.scaling = 1.0 / std::sqrt(static_cast<double>(d / heads));
  return a;
}

// DetrAttention._shape
at::Tensor shape_heads(const at::Tensor& x, int64_t len, int64_t batch, int64_t heads) {
  return x.view({batch, len, heads, x.size(-1) / heads}).transpose(1, 2).contiguous();
}

// DetrAttention.forward. `pos` is added to the queries (and keys, for self-attention);
// `kv`/`kv_pos` are the cross-attention's keys/values and their position embeddings.
at::Tensor attend(const DetrAttention& a, const at::Tensor& hidden, const at::Tensor& pos,
                  const at::Tensor& mask, const at::Tensor& kv = {},
                  const at::Tensor& kv_pos = {}) {
  const int64_t batch = hidden.size(0), tgt = hidden.size(1), d = hidden.size(2);
  const int64_t hd = d / a.heads;
  const at::Tensor original = hidden;
  const at::Tensor h = pos.defined() ? hidden + pos : hidden;
  const bool cross = kv.defined();
  const at::Tensor kv_in = cross ? (kv_pos.defined() ? kv + kv_pos : kv) : h;
  const at::Tensor q = a.q(h) * a.scaling;
  at::Tensor k = shape_heads(a.k(kv_in), -1, batch, a.heads);
  at::Tensor v = shape_heads(a.v(cross ? kv : original), -1, batch, a.heads);
  const at::Tensor qs = shape_heads(q, tgt, batch, a.heads).view({batch * a.heads, -1, hd});
  k = k.view({batch * a.heads, -1, hd});
  v = v.view({batch * a.heads, -1, hd});
  const int64_t src = k.size(1);
  at::Tensor w = at::bmm(qs, k.transpose(1, 2));
  if (mask.defined()) {
    w = w.view({batch, a.heads, tgt, src}) + mask;
    w = w.view({batch * a.heads, tgt, src});
  }
  w = at::softmax(w, -1);
  at::Tensor out = at::bmm(w, v).view({batch, a.heads, tgt, hd}).transpose(1, 2);
  return a.out(out.reshape({batch, tgt, d}));
}

// transformers' _expand_mask: [B, S] (1 = keep) -> additive [B, 1, T, S].
at::Tensor expand_mask(const at::Tensor& mask, int64_t tgt) {
  const int64_t b = mask.size(0), src = mask.size(1);
  const at::Tensor expanded =
      mask.unsqueeze(1).unsqueeze(2).expand({b, 1, tgt, src}).to(at::kFloat);
  const at::Tensor inverted = at::rsub(expanded, 1.0);
  return inverted.masked_fill(inverted.to(at::kBool), std::numeric_limits<float>::lowest());
}

// DetrSinePositionEmbedding(embedding_dim = d_model / 2, temperature 10000, normalize).
at::Tensor sine_position(const at::Tensor& mask, int64_t dim) {
  const double scale = 2 * M_PI;
  at::Tensor y = mask.cumsum(1, at::kFloat), x = mask.cumsum(2, at::kFloat);
  y = y / (y.slice(1, -1) + 1e-6) * scale;
  x = x / (x.slice(2, -1) + 1e-6) * scale;
  at::Tensor dim_t = at::arange(dim, at::kFloat);
  dim_t = at::pow(10000.0, 2 * at::div(dim_t, 2, "floor") / static_cast<double>(dim));
  at::Tensor px = x.unsqueeze(3) / dim_t, py = y.unsqueeze(3) / dim_t;
  px = at::stack({px.slice(3, 0, INT64_MAX, 2).sin(), px.slice(3, 1, INT64_MAX, 2).cos()}, 4)
           .flatten(3);
  py = at::stack({py.slice(3, 0, INT64_MAX, 2).sin(), py.slice(3, 1, INT64_MAX, 2).cos()}, 4)
           .flatten(3);
  return at::cat({py, px}, 3).permute({0, 3, 1, 2});
}

class Detr : public Model {
 public:
  explicit Detr(const ResolvedOptions& o) : init_(o.seed) {
    cfg_ = o.tiny ? DetrConfig{8, {8, 16, 16, 32}, {1, 1, 1, 1}, 32, 2, 1, 1, 64, 10, 5}
                  : DetrConfig{64, {64, 128, 256, 512}, {3, 4, 6, 3}, 256, 8, 6, 6, 2048, 100, 91};
    const int64_t d = cfg_.d_model;
    trunk_ = ResNetTrunk::make(init_, cfg_.stem, cfg_.widths, cfg_.blocks, /*frozen_norm=*/true);
    input_proj_ = Conv2d::make(init_, trunk_.out_channels(3), d, 1, 1, 0, 1, true);
    for (int64_t i = 0; i < cfg_.enc_layers; ++i) {
      DetrEncoderLayer l;
      l.self_attn = make_attention(init_, d, cfg_.heads);
      l.self_ln = LayerNorm::make(init_, d), l.final_ln = LayerNorm::make(init_, d);
      l.fc1 = Linear::make(init_, d, cfg_.ffn), l.fc2 = Linear::make(init_, cfg_.ffn, d);
      encoder_.push_back(std::move(l));
    }
    for (int64_t i = 0; i < cfg_.dec_layers; ++i) {
      DetrDecoderLayer l;
      l.self_attn = make_attention(init_, d, cfg_.heads);
      l.cross_attn = make_attention(init_, d, cfg_.heads);
      l.self_ln = LayerNorm::make(init_, d), l.cross_ln = LayerNorm::make(init_, d);
      l.final_ln = LayerNorm::make(init_, d);
      l.fc1 = Linear::make(init_, d, cfg_.ffn), l.fc2 = Linear::make(init_, cfg_.ffn, d);
      decoder_.push_back(std::move(l));
    }
    dec_ln_ = LayerNorm::make(init_, d);
    query_pos_ = init_.uniform({cfg_.queries, d}, 1.0);
    class_head_ = Linear::make(init_, d, cfg_.labels + 1);
    bbox_head_ = {Linear::make(init_, d, d), Linear::make(init_, d, d), Linear::make(init_, d, 4)};
    image_ = init_.range({o.batch, 3, o.image_h, o.image_w}, -2.0, 2.0);
  }

  at::Tensor forward() override {
    const int64_t batch = image_.size(0), d = cfg_.d_model;
    const at::Tensor pixel_mask = at::ones({batch, image_.size(2), image_.size(3)});
    // DetrConvEncoder + DetrConvModel: masks and position embeddings for every stage.
    const std::vector<at::Tensor> features = trunk_(image_);
    at::Tensor mask, pos;
    for (const at::Tensor& f : features) {
      mask = at::upsample_nearest2d(pixel_mask.unsqueeze(0).to(at::kFloat), {f.size(2), f.size(3)})
                 .to(at::kBool)
                 .select(0, 0);
      pos = sine_position(mask, d / 2).to(f.scalar_type());
    }
    // DetrModel
    const at::Tensor projected = input_proj_(features.back());
    at::Tensor hidden = projected.flatten(2).permute({0, 2, 1});
    const at::Tensor pos_flat = pos.flatten(2).permute({0, 2, 1});
    const at::Tensor mask_flat = mask.flatten(1);
    const at::Tensor enc_mask = expand_mask(mask_flat, mask_flat.size(1));
    for (const DetrEncoderLayer& l : encoder_) {
      hidden = l.self_ln(hidden + attend(l.self_attn, hidden, pos_flat, enc_mask));
      hidden = l.final_ln(hidden + l.fc2(at::relu(l.fc1(hidden))));
    }
    const at::Tensor memory = hidden;
    const at::Tensor query_pos = query_pos_.unsqueeze(0).repeat({batch, 1, 1});
    at::Tensor q = at::zeros_like(query_pos);
    const at::Tensor cross_mask = expand_mask(mask_flat, cfg_.queries);
    for (const DetrDecoderLayer& l : decoder_) {
      q = l.self_ln(q + attend(l.self_attn, q, query_pos, {}));
      q = l.cross_ln(q + attend(l.cross_attn, q, query_pos, cross_mask, memory, pos_flat));
      q = l.final_ln(q + l.fc2(at::relu(l.fc1(q))));
    }
    q = dec_ln_(q);
    // DetrForObjectDetection heads
    const at::Tensor logits = class_head_(q);
    at::Tensor box = at::relu(bbox_head_[0](q));
    box = at::relu(bbox_head_[1](box));
    box = bbox_head_[2](box).sigmoid();
    return logits;
  }

 private:
  Init init_;
  DetrConfig cfg_;
  ResNetTrunk trunk_;
  Conv2d input_proj_;
  std::vector<DetrEncoderLayer> encoder_;
  std::vector<DetrDecoderLayer> decoder_;
  LayerNorm dec_ln_;
  at::Tensor query_pos_;
  Linear class_head_;
  std::vector<Linear> bbox_head_;
  at::Tensor image_;
};

}  // namespace

std::unique_ptr<Model> make_detr(const ResolvedOptions& o) { return std::make_unique<Detr>(o); }

}  // namespace sparsemap::ml::nongemm
