// The zoo's transformers, layer for layer as Hugging Face transformers builds them (eager
// attention, inference: no dropout).
#include <string>

#include "zoo_internal.h"

namespace sparsemap::workload::zoo_detail {
namespace {

struct EncoderConfig {
  int64_t hidden, layers, heads, ffn;
};

// BertModel (with its pooler): embeddings, `layers` x BertLayer, pooler.
Model bert(const char* name, const Sizes& s, const EncoderConfig& c) {
  constexpr int64_t kVocab = 30522, kPositions = 512, kTokenTypes = 2;
  SeqBuilder b(name, s.batch, s.seq_len);
  const int64_t h = c.hidden, hd = c.hidden / c.heads;
  b.reads({}).lookup("embeddings.word_embeddings", b.tokens(), kVocab, h);
  const int words = b.tail();
  b.reads({}).lookup("embeddings.token_type_embeddings", b.tokens(), kTokenTypes, h);
  b.reads({words, b.tail()}).elementwise("embeddings.add", "add", h);
  const int sum = b.tail();
  b.reads({}).lookup("embeddings.position_embeddings", b.tokens(), kPositions, h);
  b.reads({sum, b.tail()}).elementwise("embeddings.add_1", "add", h);
  b.norm("embeddings.LayerNorm", "layer_norm", h);
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i);
    const std::string a = p + ".attention.self";
    const int x = b.tail();
    b.linear(a + ".query", h, h, true);
    const int q = b.tail();
    b.reads({x}).linear(a + ".key", h, h, true);
    const int k = b.tail();
    b.reads({x}).linear(a + ".value", h, h, true);
    const int v = b.tail();
    b.reads({q, k}).scores(a + ".matmul", c.heads, hd);
    b.score_op(a + ".div", "div", c.heads, 1);  // / sqrt(head_dim)
    b.score_op(a + ".add", "add", c.heads, 2);  // + extended attention mask (a model input)
    b.softmax(a + ".softmax", c.heads);
    b.reads({b.tail(), v}).context(a + ".matmul_1", c.heads, hd);
    const std::string o = p + ".attention.output";
    b.linear(o + ".dense", h, h, true);
    b.reads({b.tail(), x}).elementwise(o + ".add", "add", h);  // residual
    b.norm(o + ".LayerNorm", "layer_norm", h);
    const int y = b.tail();
    b.linear(p + ".intermediate.dense", h, c.ffn, true);
    b.act(p + ".intermediate.intermediate_act_fn", "gelu", c.ffn);
    b.linear(p + ".output.dense", c.ffn, h, true);
    b.reads({b.tail(), y}).elementwise(p + ".output.add", "add", h);  // residual
    b.norm(p + ".output.LayerNorm", "layer_norm", h);
  }
  // BertPooler: dense + tanh on the first token of each sequence.
  b.push(gemm("pooler.dense", s.batch, h, h, true));
  b.push(nongemm("pooler.activation", OpKind::Activation, "tanh", {s.batch, h}));
  return b.take();
}

// GPT2Model: wte + wpe, `layers` x GPT2Block (pre-norm), ln_f. The LM head is not built: it
// shares wte's weights (see zoo.cpp).
Model gpt2(const char* name, const Sizes& s, const EncoderConfig& c) {
  constexpr int64_t kVocab = 50257, kPositions = 1024;
  SeqBuilder b(name, s.batch, s.seq_len);
  const int64_t h = c.hidden, hd = c.hidden / c.heads;
  b.reads({}).lookup("wte", b.tokens(), kVocab, h);
  const int tokens = b.tail();
  b.reads({}).lookup("wpe", b.tokens(), kPositions, h);
  b.reads({tokens, b.tail()}).elementwise("add", "add", h);
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "h." + std::to_string(i);
    const int x = b.tail();
    b.norm(p + ".ln_1", "layer_norm", h);
    b.linear(p + ".attn.c_attn", h, 3 * h, true);  // Conv1D producing Q, K and V
    const int qkv = b.tail();
    b.scores(p + ".attn.matmul", c.heads, hd);
    b.score_op(p + ".attn.div", "div", c.heads, 1);      // / sqrt(head_dim)
    b.score_op(p + ".attn.where", "where", c.heads, 2);  // causal mask (a constant)
    b.softmax(p + ".attn.softmax", c.heads);
    b.reads({b.tail(), qkv}).context(p + ".attn.matmul_1", c.heads, hd);
    b.linear(p + ".attn.c_proj", h, h, true);
    b.reads({b.tail(), x}).elementwise(p + ".add", "add", h);  // residual
    const int y = b.tail();
    b.norm(p + ".ln_2", "layer_norm", h);
    b.linear(p + ".mlp.c_fc", h, c.ffn, true);
    b.act(p + ".mlp.act", "gelu", c.ffn);  // NewGELU: the tanh approximation
    b.linear(p + ".mlp.c_proj", c.ffn, h, true);
    b.reads({b.tail(), y}).elementwise(p + ".add_1", "add", h);  // residual
  }
  b.norm("ln_f", "layer_norm", h);
  return b.take();
}

}  // namespace

