// Vision transformers: vit-b16/-l16/-h14 (HF ViTForImageClassification) and swin-t/-s/-b (HF
// SwinForImageClassification), operator by operator as transformers 4.3x runs them in eval
// mode. Dropout and drop-path are identities at inference and left out.
#include "layers.h"
#include "model.h"

namespace sparsemap::ml::nongemm {
namespace {

struct VitConfig {
  int64_t hidden, layers, heads, inter, patch, labels;
};

struct VitLayer {
  LayerNorm ln_before, ln_after;
  Linear q, k, v, attn_out, inter, out;
};

class Vit : public Model {
 public:
  explicit Vit(const ResolvedOptions& o) : init_(o.seed) {
    if (o.tiny)
      cfg_ = {32, 2, 2, 64, 8, 10};
    else if (o.model == "vit-l16")
      cfg_ = {1024, 24, 16, 4096, 16, 1000};
    else if (o.model == "vit-h14")
      cfg_ = {1280, 32, 16, 5120, 14, 1000};
    else
      cfg_ = {768, 12, 12, 3072, 16, 1000};
    weight_ = layer_weight(o.layers_full, o.layers_run);
    const int64_t h = cfg_.hidden, run = o.layers_run > 0 ? o.layers_run : cfg_.layers;
    const int64_t patches = (o.image_h / cfg_.patch) * (o.image_w / cfg_.patch);
    const double eps = 1e-12;
    proj_ = Conv2d::make(init_, 3, h, cfg_.patch, cfg_.patch, 0, 1, true);
    cls_ = init_.uniform({1, 1, h}, 0.02);
    pos_ = init_.uniform({1, patches + 1, h}, 0.02);
    for (int64_t i = 0; i < run; ++i) {
      VitLayer l;
      l.ln_before = LayerNorm::make(init_, h, eps), l.ln_after = LayerNorm::make(init_, h, eps);
      l.q = Linear::make(init_, h, h), l.k = Linear::make(init_, h, h);
      l.v = Linear::make(init_, h, h), l.attn_out = Linear::make(init_, h, h);
      l.inter = Linear::make(init_, h, cfg_.inter), l.out = Linear::make(init_, cfg_.inter, h);
      layers_.push_back(std::move(l));
    }
    ln_ = LayerNorm::make(init_, h, eps);
    classifier_ = Linear::make(init_, h, cfg_.labels);
    image_ = init_.range({o.batch, 3, o.image_h, o.image_w}, -1.0, 1.0);
  }

  at::Tensor forward() override {
    // ViTEmbeddings
    at::Tensor x = proj_(image_).flatten(2).transpose(1, 2);
    const at::Tensor cls = cls_.expand({x.size(0), -1, -1});
    at::Tensor h = at::cat({cls, x}, 1) + pos_;
    {
      ScaledRegion region(weight_);
      for (const VitLayer& l : layers_) {
        const at::Tensor n = l.ln_before(h);
        const at::Tensor q = l.q(n);
        const at::Tensor k = split_heads(l.k(n), cfg_.heads);
        const at::Tensor v = split_heads(l.v(n), cfg_.heads);
        const at::Tensor ctx = merge_heads(attention(split_heads(q, cfg_.heads), k, v));
        h = l.attn_out(ctx) + h;
        const at::Tensor i = at::gelu(l.inter(l.ln_after(h)));
        h = l.out(i) + h;
      }
    }
    return classifier_(ln_(h).select(1, 0));
  }

