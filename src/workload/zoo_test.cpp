// Tests of the model zoo: totals against published figures, hand-worked layers, options, names.
#include "sparsemap/workload/zoo.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::workload {
namespace {

// The layer called `name`; fails the test when absent.
const Layer& find(const Model& m, const std::string& name) {
  for (const Layer& l : m.layers)
    if (l.name == name) return l;
  ADD_FAILURE() << m.name << " has no layer " << name;
  static const Layer kNone;
  return kNone;
}

int64_t count(const Model& m, OpKind kind, const std::string& op = "") {
  int64_t n = 0;
  for (const Layer& l : m.layers) n += (l.kind == kind && (op.empty() || l.op == op)) ? 1 : 0;
  return n;
}

// |actual / published - 1| <= pct / 100.
void expect_within_pct(int64_t actual, double published, double pct, const char* what) {
  EXPECT_NEAR(static_cast<double>(actual) / published, 1.0, pct / 100.0)
      << what << ": " << actual << " vs published " << published;
}

std::string message_of(const std::string& name, const ZooOptions& o) {
  try {
    zoo_model(name, o);
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "<model>");
    EXPECT_EQ(std::string(e.what()), "<model>: " + e.message());
    return e.message();
  }
  ADD_FAILURE() << name << ": expected InputError";
  return "";
}

// Published figures: torchvision's model cards (GFLOPS there are multiply-accumulates),
// Hugging Face parameter counts, and the hand-worked totals from the architectures.
TEST(Zoo, ResNet50MatchesTorchvision) {
  const Model m = zoo_model("resnet50");
  expect_within_pct(m.total_macs(), 4.09e9, 2, "resnet50 MACs");
  expect_within_pct(m.total_params(), 25.557032e6, 2, "resnet50 params");
  EXPECT_EQ(m.total_macs(), 4089184256);
  EXPECT_EQ(m.total_params(), 25557032);  // torchvision: 25,557,032
  // Hand-worked: conv1 is 64 x 3 x 7 x 7 over a 112 x 112 output.
  const Layer& conv1 = find(m, "conv1");
  EXPECT_EQ(conv1.kind, OpKind::Conv);
  EXPECT_EQ(conv1.out_y(), 112);
  EXPECT_EQ(conv1.macs(), 118013952);  // 112*112*64*3*49
  EXPECT_EQ(conv1.params(), 9408);
  EXPECT_EQ(find(m, "maxpool").out_y(), 56);
  // layer2.0: stride on conv2 (v1.5); downsample is a strided 1x1 from 256 to 512 channels.
  EXPECT_EQ(find(m, "layer2.0.conv2").stride.y, 2);
  EXPECT_EQ(find(m, "layer2.0.conv2").out_y(), 28);
  EXPECT_EQ(find(m, "layer2.0.downsample.0").macs(), int64_t{28} * 28 * 512 * 256);
  const Layer& fc = find(m, "fc");
  EXPECT_EQ(fc.kind, OpKind::Fc);
  EXPECT_EQ(fc.dim(Dim::C), 2048);
  EXPECT_EQ(fc.dim(Dim::K), 1000);
  // NonGEMM inventory: 1 + 16*3 + 4 BatchNorms, 1 + 16*3 ReLUs, 16 residual adds.
  EXPECT_EQ(count(m, OpKind::BatchNorm), 53);
  EXPECT_EQ(count(m, OpKind::Activation, "relu"), 49);
  EXPECT_EQ(count(m, OpKind::Elementwise, "add"), 16);
  EXPECT_EQ(count(m, OpKind::Pool), 2);
  EXPECT_EQ(m.count_gemm_class(), 54);  // 49 convs + 4 downsamples + fc
}

TEST(Zoo, ResNet18MatchesTorchvision) {
  const Model m = zoo_model("resnet18");
  expect_within_pct(m.total_macs(), 1.82e9, 2, "resnet18 MACs");
  EXPECT_EQ(m.total_macs(), 1814073344);
  EXPECT_EQ(m.total_params(), 11689512);  // torchvision: 11,689,512
  EXPECT_EQ(find(m, "layer1.0.conv1").macs(), int64_t{56} * 56 * 64 * 64 * 9);
  EXPECT_EQ(count(m, OpKind::Elementwise, "add"), 8);
}

