// bert-base (HF BertModel with its pooler) and the GPT-2 family (HF GPT2Model, eager
// attention), operator by operator as transformers 4.3x runs them in eval mode. Dropout is an
// identity at inference and left out; HF's Conv1D (addmm) is written as one linear.
#include <limits>

#include "layers.h"
#include "model.h"

namespace sparsemap::ml::nongemm {
namespace {

struct BertConfig {
  int64_t vocab, hidden, layers, heads, inter, max_pos;
};

struct BertLayer {
  Linear q, k, v, attn_out, inter, out;
  LayerNorm attn_ln, out_ln;
};

class Bert : public Model {
 public:
  explicit Bert(const ResolvedOptions& o) : init_(o.seed) {
    cfg_ = o.tiny ? BertConfig{100, 32, 2, 2, 64, 64} : BertConfig{30522, 768, 12, 12, 3072, 512};
    weight_ = layer_weight(o.layers_full, o.layers_run);
    const int64_t h = cfg_.hidden, run = o.layers_run > 0 ? o.layers_run : cfg_.layers;
    const double eps = 1e-12;
    word_ = Embedding::make(init_, cfg_.vocab, h);
    pos_ = Embedding::make(init_, cfg_.max_pos, h);
    type_ = Embedding::make(init_, 2, h);
    emb_ln_ = LayerNorm::make(init_, h, eps);
    for (int64_t i = 0; i < run; ++i) {
      BertLayer l;
      l.q = Linear::make(init_, h, h), l.k = Linear::make(init_, h, h);
      l.v = Linear::make(init_, h, h), l.attn_out = Linear::make(init_, h, h);
      l.attn_ln = LayerNorm::make(init_, h, eps);
      l.inter = Linear::make(init_, h, cfg_.inter), l.out = Linear::make(init_, cfg_.inter, h);
      l.out_ln = LayerNorm::make(init_, h, eps);
      layers_.push_back(std::move(l));
    }
    pooler_ = Linear::make(init_, h, h);
    position_ids_ = at::arange(cfg_.max_pos, at::kLong).unsqueeze(0);
    token_type_ids_ = at::zeros({1, cfg_.max_pos}, at::kLong);
    input_ids_ = init_.ids({o.batch, o.seq_len}, cfg_.vocab);
  }

  at::Tensor forward() override {
    const int64_t b = input_ids_.size(0), len = input_ids_.size(1);
    // BertModel.forward: mask, token types and the extended (additive) mask.
    const at::Tensor mask = at::ones({b, len});
    const at::Tensor token_types = token_type_ids_.slice(1, 0, len).expand({b, len});
    at::Tensor ext = mask.unsqueeze(1).unsqueeze(2).to(at::kFloat);
    ext = at::rsub(ext, 1.0) * std::numeric_limits<float>::lowest();
    // BertEmbeddings
    const at::Tensor pos_ids = position_ids_.slice(1, 0, len);
    at::Tensor h = word_(input_ids_) + type_(token_types);
    h.add_(pos_(pos_ids));
    h = emb_ln_(h);
    {
      ScaledRegion region(weight_);
      for (const BertLayer& l : layers_) {
        const at::Tensor q = l.q(h);
        const at::Tensor k = split_heads(l.k(h), cfg_.heads);
        const at::Tensor v = split_heads(l.v(h), cfg_.heads);
        const at::Tensor ctx = merge_heads(attention(split_heads(q, cfg_.heads), k, v, ext));
        const at::Tensor a = l.attn_ln(l.attn_out(ctx) + h);
        const at::Tensor i = at::gelu(l.inter(a));
        h = l.out_ln(l.out(i) + a);
      }
    }
    // BertPooler
    return at::tanh(pooler_(h.select(1, 0)));
  }