// bert-base-uncased: 12 layers, hidden 768, 12 heads, FFN 3072 (Devlin et al. 2019).
Model build_bert_base(const Sizes& s) { return bert("bert-base", s, {768, 12, 12, 3072}); }

// bert-large-uncased: 24 layers, hidden 1024, 16 heads, FFN 4096.
Model build_bert_large(const Sizes& s) { return bert("bert-large", s, {1024, 24, 16, 4096}); }

// GPT-2 small (124M): 12 layers, hidden 768, 12 heads (Radford et al. 2019; HF "gpt2").
Model build_gpt2(const Sizes& s) { return gpt2("gpt2", s, {768, 12, 12, 3072}); }

// GPT-2 XL (1.5B): 48 layers, hidden 1600, 25 heads of 64 (HF "gpt2-xl").
Model build_gpt2_xl(const Sizes& s) { return gpt2("gpt2-xl", s, {1600, 48, 25, 6400}); }

// ViTForImageClassification, google/vit-base-patch16-224 (Dosovitskiy et al. 2021): 16x16
// patches, 12 layers, hidden 768, 12 heads, MLP 3072, 1000 classes from the [CLS] token.
// The [CLS] token and the position embeddings are parameters read per image; they are built
// as Embedding layers (1 and `tokens` rows) so that the model counts their parameters.
Model build_vit_b16(const Sizes& s) {
  constexpr int64_t kPatch = 16, h = 768, kLayers = 12, kHeads = 12, kFfn = 3072, hd = 64;
  const int64_t grid = s.image_size / kPatch, tokens = grid * grid + 1;
  SeqBuilder b("vit-b16", s.batch, tokens);
  b.push(conv2d("vit.embeddings.patch_embeddings.projection", s.batch, 3, s.image_size,
                s.image_size, h, kPatch, kPatch, 0, 1, true));
  const int patches = b.tail();
  b.reads({}).lookup("vit.embeddings.cls_token", s.batch, 1, h);
  const int cls = b.tail();
  b.reads({}).lookup("vit.embeddings.position_embeddings", b.tokens(), tokens, h);
  // cat([cls, patches]) + position embeddings.
  b.reads({cls, patches, b.tail()}).elementwise("vit.embeddings.add", "add", h);
  for (int64_t i = 0; i < kLayers; ++i) {
    const std::string p = "vit.encoder.layer." + std::to_string(i);
    const std::string a = p + ".attention.attention";
    const int x = b.tail();
    b.norm(p + ".layernorm_before", "layer_norm", h);
    const int n = b.tail();
    b.linear(a + ".query", h, h, true);
    const int q = b.tail();
    b.reads({n}).linear(a + ".key", h, h, true);
    const int k = b.tail();
    b.reads({n}).linear(a + ".value", h, h, true);
    const int v = b.tail();
    b.reads({q, k}).scores(a + ".matmul", kHeads, hd);
    b.score_op(a + ".div", "div", kHeads, 1);
    b.softmax(a + ".softmax", kHeads);
    b.reads({b.tail(), v}).context(a + ".matmul_1", kHeads, hd);
    b.linear(p + ".attention.output.dense", h, h, true);
    b.reads({b.tail(), x}).elementwise(p + ".add", "add", h);  // residual (ViTLayer)
    const int y = b.tail();
    b.norm(p + ".layernorm_after", "layer_norm", h);
    b.linear(p + ".intermediate.dense", h, kFfn, true);
    b.act(p + ".intermediate.intermediate_act_fn", "gelu", kFfn);
    b.linear(p + ".output.dense", kFfn, h, true);
    b.reads({b.tail(), y}).elementwise(p + ".output.add", "add", h);  // residual (ViTOutput)
  }
  b.norm("vit.layernorm", "layer_norm", h);
  b.push(gemm("classifier", s.batch, 1000, h, true));
  return b.take();
}