TEST(Zoo, Vgg16MatchesTorchvision) {
  const Model m = zoo_model("vgg16");
  expect_within_pct(m.total_macs(), 15.5e9, 2, "vgg16 MACs");
  EXPECT_EQ(m.total_macs(), 15470264320);
  EXPECT_EQ(m.total_params(), 138357544);  // torchvision: 138,357,544
  EXPECT_EQ(find(m, "features.0").macs(), int64_t{224} * 224 * 64 * 3 * 9);
  EXPECT_EQ(find(m, "features.28").out_y(), 14);
  EXPECT_EQ(find(m, "features.30").out_y(), 7);
  EXPECT_EQ(find(m, "classifier.0").dim(Dim::C), 25088);  // 512 x 7 x 7
  EXPECT_EQ(m.count_gemm_class(), 16);
  EXPECT_EQ(count(m, OpKind::Pool, "max_pool"), 5);
}

TEST(Zoo, MobileNetV2MatchesTorchvision) {
  const Model m = zoo_model("mobilenet-v2");
  expect_within_pct(m.total_macs(), 0.30e9, 2, "mobilenet-v2 MACs");
  EXPECT_EQ(m.total_macs(), 300774272);
  EXPECT_EQ(m.total_params(), 3504872);  // torchvision: 3,504,872
  // features.2: expand 16 -> 96 at 112x112, depthwise 3x3 stride 2 to 56x56, project to 24.
  const Layer& dw = find(m, "features.2.conv.1.0");
  EXPECT_EQ(dw.kind, OpKind::DsConv);
  EXPECT_EQ(dw.dim(Dim::C), 96);
  EXPECT_EQ(dw.out_y(), 56);
  EXPECT_EQ(dw.macs(), int64_t{96} * 9 * 56 * 56);
  EXPECT_EQ(find(m, "features.2.conv.2").dim(Dim::K), 24);
  EXPECT_EQ(count(m, OpKind::DsConv), 17);
  EXPECT_EQ(count(m, OpKind::Activation, "relu6"), 35);  // 1 + 16*2 + 1 + 1
  EXPECT_EQ(count(m, OpKind::Elementwise, "add"), 10);
}

TEST(Zoo, MnasNetMatchesTorchvision) {
  const Model m = zoo_model("mnasnet");
  expect_within_pct(m.total_macs(), 0.314e9, 2, "mnasnet MACs");  // torchvision: 0.31
  EXPECT_EQ(m.total_macs(), 314415872);
  EXPECT_EQ(m.total_params(), 4383312);  // torchvision: 4,383,312
  EXPECT_EQ(find(m, "layers.9.0.layers.3").dim(Dim::R), 5);
  EXPECT_EQ(find(m, "layers.13.0.layers.6").dim(Dim::K), 320);
  EXPECT_EQ(count(m, OpKind::DsConv), 17);
}

TEST(Zoo, VitB16MatchesPublished) {
  const Model m = zoo_model("vit-b16");
  expect_within_pct(m.total_macs(), 17.56e9, 2, "vit-b16 MACs");
  // 196*768*768 (patches) + 12 * (4*197*768^2 + 2*197*768*3072 + 2*12*197^2*64) + 768*1000
  EXPECT_EQ(m.total_macs(), 17563828224);
  EXPECT_EQ(m.total_params(), 86567656);  // HF google/vit-base-patch16-224: 86,567,656
  EXPECT_EQ(find(m, "vit.embeddings.patch_embeddings.projection").macs(), 196 * 768 * 768);
  const Layer& qk = find(m, "vit.encoder.layer.0.attention.attention.matmul");
  EXPECT_EQ(qk.dim(Dim::M), 197);
  EXPECT_EQ(qk.dim(Dim::K), 64);
  // 384 px: 24 x 24 patches + [CLS] = 577 tokens.
  const Model big = zoo_model("vit-b16", {1, 0, 384});
  EXPECT_EQ(find(big, "vit.encoder.layer.0.attention.attention.query").dim(Dim::M), 577);
}