 private:
  Init init_;
  BertConfig cfg_;
  double weight_ = 1;
  Embedding word_, pos_, type_;
  LayerNorm emb_ln_;
  std::vector<BertLayer> layers_;
  Linear pooler_;
  at::Tensor position_ids_, token_type_ids_, input_ids_;
};

struct Gpt2Config {
  int64_t vocab, positions, embd, layers, heads;
};

struct Gpt2Block {
  LayerNorm ln1, ln2;
  Linear c_attn, attn_proj, c_fc, mlp_proj;
};

class Gpt2 : public Model {
 public:
  explicit Gpt2(const ResolvedOptions& o) : init_(o.seed) {
    if (o.tiny)
      cfg_ = {100, 64, 32, 2, 2};
    else if (o.model == "gpt2-large")
      cfg_ = {50257, 1024, 1280, 36, 20};
    else if (o.model == "gpt2-xl")
      cfg_ = {50257, 1024, 1600, 48, 25};
    else
      cfg_ = {50257, 1024, 768, 12, 12};
    weight_ = layer_weight(o.layers_full, o.layers_run);
    const int64_t e = cfg_.embd, run = o.layers_run > 0 ? o.layers_run : cfg_.layers;
    wte_ = Embedding::make(init_, cfg_.vocab, e);
    wpe_ = Embedding::make(init_, cfg_.positions, e, 0.01);
    for (int64_t i = 0; i < run; ++i) {
      Gpt2Block b;
      b.ln1 = LayerNorm::make(init_, e), b.ln2 = LayerNorm::make(init_, e);
      b.c_attn = Linear::make(init_, e, 3 * e), b.attn_proj = Linear::make(init_, e, e);
      b.c_fc = Linear::make(init_, e, 4 * e), b.mlp_proj = Linear::make(init_, 4 * e, e);
      blocks_.push_back(std::move(b));
    }
    ln_f_ = LayerNorm::make(init_, e);
    causal_ = at::ones({cfg_.positions, cfg_.positions}, at::kBool)
                  .tril()
                  .view({1, 1, cfg_.positions, cfg_.positions});
    input_ids_ = init_.ids({o.batch, o.seq_len}, cfg_.vocab);
  }

  at::Tensor forward() override {
    const int64_t len = input_ids_.size(1), e = cfg_.embd;
    // GPT2Model.forward
    const at::Tensor ids = input_ids_.view({-1, len});
    const at::Tensor pos = at::arange(0, len, at::kLong).unsqueeze(0).view({-1, len});
    at::Tensor h = wte_(ids) + wpe_(pos);
    {
      ScaledRegion region(weight_);
      for (const Gpt2Block& b : blocks_) {
        at::Tensor residual = h;
        const std::vector<at::Tensor> qkv = b.c_attn(b.ln1(h)).split(e, 2);
        const at::Tensor q = split_heads(qkv[0], cfg_.heads);
        const at::Tensor k = split_heads(qkv[1], cfg_.heads);
        const at::Tensor v = split_heads(qkv[2], cfg_.heads);
        // GPT2Attention._attn
        at::Tensor w = at::matmul(q, k.transpose(-1, -2));
        w = w / at::full({}, std::sqrt(static_cast<double>(v.size(-1))));
        const at::Tensor causal = causal_.slice(2, 0, len).slice(3, 0, len);
        const at::Tensor mask_value = at::full({}, std::numeric_limits<float>::lowest());
        w = at::where(causal, w.to(at::kFloat), mask_value);
        w = at::softmax(w, -1).to(at::kFloat);
        const at::Tensor a = b.attn_proj(merge_heads(at::matmul(w, v)));
        h = a + residual;
        residual = h;
        h = residual + b.mlp_proj(gelu_new(b.c_fc(b.ln2(h))));
      }
    }
    return ln_f_(h).view({-1, len, e});
  }

 private:
  Init init_;
  Gpt2Config cfg_;
  double weight_ = 1;
  Embedding wte_, wpe_;
  std::vector<Gpt2Block> blocks_;
  LayerNorm ln_f_;
  at::Tensor causal_, input_ids_;
};

}  // namespace

std::unique_ptr<Model> make_bert(const ResolvedOptions& o) { return std::make_unique<Bert>(o); }
std::unique_ptr<Model> make_gpt2(const ResolvedOptions& o) { return std::make_unique<Gpt2>(o); }

}  // namespace sparsemap::ml::nongemm