 private:
  Init init_;
  VitConfig cfg_;
  double weight_ = 1;
  Conv2d proj_;
  at::Tensor cls_, pos_;
  std::vector<VitLayer> layers_;
  LayerNorm ln_;
  Linear classifier_;
  at::Tensor image_;
};

// ---- Swin ---------------------------------------------------------------------------------

struct SwinConfig {
  int64_t embed;
  std::vector<int64_t> depths, heads;
  int64_t window, patch, labels;
};

struct SwinBlock {
  int64_t heads = 1, window = 7, shift = 0;
  LayerNorm ln_before, ln_after;
  Linear q, k, v, attn_out, inter, out;
  at::Tensor bias_table;  // [(2w-1)^2, heads]
  at::Tensor bias_index;  // [w*w, w*w], int64
};

struct SwinStage {
  std::vector<SwinBlock> blocks;
  bool merge = false;  // SwinPatchMerging after the blocks
  LayerNorm merge_norm;
  Linear reduction;
};

at::Tensor window_partition(const at::Tensor& x, int64_t w) {
  const int64_t b = x.size(0), h = x.size(1), wd = x.size(2), c = x.size(3);
  return x.view({b, h / w, w, wd / w, w, c})
      .permute({0, 1, 3, 2, 4, 5})
      .contiguous()
      .view({-1, w, w, c});
}

at::Tensor window_reverse(const at::Tensor& windows, int64_t w, int64_t h, int64_t wd) {
  const int64_t c = windows.size(-1);
  return windows.view({-1, h / w, wd / w, w, w, c})
      .permute({0, 1, 3, 2, 4, 5})
      .contiguous()
      .view({-1, h, wd, c});
}

// SwinSelfAttention's relative_position_index buffer.
at::Tensor relative_position_index(int64_t w) {
  at::Tensor idx = at::empty({w * w, w * w}, at::kLong);
  auto a = idx.accessor<int64_t, 2>();
  for (int64_t i = 0; i < w * w; ++i)
    for (int64_t j = 0; j < w * w; ++j) {
      const int64_t dy = i / w - j / w + w - 1, dx = i % w - j % w + w - 1;
      a[i][j] = dy * (2 * w - 1) + dx;
    }
  return idx;
}

class Swin : public Model {
 public:
  explicit Swin(const ResolvedOptions& o) : init_(o.seed) {
    if (o.tiny)
      cfg_ = {16, {2, 2}, {1, 2}, 4, 4, 10};
    else if (o.model == "swin-b")
      cfg_ = {128, {2, 2, 18, 2}, {4, 8, 16, 32}, 7, 4, 1000};
    else if (o.model == "swin-s")
      cfg_ = {96, {2, 2, 18, 2}, {3, 6, 12, 24}, 7, 4, 1000};
    else
      cfg_ = {96, {2, 2, 6, 2}, {3, 6, 12, 24}, 7, 4, 1000};
    proj_ = Conv2d::make(init_, 3, cfg_.embed, cfg_.patch, cfg_.patch, 0, 1, true);
    embed_norm_ = LayerNorm::make(init_, cfg_.embed);
    int64_t dim = cfg_.embed, res = o.image_h / cfg_.patch;
    for (size_t s = 0; s < cfg_.depths.size(); ++s) {
      SwinStage stage;
      for (int64_t i = 0; i < cfg_.depths[s]; ++i) {
        SwinBlock b;
        b.heads = cfg_.heads[s];
        // SwinLayer.set_shift_and_window_size: no shift once a window covers the map.
        b.window = std::min(cfg_.window, res);
        b.shift = (i % 2 == 1 && res > cfg_.window) ? cfg_.window / 2 : 0;
        b.ln_before = LayerNorm::make(init_, dim), b.ln_after = LayerNorm::make(init_, dim);
        b.q = Linear::make(init_, dim, dim), b.k = Linear::make(init_, dim, dim);
        b.v = Linear::make(init_, dim, dim), b.attn_out = Linear::make(init_, dim, dim);
        b.inter = Linear::make(init_, dim, 4 * dim), b.out = Linear::make(init_, 4 * dim, dim);
        b.bias_table = init_.uniform({(2 * b.window - 1) * (2 * b.window - 1), b.heads}, 0.02);
        b.bias_index = relative_position_index(b.window);
        stage.blocks.push_back(std::move(b));
      }
      if (s + 1 < cfg_.depths.size()) {
        stage.merge = true;
        stage.merge_norm = LayerNorm::make(init_, 4 * dim);
        stage.reduction = Linear::make(init_, 4 * dim, 2 * dim, false);
        dim *= 2, res /= 2;
      }
      stages_.push_back(std::move(stage));
    }
    ln_ = LayerNorm::make(init_, dim);
    classifier_ = Linear::make(init_, dim, cfg_.labels);
    image_ = init_.range({o.batch, 3, o.image_h, o.image_w}, -1.0, 1.0);
  }

  at::Tensor forward() override {
    at::Tensor x = proj_(image_);
    int64_t h = x.size(2), w = x.size(3);
    x = embed_norm_(x.flatten(2).transpose(1, 2));
    for (const SwinStage& stage : stages_) {
      for (const SwinBlock& b : stage.blocks) x = block(b, x, h, w);
      if (stage.merge) {
        x = merge(stage, x, h, w);
        h /= 2, w /= 2;
      }
    }
    x = ln_(x);
    x = at::flatten(at::adaptive_avg_pool1d(x.transpose(1, 2), {1}), 1);
    return classifier_(x);
  }