TEST(Zoo, BertBaseMatchesPublished) {
  const Model m = zoo_model("bert-base");
  // Encoder at 128 tokens, attention included: 12 * (128*(4*768^2 + 2*768*3072)
  // + 2*12*128^2*64) = 11,173,625,856, plus the pooler's 768^2 on the [CLS] token.
  expect_within_pct(m.total_macs(), 11.2e9, 2, "bert-base MACs");
  EXPECT_EQ(m.total_macs(), 11173625856 + 768 * 768);
  // BertModel with embeddings and pooler: 109,482,240 (the published "110M").
  expect_within_pct(m.total_params(), 110e6, 2, "bert-base params");
  EXPECT_EQ(m.total_params(), 109482240);
  const Layer& q = find(m, "encoder.layer.0.attention.self.query");
  EXPECT_EQ(q.kind, OpKind::Gemm);
  EXPECT_EQ(q.macs(), 128 * 768 * 768);
  EXPECT_EQ(q.dim(Dim::M), 128);
  EXPECT_EQ(q.weight_elems(), 768 * 768);
  const Layer& qk = find(m, "encoder.layer.0.attention.self.matmul");
  EXPECT_EQ(qk.kind, OpKind::BatchedGemm);
  // G = 12 heads, M = N = 128 tokens, K = 64 (dims in N, G, K, C, Y, X, R, S, M order).
  EXPECT_EQ(qk.dims, (DimArray{128, 12, 64, 1, 1, 1, 1, 1, 128}));
  const Layer& av = find(m, "encoder.layer.0.attention.self.matmul_1");
  EXPECT_EQ(av.dim(Dim::M), 128);
  EXPECT_EQ(av.dim(Dim::N), 64);
  EXPECT_EQ(av.dim(Dim::K), 128);
  EXPECT_EQ(find(m, "encoder.layer.11.attention.self.softmax").shape,
            (std::vector<int64_t>{1, 12, 128, 128}));
  EXPECT_EQ(count(m, OpKind::Softmax), 12);
  EXPECT_EQ(count(m, OpKind::LayerNorm), 25);
  EXPECT_EQ(count(m, OpKind::Activation, "gelu"), 12);
  EXPECT_EQ(count(m, OpKind::Embedding), 3);
  EXPECT_EQ(count(m, OpKind::BatchedGemm), 24);
  // Non-default length: the linear part scales with L, attention with L^2.
  const Model m256 = zoo_model("bert-base", {1, 256, 0});
  EXPECT_EQ(m256.total_macs(), 12 * (256 * 7077888 + 2 * 12 * int64_t{256} * 256 * 64) + 768 * 768);
}

TEST(Zoo, BertLargeMatchesPublished) {
  const Model m = zoo_model("bert-large");
  EXPECT_EQ(m.total_params(), 335141888);  // HF bert-large-uncased BertModel
  EXPECT_EQ(m.total_macs(), 24 * (128 * int64_t{12582912} + 2 * 16 * 128 * 128 * 64) + 1024 * 1024);
  EXPECT_EQ(find(m, "encoder.layer.23.attention.self.matmul").dim(Dim::G), 16);
}

TEST(Zoo, Gpt2MatchesPublished) {
  const Model m = zoo_model("gpt2");
  expect_within_pct(m.total_params(), 124e6, 2, "gpt2 params");
  EXPECT_EQ(m.total_params(), 124439808);  // HF gpt2 GPT2Model
  // 12 * (1024*(768*2304 + 768^2 + 2*768*3072) + 2*12*1024^2*64)
  EXPECT_EQ(m.total_macs(), 106300440576);
  EXPECT_EQ(find(m, "h.0.attn.c_attn").dim(Dim::N), 2304);
  EXPECT_EQ(find(m, "h.0.attn.c_attn").dim(Dim::M), 1024);
  const Model xl = zoo_model("gpt2-xl");
  EXPECT_EQ(xl.total_params(), 1557611200);  // HF gpt2-xl GPT2Model
  EXPECT_EQ(find(xl, "h.47.attn.matmul").dim(Dim::G), 25);
}

