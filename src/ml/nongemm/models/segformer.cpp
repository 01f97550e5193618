// segformer-b0: HF SegformerForSemanticSegmentation (nvidia/segformer-b0-finetuned-ade-512-512)
// operator by operator as transformers 4.3x runs it in eval mode: Mix Transformer encoder
// (overlapping patch embeddings, efficient self-attention with spatial reduction, Mix-FFN with
// a depthwise conv) and the all-MLP decode head. The Mix-FFN's depthwise conv (reshape, conv,
// flatten) is one composite GEMM operator; dropout and drop-path are identities.
#include <algorithm>

#include "layers.h"
#include "model.h"

namespace sparsemap::ml::nongemm {
namespace {

struct SegformerConfig {
  std::vector<int64_t> hidden, depths, heads, sr, patch, strides;
  int64_t decoder, labels;
};

struct SegLayer {
  LayerNorm ln1, ln2, sr_norm;
  Linear q, k, v, out, dense1, dense2;
  Conv2d sr, dwconv;
  int64_t heads = 1, sr_ratio = 1;
};

struct SegStage {
  Conv2d patch;
  LayerNorm patch_norm, norm;
  std::vector<SegLayer> layers;
};

class Segformer : public Model {
 public:
  explicit Segformer(const ResolvedOptions& o) : init_(o.seed) {
    cfg_ = o.tiny ? SegformerConfig{{8, 16}, {1, 1}, {1, 2}, {2, 1}, {7, 3}, {4, 2}, 16, 5}
                  : SegformerConfig{{32, 64, 160, 256}, {2, 2, 2, 2}, {1, 2, 5, 8}, {8, 4, 2, 1},
                                    {7, 3, 3, 3},       {4, 2, 2, 2}, 256,          150};
    int64_t in = 3;
    for (size_t s = 0; s < cfg_.hidden.size(); ++s) {
      const int64_t d = cfg_.hidden[s];
      SegStage st;
      st.patch =
          Conv2d::make(init_, in, d, cfg_.patch[s], cfg_.strides[s], cfg_.patch[s] / 2, 1, true);
      st.patch_norm = LayerNorm::make(init_, d);
      for (int64_t i = 0; i < cfg_.depths[s]; ++i) {
        SegLayer l;
        l.heads = cfg_.heads[s], l.sr_ratio = cfg_.sr[s];
        l.ln1 = LayerNorm::make(init_, d, 1e-6), l.ln2 = LayerNorm::make(init_, d, 1e-6);
        l.q = Linear::make(init_, d, d), l.k = Linear::make(init_, d, d);
        l.v = Linear::make(init_, d, d), l.out = Linear::make(init_, d, d);
        if (l.sr_ratio > 1) {
          l.sr = Conv2d::make(init_, d, d, l.sr_ratio, l.sr_ratio, 0, 1, true);
          l.sr_norm = LayerNorm::make(init_, d);
        }
        l.dense1 = Linear::make(init_, d, 4 * d), l.dense2 = Linear::make(init_, 4 * d, d);
        l.dwconv = Conv2d::make(init_, 4 * d, 4 * d, 3, 1, 1, 4 * d, true);
        st.layers.push_back(std::move(l));
      }
      st.norm = LayerNorm::make(init_, d, 1e-6);
      stages_.push_back(std::move(st));
      in = d;
    }
    for (int64_t d : cfg_.hidden) linear_c_.push_back(Linear::make(init_, d, cfg_.decoder));
    const int64_t n = static_cast<int64_t>(cfg_.hidden.size());
    fuse_ = Conv2d::make(init_, n * cfg_.decoder, cfg_.decoder, 1);
    fuse_bn_ = Norm2d::make(init_, cfg_.decoder, /*frozen=*/false);
    classifier_ = Conv2d::make(init_, cfg_.decoder, cfg_.labels, 1, 1, 0, 1, true);
    image_ = init_.range({o.batch, 3, o.image_h, o.image_w}, -2.0, 2.0);
  }

  at::Tensor forward() override {
    const int64_t batch = image_.size(0);
    std::vector<at::Tensor> features;
    at::Tensor x = image_;
    for (const SegStage& st : stages_) {
      // SegformerOverlapPatchEmbeddings
      at::Tensor e = st.patch(x);
      const int64_t h = e.size(2), w = e.size(3);
      at::Tensor hs = st.patch_norm(e.flatten(2).transpose(1, 2));
      for (const SegLayer& l : st.layers) {
        hs = attention_block(l, hs, h, w) + hs;
        hs = mix_ffn(l, l.ln2(hs), h, w) + hs;
      }
      hs = st.norm(hs);
      x = hs.reshape({batch, h, w, -1}).permute({0, 3, 1, 2}).contiguous();
      features.push_back(x);
    }
    // SegformerDecodeHead
    const int64_t out_h = features[0].size(2), out_w = features[0].size(3);
    std::vector<at::Tensor> upsampled;
    for (size_t i = 0; i < features.size(); ++i) {
      const at::Tensor& f = features[i];
      const int64_t h = f.size(2), w = f.size(3);
      at::Tensor m = linear_c_[i](f.flatten(2).transpose(1, 2));
      m = m.permute({0, 2, 1}).reshape({batch, -1, h, w});
      m = at::upsample_bilinear2d(m, {out_h, out_w}, false);
      upsampled.push_back(m);
    }
    std::reverse(upsampled.begin(), upsampled.end());
    at::Tensor hsd = fuse_(at::cat(upsampled, 1));
    hsd = at::relu(fuse_bn_(hsd));
    return classifier_(hsd);
  }

 private:
  // SegformerAttention on the layer-normed input.
  static at::Tensor attention_block(const SegLayer& l, const at::Tensor& x, int64_t h, int64_t w) {
    const at::Tensor n = l.ln1(x);
    const at::Tensor q = split_heads(l.q(n), l.heads);
    at::Tensor kv = n;
    if (l.sr_ratio > 1) {
      const int64_t b = n.size(0), c = n.size(2);
      kv = n.permute({0, 2, 1}).reshape({b, c, h, w});
      kv = l.sr(kv).reshape({b, c, -1}).permute({0, 2, 1});
      kv = l.sr_norm(kv);
    }
    const at::Tensor k = split_heads(l.k(kv), l.heads);
    const at::Tensor v = split_heads(l.v(kv), l.heads);
    return l.out(merge_heads(attention(q, k, v)));
  }

  // SegformerMixFFN: dense1, depthwise conv (composite), GELU, dense2.
  static at::Tensor mix_ffn(const SegLayer& l, const at::Tensor& x, int64_t h, int64_t w) {
    at::Tensor y = l.dense1(x);
    {
      SPARSEMAP_COMPOSITE_OP("depthwise_conv");
      const int64_t b = y.size(0), c = y.size(2);
      y = l.dwconv(y.transpose(1, 2).view({b, c, h, w})).flatten(2).transpose(1, 2);
    }
    return l.dense2(at::gelu(y));
  }

  Init init_;
  SegformerConfig cfg_;
  std::vector<SegStage> stages_;
  std::vector<Linear> linear_c_;
  Conv2d fuse_;
  Norm2d fuse_bn_;
  Conv2d classifier_;
  at::Tensor image_;
};

}  // namespace

std::unique_ptr<Model> make_segformer(const ResolvedOptions& o) {
  return std::make_unique<Segformer>(o);
}

}  // namespace sparsemap::ml::nongemm