 private:
  // SwinLayer.get_attn_mask (computed on every forward, as HF does).
  static at::Tensor attn_mask(const SwinBlock& b, int64_t h, int64_t w) {
    if (b.shift == 0) return {};
    const at::Tensor img = at::zeros({1, h, w, 1});
    const int64_t ws = b.window, s = b.shift;
    const int64_t bounds[3][2] = {{0, -ws}, {-ws, -s}, {-s, INT64_MAX}};
    double count = 0;
    for (const auto& hs : bounds)
      for (const auto& wsl : bounds) {
        img.slice(1, hs[0] < 0 ? h + hs[0] : hs[0], hs[1] < 0 ? h + hs[1] : std::min(hs[1], h))
            .slice(2, wsl[0] < 0 ? w + wsl[0] : wsl[0],
                   wsl[1] < 0 ? w + wsl[1] : std::min(wsl[1], w))
            .fill_(count);
        count += 1;
      }
    const at::Tensor windows = window_partition(img, ws).view({-1, ws * ws});
    at::Tensor mask = windows.unsqueeze(1) - windows.unsqueeze(2);
    return mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0);
  }

  static at::Tensor block(const SwinBlock& b, const at::Tensor& x, int64_t h, int64_t w) {
    const int64_t batch = x.size(0), c = x.size(2), ws = b.window;
    const at::Tensor shortcut = x;
    at::Tensor y = b.ln_before(x).view({batch, h, w, c});
    const int64_t pad_r = (ws - w % ws) % ws, pad_b = (ws - h % ws) % ws;
    y = at::pad(y, {0, 0, 0, pad_r, 0, pad_b});
    const int64_t hp = y.size(1), wp = y.size(2);
    if (b.shift > 0) y = at::roll(y, {-b.shift, -b.shift}, {1, 2});
    const at::Tensor windows = window_partition(y, ws).view({-1, ws * ws, c});
    at::Tensor mask = attn_mask(b, hp, wp);
    if (mask.defined()) mask = mask.to(at::kFloat);
    // SwinSelfAttention
    const at::Tensor q = split_heads(b.q(windows), b.heads);
    const at::Tensor k = split_heads(b.k(windows), b.heads);
    const at::Tensor v = split_heads(b.v(windows), b.heads);
    at::Tensor scores = at::matmul(q, k.transpose(-1, -2));
    scores = scores / std::sqrt(static_cast<double>(q.size(-1)));
    at::Tensor bias = b.bias_table.index({b.bias_index.view({-1})});
    bias = bias.view({ws * ws, ws * ws, -1}).permute({2, 0, 1}).contiguous();
    scores = scores + bias.unsqueeze(0);
    if (mask.defined()) {
      const int64_t nw = mask.size(0), n = ws * ws;
      scores = scores.view({-1, nw, b.heads, n, n}) + mask.unsqueeze(1).unsqueeze(0);
      scores = scores.view({-1, b.heads, n, n});
    }
    const at::Tensor ctx = merge_heads(at::matmul(at::softmax(scores, -1), v));
    // SwinSelfOutput, window reverse and the residuals
    const at::Tensor attn = b.attn_out(ctx).view({-1, ws, ws, c});
    at::Tensor back = window_reverse(attn, ws, hp, wp);
    if (b.shift > 0) back = at::roll(back, {b.shift, b.shift}, {1, 2});
    if (pad_r > 0 || pad_b > 0) back = back.slice(1, 0, h).slice(2, 0, w).contiguous();
    const at::Tensor hidden = shortcut + back.view({batch, h * w, c});
    return hidden + b.out(at::gelu(b.inter(b.ln_after(hidden))));
  }

  // SwinPatchMerging
  static at::Tensor merge(const SwinStage& s, const at::Tensor& x, int64_t h, int64_t w) {
    const int64_t batch = x.size(0), c = x.size(2);
    const at::Tensor f = x.view({batch, h, w, c});
    const at::Tensor f0 = f.slice(1, 0, h, 2).slice(2, 0, w, 2);
    const at::Tensor f1 = f.slice(1, 1, h, 2).slice(2, 0, w, 2);
    const at::Tensor f2 = f.slice(1, 0, h, 2).slice(2, 1, w, 2);
    const at::Tensor f3 = f.slice(1, 1, h, 2).slice(2, 1, w, 2);
    const at::Tensor cat = at::cat({f0, f1, f2, f3}, -1).view({batch, -1, 4 * c});
    return s.reduction(s.merge_norm(cat));
  }

  Init init_;
  SwinConfig cfg_;
  Conv2d proj_;
  LayerNorm embed_norm_;
  std::vector<SwinStage> stages_;
  LayerNorm ln_;
  Linear classifier_;
  at::Tensor image_;
};

}  // namespace

std::unique_ptr<Model> make_vit(const ResolvedOptions& o) { return std::make_unique<Vit>(o); }
std::unique_ptr<Model> make_swin(const ResolvedOptions& o) { return std::make_unique<Swin>(o); }

}  // namespace sparsemap::ml::nongemm