TEST(Zoo, T5BaseEncoder) {
  const Model m = zoo_model("t5-base");
  EXPECT_EQ(m.total_params(), 109628544);  // HF T5EncoderModel t5-base
  EXPECT_EQ(m.total_macs(), 11173625856);  // same shapes as BERT-base's encoder at 128
  EXPECT_EQ(count(m, OpKind::LayerNorm, "rms_norm"), 25);
  EXPECT_EQ(count(m, OpKind::Embedding), 2);  // shared + one relative attention bias
  EXPECT_FALSE(find(m, "encoder.block.0.layer.0.SelfAttention.q").has_bias);
  EXPECT_EQ(find(m, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias").dim(Dim::N),
            128 * 128);
}

TEST(Zoo, Llama2MatchesPublished) {
  const Model m = zoo_model("llama2-7b");
  EXPECT_EQ(m.total_params(), 6738415616);  // HF meta-llama/Llama-2-7b-hf
  // 32 * (2048*(4*4096^2 + 3*4096*11008) + 2*32*2048^2*128) + 2048*4096*32000
  EXPECT_EQ(m.total_macs(), 32 * (2048 * int64_t{202375168} + 2 * int64_t{32} * 2048 * 2048 * 128) +
                                int64_t{2048} * 4096 * 32000);
  const Layer& q = find(m, "model.layers.0.self_attn.q_proj");
  EXPECT_EQ(q.dim(Dim::M), 2048);
  EXPECT_EQ(q.dim(Dim::N), 4096);
  EXPECT_EQ(find(m, "model.layers.31.mlp.down_proj").dim(Dim::K), 11008);
  EXPECT_EQ(find(m, "model.layers.0.self_attn.matmul").dim(Dim::K), 128);
  EXPECT_EQ(count(m, OpKind::LayerNorm, "rms_norm"), 65);
  EXPECT_EQ(count(m, OpKind::Activation, "silu"), 32);
}

TEST(Zoo, DlrmMlperfConfig) {
  const Model m = zoo_model("dlrm");
  // Bottom 13*512 + 512*256 + 256*128, interaction 27*27*128,
  // top 479*1024 + 1024^2 + 1024*512 + 512*256 + 256*1.
  EXPECT_EQ(m.total_macs(), 170496 + 93312 + 2194688);
  // 187,767,399 embedding rows x 128, plus the MLPs' 2,368,897.
  EXPECT_EQ(m.total_params(), int64_t{187767399} * 128 + 2368897);
  EXPECT_EQ(count(m, OpKind::Embedding), 26);
  EXPECT_EQ(find(m, "emb_l.0").dim(Dim::C), 39884406);
  EXPECT_EQ(find(m, "top_l.0").dim(Dim::C), 479);
  EXPECT_EQ(find(m, "top_l.9").op, "sigmoid");
  const Layer& bmm = find(m, "interact_features.bmm");
  EXPECT_EQ(bmm.kind, OpKind::BatchedGemm);
  EXPECT_EQ(bmm.dim(Dim::M), 27);
  EXPECT_EQ(bmm.dim(Dim::K), 128);
}

TEST(Zoo, NcfMlperfConfig) {
  const Model m = zoo_model("ncf");
  EXPECT_EQ(m.total_macs(), 256 * 256 + 256 * 128 + 128 * 64 + 128);
  EXPECT_EQ(m.total_params(), 31832577);
  EXPECT_EQ(find(m, "mf_user_embed").dim(Dim::C), 138493);
  EXPECT_EQ(find(m, "mlp_item_embed").dim(Dim::K), 128);
  EXPECT_EQ(find(m, "final").dim(Dim::C), 128);
}

TEST(Zoo, BatchScalesMacsLinearlyAndKeepsParams) {
  for (const ZooEntry& e : zoo_entries()) {
    const Model one = zoo_model(e.name);
    const Model three = zoo_model(e.name, {3, 0, 0});
    EXPECT_EQ(three.total_macs(), 3 * one.total_macs()) << e.name;
    EXPECT_EQ(three.total_params(), one.total_params()) << e.name;
    EXPECT_EQ(three.layers.size(), one.layers.size()) << e.name;
  }
}

// Batch 2 and small, odd sizes: the smallest that each family accepts, or close to it.
ZooOptions small_options(const std::string& name) {
  static const std::set<std::string> kLanguage = {"bert-base", "bert-large", "gpt2",
                                                  "gpt2-xl",   "t5-base",    "llama2-7b"};
  ZooOptions o;
  o.batch = 2;
  if (kLanguage.count(name) != 0)
    o.seq_len = 7;
  else if (name == "vit-b16")
    o.image_size = 48;
  else if (name == "vgg16")
    o.image_size = 225;
  else if (name != "dlrm" && name != "ncf")
    o.image_size = 33;
  return o;
}

// Every layer of every model, at default and at small sizes: positive dims and outputs,
// unique non-empty names, GEMM-class layers with MACs, NonGEMM layers with a shape.
TEST(Zoo, EveryLayerIsWellFormed) {
  for (const ZooEntry& e : zoo_entries()) {
    for (int variant = 0; variant < 2; ++variant) {
      const ZooOptions o = variant == 0 ? ZooOptions{} : small_options(e.name);
      const Model m = zoo_model(e.name, o);
      EXPECT_EQ(m.name, e.name);
      EXPECT_GT(m.total_macs(), 0);
      EXPECT_GT(m.total_params(), 0);
      std::set<std::string> names;
      for (const Layer& l : m.layers) {
        SCOPED_TRACE(e.name + " " + l.name);
        EXPECT_FALSE(l.name.empty());
        EXPECT_TRUE(names.insert(l.name).second) << "duplicate name";
        for (int64_t d : l.dims) EXPECT_GE(d, 1);
        EXPECT_GT(l.out_y(), 0);
        EXPECT_GT(l.out_x(), 0);
        EXPECT_GT(l.output_elems(), 0);
        if (is_gemm_class(l.kind)) {
          EXPECT_GT(l.macs(), 0);
          EXPECT_TRUE(l.op.empty());
        } else {
          EXPECT_EQ(l.macs(), 0);
          EXPECT_FALSE(l.op.empty());
        }
        const bool shaped = l.kind == OpKind::Softmax || l.kind == OpKind::LayerNorm ||
                            l.kind == OpKind::BatchNorm || l.kind == OpKind::Activation ||
                            l.kind == OpKind::Elementwise;
        if (shaped) {
          EXPECT_GE(l.shape.size(), 2u);
          for (int64_t d : l.shape) EXPECT_GE(d, 1);
          EXPECT_EQ(l.shape.front(), o.batch);
        }
      }
    }
  }
}

// The index of the layer called `name`; -2 (and a failure) when absent.
int index_of(const Model& m, const std::string& name) {
  for (size_t i = 0; i < m.layers.size(); ++i)
    if (m.layers[i].name == name) return static_cast<int>(i);
  ADD_FAILURE() << m.name << " has no layer " << name;
  return -2;
}

std::vector<int> producers_of(const Model& m, const std::string& name) {
  const int i = index_of(m, name);
  return i < 0 ? std::vector<int>{} : m.producers[static_cast<size_t>(i)];
}

// Every model carries its dataflow edges: one list per layer, earlier layers only, each once;
// every layer but the model's last is read by some layer (nothing computed is dropped).
TEST(Zoo, EveryModelCarriesDataflowEdges) {
  for (const ZooEntry& e : zoo_entries()) {
    const Model m = zoo_model(e.name, small_options(e.name));
    SCOPED_TRACE(e.name);
    ASSERT_TRUE(m.has_dataflow());
    std::vector<int> readers(m.layers.size(), 0);
    for (size_t i = 0; i < m.layers.size(); ++i) {
      std::set<int> seen;
      for (int p : m.producers[i]) {
        EXPECT_GE(p, 0);
        EXPECT_LT(p, static_cast<int>(i)) << m.layers[i].name;
        EXPECT_TRUE(seen.insert(p).second) << m.layers[i].name;
        if (p >= 0 && p < static_cast<int>(i)) ++readers[static_cast<size_t>(p)];
      }
    }
    for (size_t i = 0; i + 1 < m.layers.size(); ++i)
      EXPECT_GT(readers[i], 0) << m.layers[i].name << " is read by no layer";
  }
}

TEST(Zoo, ResidualBlocksReadBothBranches) {
  const Model r = zoo_model("resnet18");
  EXPECT_TRUE(producers_of(r, "conv1").empty());  // the image
  EXPECT_EQ(producers_of(r, "layer1.0.conv1"), std::vector<int>{index_of(r, "maxpool")});
  // An identity block adds the block input; a downsampling block its downsample branch, which
  // reads the block input and comes after the main branch.
  EXPECT_EQ(producers_of(r, "layer1.1.add"),
            (std::vector<int>{index_of(r, "layer1.1.bn2"), index_of(r, "layer1.0.relu_1")}));
  EXPECT_EQ(producers_of(r, "layer2.0.downsample.0"),
            std::vector<int>{index_of(r, "layer1.1.relu_1")});
  EXPECT_EQ(producers_of(r, "layer2.0.add"),
            (std::vector<int>{index_of(r, "layer2.0.bn2"), index_of(r, "layer2.0.downsample.1")}));
  EXPECT_EQ(producers_of(r, "fc"), std::vector<int>{index_of(r, "avgpool")});
  int two = 0;
  for (const auto& p : r.producers) two += p.size() == 2;
  EXPECT_EQ(two, 8);  // the 8 residual adds
  const Model mb = zoo_model("mobilenet-v2");
  two = 0;
  for (const auto& p : mb.producers) two += p.size() == 2;
  EXPECT_EQ(two, 10);
  EXPECT_EQ(
      producers_of(mb, "features.3.add"),
      (std::vector<int>{index_of(mb, "features.3.conv.3"), index_of(mb, "features.2.conv.3")}));
  // Attention: the scores read Q and K, the context the probabilities and V.
  const Model b = zoo_model("bert-base", {1, 16});
  const std::string a = "encoder.layer.0.attention.self";
  EXPECT_EQ(producers_of(b, a + ".matmul"),
            (std::vector<int>{index_of(b, a + ".query"), index_of(b, a + ".key")}));
  EXPECT_EQ(producers_of(b, a + ".matmul_1"),
            (std::vector<int>{index_of(b, a + ".softmax"), index_of(b, a + ".value")}));
  EXPECT_EQ(producers_of(b, a + ".key"), std::vector<int>{index_of(b, "embeddings.LayerNorm")});
  EXPECT_EQ(producers_of(b, "encoder.layer.0.attention.output.add"),
            (std::vector<int>{index_of(b, "encoder.layer.0.attention.output.dense"),
                              index_of(b, "embeddings.LayerNorm")}));
  // DLRM: the interaction reads the bottom MLP and the 26 tables.
  const Model d = zoo_model("dlrm");
  EXPECT_EQ(producers_of(d, "interact_features.bmm").size(), 27u);
  EXPECT_EQ(producers_of(d, "top_l.0"),
            (std::vector<int>{index_of(d, "bot_l.5"), index_of(d, "interact_features.bmm")}));
}

TEST(Zoo, ShapesFollowTheActivation) {
  // The BatchNorm after a conv normalises that conv's output.
  const Model m = zoo_model("resnet50", {2, 0, 160});
  const Layer& conv = find(m, "layer3.0.conv2");
  EXPECT_EQ(find(m, "layer3.0.bn2").shape,
            (std::vector<int64_t>{2, 256, conv.out_y(), conv.out_x()}));
  EXPECT_EQ(conv.out_y(), 10);  // 160 / 16
  EXPECT_EQ(find(m, "layer4.2.add").shape, (std::vector<int64_t>{2, 2048, 5, 5}));
  EXPECT_EQ(find(m, "avgpool").out_y(), 1);
}

TEST(Zoo, DefaultsAreDocumented) {
  EXPECT_EQ(find(zoo_model("gpt2"), "h.0.attn.softmax").shape,
            (std::vector<int64_t>{1, 12, 1024, 1024}));
  EXPECT_EQ(find(zoo_model("t5-base"), "encoder.block.0.layer.0.SelfAttention.q").dim(Dim::M), 128);
  EXPECT_EQ(find(zoo_model("vit-b16"), "vit.layernorm").shape, (std::vector<int64_t>{1, 197, 768}));
  EXPECT_EQ(find(zoo_model("resnet18"), "conv1").dim(Dim::Y), 224);
}

TEST(Zoo, NamesAndAliases) {
  const auto& entries = zoo_entries();
  ASSERT_EQ(entries.size(), 14u);
  for (const ZooEntry& e : entries) {
    EXPECT_EQ(zoo_canonical_name(e.name), e.name);
    EXPECT_FALSE(e.description.empty());
    for (char ch : e.name)
      EXPECT_TRUE(std::islower(static_cast<unsigned char>(ch)) ||
                  std::isdigit(static_cast<unsigned char>(ch)) || ch == '-')
          << e.name;
  }
  EXPECT_EQ(zoo_canonical_name("mobilenet_v2"), "mobilenet-v2");
  EXPECT_EQ(zoo_canonical_name("MobileNet_V2"), "mobilenet-v2");
  EXPECT_EQ(zoo_canonical_name("mobilenetv2"), "mobilenet-v2");
  EXPECT_EQ(zoo_canonical_name("BERT_base"), "bert-base");
  EXPECT_EQ(zoo_canonical_name("bert-base-uncased"), "bert-base");
  EXPECT_EQ(zoo_canonical_name("ResNet-50"), "resnet50");
  EXPECT_EQ(zoo_canonical_name("vit_b_16"), "vit-b16");
  EXPECT_EQ(zoo_canonical_name("mnasnet1_0"), "mnasnet");
  EXPECT_EQ(zoo_canonical_name("Llama-2-7b"), "llama2-7b");
  EXPECT_EQ(zoo_canonical_name("GPT2_XL"), "gpt2-xl");
  EXPECT_EQ(zoo_canonical_name("NeuMF"), "ncf");
  EXPECT_EQ(zoo_canonical_name("alexnet"), "");
  EXPECT_EQ(zoo_canonical_name(""), "");
  EXPECT_EQ(zoo_canonical_name("--"), "");
  EXPECT_EQ(zoo_model("BERT_base").name, "bert-base");
  EXPECT_EQ(zoo_model("mobilenet_v2"), zoo_model("mobilenet-v2"));
}

TEST(Zoo, BadNamesAndOptionsThrowInputError) {
  EXPECT_EQ(message_of("alexnet", {}),
            "unknown model 'alexnet'; valid names: resnet18, resnet50, mobilenet-v2, vgg16, "
            "mnasnet, bert-base, bert-large, gpt2, gpt2-xl, vit-b16, t5-base, llama2-7b, dlrm, "
            "ncf");
  EXPECT_EQ(message_of("resnet50", {0, 0, 0}),
            "resnet50: batch must be between 1 and 65536 (got 0)");
  EXPECT_EQ(message_of("ncf", {-4, 0, 0}), "ncf: batch must be between 1 and 65536 (got -4)");
  EXPECT_EQ(message_of("resnet50", {1, 0, 16}),
            "resnet50: image_size must be between 32 and 4096 (got 16)");
  EXPECT_EQ(message_of("mobilenet-v2", {1, 0, -224}),
            "mobilenet-v2: image_size must be between 32 and 4096 (got -224)");
  EXPECT_EQ(message_of("vgg16", {1, 0, 200}),
            "vgg16: image_size must be between 224 and 4096 (got 200)");
  EXPECT_EQ(message_of("vit-b16", {1, 0, 200}),
            "vit-b16: image_size must be a multiple of 16 (the patch size), got 200");
  EXPECT_EQ(message_of("bert-base", {1, 513, 0}),
            "bert-base: seq_len must be between 1 and 512 (got 513): the model has 512 learned "
            "positions");
  EXPECT_EQ(message_of("gpt2", {1, -1, 0}), "gpt2: seq_len must be between 1 and 1024 (got -1)");
  EXPECT_EQ(message_of("llama2-7b", {1, 8192, 0}),
            "llama2-7b: seq_len must be between 1 and 4096 (got 8192): the model's context is "
            "4096 tokens");
  EXPECT_EQ(message_of("resnet18", {1, 128, 0}),
            "resnet18: seq_len does not apply to a vision model (got 128; leave it 0)");
  EXPECT_EQ(message_of("t5-base", {1, 0, 224}),
            "t5-base: image_size does not apply to a language model (got 224; leave it 0)");
  EXPECT_EQ(message_of("dlrm", {1, 0, 224}),
            "dlrm: image_size does not apply to a recommendation model (got 224; leave it 0)");
}

}  // namespace
}  // namespace sparsemap::workload
