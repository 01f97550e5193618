// llama2-7b (HF LlamaForCausalLM, transformers 4.31) and mixtral-8x7b (HF MixtralForCausalLM,
// 4.36, eager attention), operator by operator. Both run `layers_run` of their 32 decoder
// layers inside a ScaledRegion, so the report is the 32-layer model's; the embedding, final
// norm and LM head run once. Mixtral's eight experts share one set of weights (the routing and
// every expert's GEMMs run as in the model; only memory is saved).
#include <cmath>
#include <limits>

#include "layers.h"
#include "model.h"

namespace sparsemap::ml::nongemm {
namespace {

struct LlamaConfig {
  int64_t vocab, hidden, inter, layers, heads, kv_heads, experts, top_k, max_pos;
  double rope_theta;
};

struct Expert {
  Linear w1, w2, w3;  // gate, down, up
};

struct DecoderLayer {
  RmsNorm input_norm, post_norm;
  Linear q, k, v, o;
  Expert mlp;     // Llama's MLP, or the experts' shared weights (Mixtral)
  Linear router;  // Mixtral only
};

class Llama : public Model {
 public:
  explicit Llama(const ResolvedOptions& o) : init_(o.seed) {
    moe_ = o.model == "mixtral-8x7b";
    if (o.tiny)
      cfg_ = moe_ ? LlamaConfig{100, 32, 64, 2, 4, 2, 4, 2, 64, 1e6}
                  : LlamaConfig{100, 32, 64, 2, 4, 4, 0, 0, 64, 1e4};
    else
      cfg_ = moe_ ? LlamaConfig{32000, 4096, 14336, 32, 32, 8, 8, 2, 32768, 1e6}
                  : LlamaConfig{32000, 4096, 11008, 32, 32, 32, 0, 0, 4096, 1e4};
    weight_ = layer_weight(o.layers_full, o.layers_run);
    const int64_t h = cfg_.hidden, hd = h / cfg_.heads, kv = cfg_.kv_heads * hd;
    const int64_t run = o.layers_run > 0 ? o.layers_run : cfg_.layers;
    embed_ = Embedding::make(init_, cfg_.vocab, h);
    for (int64_t i = 0; i < run; ++i) {
      DecoderLayer l;
      l.input_norm = RmsNorm::make(init_, h), l.post_norm = RmsNorm::make(init_, h);
      l.q = Linear::make(init_, h, h, false), l.k = Linear::make(init_, h, kv, false);
      l.v = Linear::make(init_, h, kv, false), l.o = Linear::make(init_, h, h, false);
      l.mlp.w1 = Linear::make(init_, h, cfg_.inter, false);
      l.mlp.w3 = Linear::make(init_, h, cfg_.inter, false);
      l.mlp.w2 = Linear::make(init_, cfg_.inter, h, false);
      if (moe_) l.router = Linear::make(init_, h, cfg_.experts, false);
      layers_.push_back(std::move(l));
    }
    norm_ = RmsNorm::make(init_, h);
    lm_head_ = Linear::make(init_, h, cfg_.vocab, false);
    // LlamaRotaryEmbedding's cos/sin caches, [1, 1, max_pos, head_dim].
    const int64_t cached = std::min<int64_t>(cfg_.max_pos, 4096);
    const at::Tensor inv_freq =
        1.0 / at::pow(cfg_.rope_theta, at::arange(0, hd, 2, at::kFloat) / static_cast<double>(hd));
    const at::Tensor freqs = at::outer(at::arange(cached, at::kFloat), inv_freq);
    const at::Tensor emb = at::cat({freqs, freqs}, -1);
    cos_ = emb.cos().unsqueeze(0).unsqueeze(0);
    sin_ = emb.sin().unsqueeze(0).unsqueeze(0);
    input_ids_ = init_.ids({o.batch, o.seq_len}, cfg_.vocab);
  }

  at::Tensor forward() override {
    const int64_t b = input_ids_.size(0), len = input_ids_.size(1);
    // LlamaModel.forward: positions, embeddings and the 4-D causal mask.
    const at::Tensor position_ids = at::arange(0, len, at::kLong).unsqueeze(0).view({-1, len});
    at::Tensor h = embed_(input_ids_);
    const at::Tensor attention_mask = at::ones({b, len}, at::kBool);
    at::Tensor causal = at::full({len, len}, std::numeric_limits<float>::lowest());
    const at::Tensor cond = at::arange(len, at::kLong);
    causal.masked_fill_(cond < (cond + 1).view({len, 1}), 0);
    causal = causal.to(at::kFloat).unsqueeze(0).unsqueeze(0).expand({b, 1, len, len});
    const at::Tensor expanded =
        attention_mask.unsqueeze(1).unsqueeze(2).expand({b, 1, len, len}).to(at::kFloat);
    const at::Tensor inverted = at::rsub(expanded, 1.0);
    const at::Tensor mask =
        inverted.masked_fill(inverted.to(at::kBool), std::numeric_limits<float>::lowest()) + causal;
    {
      ScaledRegion region(weight_);
      for (const DecoderLayer& l : layers_) {
        at::Tensor residual = h;
        h = residual + attention(l, l.input_norm(h), mask, position_ids);
        residual = h;
        const at::Tensor n = l.post_norm(h);
        h = residual + (moe_ ? moe(l, n) : mlp(l.mlp, n));
      }
    }
    h = norm_(h);
    return lm_head_(h).to(at::kFloat);
  }