// T5EncoderModel, t5-base (Raffel et al. 2020): 12 blocks, d_model 768, 12 heads of 64,
// d_ff 3072, ReLU, RMSNorm, no biases, no attention scaling; relative position bias (32
// buckets) computed once in block 0 and added to every block's scores.
Model build_t5_base(const Sizes& s) {
  constexpr int64_t kVocab = 32128, h = 768, kLayers = 12, kHeads = 12, kFfn = 3072, hd = 64;
  constexpr int64_t kBuckets = 32;
  SeqBuilder b("t5-base", s.batch, s.seq_len);
  b.reads({}).lookup("shared", b.tokens(), kVocab, h);
  int bias = -1;  // the relative position bias, looked up in block 0
  for (int64_t i = 0; i < kLayers; ++i) {
    const std::string p = "encoder.block." + std::to_string(i);
    const std::string a = p + ".layer.0";
    const std::string sa = a + ".SelfAttention";
    const int x = b.tail();
    b.norm(a + ".layer_norm", "rms_norm", h);
    const int n = b.tail();
    b.linear(sa + ".q", h, h, false);
    const int q = b.tail();
    b.reads({n}).linear(sa + ".k", h, h, false);
    const int k = b.tail();
    b.reads({n}).linear(sa + ".v", h, h, false);
    const int v = b.tail();
    b.reads({q, k}).scores(sa + ".matmul", kHeads, hd);
    const int scores = b.tail();
    if (i == 0) {
      b.reads({}).lookup(sa + ".relative_attention_bias", s.seq_len * s.seq_len, kBuckets, kHeads);
      bias = b.tail();
    }
    b.reads({scores, bias}).score_op(sa + ".add", "add", kHeads, 2);  // + bias (mask folded in)
    b.softmax(sa + ".softmax", kHeads);
    b.reads({b.tail(), v}).context(sa + ".matmul_1", kHeads, hd);
    b.linear(sa + ".o", h, h, false);
    b.reads({b.tail(), x}).elementwise(a + ".add", "add", h);  // residual
    const int y = b.tail();
    const std::string f = p + ".layer.1";
    b.norm(f + ".layer_norm", "rms_norm", h);
    b.linear(f + ".DenseReluDense.wi", h, kFfn, false);
    b.act(f + ".DenseReluDense.act", "relu", kFfn);
    b.linear(f + ".DenseReluDense.wo", kFfn, h, false);
    b.reads({b.tail(), y}).elementwise(f + ".add", "add", h);  // residual
  }
  b.norm("encoder.final_layer_norm", "rms_norm", h);
  return b.take();
}

// LlamaForCausalLM, Llama-2-7b (Touvron et al. 2023): 32 layers, hidden 4096, 32 heads of
// 128 (no GQA at 7B), SwiGLU MLP 11008, RMSNorm, rotary embeddings, vocab 32000, untied LM
// head. Eager attention: the full seq x seq scores, causal mask added.
Model build_llama2_7b(const Sizes& s) {
  constexpr int64_t kVocab = 32000, h = 4096, kLayers = 32, kHeads = 32, kFfn = 11008, hd = 128;
  SeqBuilder b("llama2-7b", s.batch, s.seq_len);
  b.reads({}).lookup("model.embed_tokens", b.tokens(), kVocab, h);
  for (int64_t i = 0; i < kLayers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    const std::string a = p + ".self_attn";
    const std::string r = a + ".apply_rotary_pos_emb";
    const int x = b.tail();
    b.norm(p + ".input_layernorm", "rms_norm", h);
    const int n = b.tail();
    b.linear(a + ".q_proj", h, h, false);
    const int q = b.tail();
    b.reads({n}).linear(a + ".k_proj", h, h, false);
    const int k = b.tail();
    b.reads({n}).linear(a + ".v_proj", h, h, false);
    const int v = b.tail();
    // q * cos + rotate_half(q) * sin, then the same for k (rotate_half negates half of d; cos
    // and sin are constants).
    int rotated[2] = {-1, -1};
    for (int t = 0; t < 2; ++t) {
      const std::string sfx = t == 0 ? "" : "_1";
      const int in = t == 0 ? q : k;
      b.reads({in}).head_elementwise(r + ".mul" + (t == 0 ? "" : "_2"), "mul", kHeads, hd, 2);
      const int times_cos = b.tail();
      b.reads({in}).head_elementwise(r + ".neg" + sfx, "neg", kHeads, hd / 2, 1);
      b.head_elementwise(r + ".mul" + (t == 0 ? "_1" : "_3"), "mul", kHeads, hd, 2);
      b.reads({times_cos, b.tail()}).head_elementwise(r + ".add" + sfx, "add", kHeads, hd, 2);
      rotated[t] = b.tail();
    }
    b.reads({rotated[0], rotated[1]}).scores(a + ".matmul", kHeads, hd);
    b.score_op(a + ".mul", "mul", kHeads, 1);  // * head_dim^-0.5
    b.score_op(a + ".add", "add", kHeads, 2);  // + causal mask (a constant)
    b.softmax(a + ".softmax", kHeads);
    b.reads({b.tail(), v}).context(a + ".matmul_1", kHeads, hd);
    b.linear(a + ".o_proj", h, h, false);
    b.reads({b.tail(), x}).elementwise(p + ".add", "add", h);  // residual
    const int y = b.tail();
    b.norm(p + ".post_attention_layernorm", "rms_norm", h);
    const int n2 = b.tail();
    const std::string m = p + ".mlp";
    b.linear(m + ".gate_proj", h, kFfn, false);
    b.act(m + ".act_fn", "silu", kFfn);
    const int gate = b.tail();
    b.reads({n2}).linear(m + ".up_proj", h, kFfn, false);
    b.reads({gate, b.tail()}).elementwise(m + ".mul", "mul", kFfn);
    b.linear(m + ".down_proj", kFfn, h, false);
    b.reads({b.tail(), y}).elementwise(p + ".add_1", "add", h);  // residual
  }
  b.norm("model.norm", "rms_norm", h);
  b.linear("lm_head", h, kVocab, false);
  return b.take();
}

}  // namespace sparsemap::workload::zoo_detail