 private:
  static at::Tensor rotate_half(const at::Tensor& x) {
    const int64_t half = x.size(-1) / 2;
    return at::cat({-x.slice(-1, half), x.slice(-1, 0, half)}, -1);
  }

  at::Tensor attention(const DecoderLayer& l, const at::Tensor& x, const at::Tensor& mask,
                       const at::Tensor& position_ids) const {
    const int64_t b = x.size(0), len = x.size(1), hd = cfg_.hidden / cfg_.heads;
    at::Tensor q = l.q(x).view({b, len, cfg_.heads, hd}).transpose(1, 2);
    at::Tensor k = l.k(x).view({b, len, cfg_.kv_heads, hd}).transpose(1, 2);
    at::Tensor v = l.v(x).view({b, len, cfg_.kv_heads, hd}).transpose(1, 2);
    // LlamaRotaryEmbedding.forward + apply_rotary_pos_emb
    at::Tensor cos = cos_.slice(2, 0, len).to(x.scalar_type());
    at::Tensor sin = sin_.slice(2, 0, len).to(x.scalar_type());
    cos = cos.squeeze(1).squeeze(0).index({position_ids}).unsqueeze(1);
    sin = sin.squeeze(1).squeeze(0).index({position_ids}).unsqueeze(1);
    q = q * cos + rotate_half(q) * sin;
    k = k * cos + rotate_half(k) * sin;
    // repeat_kv
    const int64_t rep = cfg_.heads / cfg_.kv_heads;
    if (rep > 1) {
      k = k.unsqueeze(2).expand({b, cfg_.kv_heads, rep, len, hd}).reshape({b, cfg_.heads, len, hd});
      v = v.unsqueeze(2).expand({b, cfg_.kv_heads, rep, len, hd}).reshape({b, cfg_.heads, len, hd});
    }
    at::Tensor w = at::matmul(q, k.transpose(2, 3)) / std::sqrt(static_cast<double>(hd));
    w = w + mask;
    w = at::softmax(w, -1, at::kFloat).to(q.scalar_type());
    const at::Tensor out = at::matmul(w, v).transpose(1, 2).contiguous().reshape({b, len, -1});
    return l.o(out);
  }

  static at::Tensor mlp(const Expert& e, const at::Tensor& x) {
    return e.w2(at::silu(e.w1(x)) * e.w3(x));
  }

  // MixtralSparseMoeBlock.forward
  at::Tensor moe(const DecoderLayer& l, const at::Tensor& x) const {
    const int64_t b = x.size(0), len = x.size(1), d = x.size(2);
    const at::Tensor hs = x.view({-1, d});
    const at::Tensor logits = l.router(hs);
    at::Tensor routing = at::softmax(logits, 1, at::kFloat);
    auto top = at::topk(routing, cfg_.top_k, -1);
    routing = std::get<0>(top);
    routing.div_(routing.sum(-1, true));
    routing = routing.to(hs.scalar_type());
    const at::Tensor final_hs = at::zeros({b * len, d}, hs.options());
    const at::Tensor expert_mask = at::one_hot(std::get<1>(top), cfg_.experts).permute({2, 1, 0});
    for (int64_t e = 0; e < cfg_.experts; ++e) {
      const std::vector<at::Tensor> where = at::where(expert_mask.select(0, e));
      const at::Tensor& idx = where[0];
      const at::Tensor& top_x = where[1];
      if (top_x.size(0) == 0) continue;
      const at::Tensor current = hs.index({top_x}).reshape({-1, d});
      const at::Tensor out = mlp(l.mlp, current) * routing.index({top_x, idx}).unsqueeze(1);
      final_hs.index_add_(0, top_x, out.to(hs.scalar_type()));
    }
    return final_hs.reshape({b, len, d});
  }

  Init init_;
  LlamaConfig cfg_;
  bool moe_ = false;
  double weight_ = 1;
  Embedding embed_;
  std::vector<DecoderLayer> layers_;
  RmsNorm norm_;
  Linear lm_head_;
  at::Tensor cos_, sin_, input_ids_;
};

}  // namespace

std::unique_ptr<Model> make_llama(const ResolvedOptions& o) { return std::make_unique<Llama>(o); }

}  // namespace sparsemap::ml::nongemm
