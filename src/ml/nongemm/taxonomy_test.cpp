// Tests of the taxonomy file reader and of the suite's registry (no torch needed).
#include "sparsemap/ml/nongemm/taxonomy.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sparsemap/error.h"
#include "sparsemap/ml/nongemm/models.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::ml::nongemm {
namespace {

TEST(Taxonomy, BuiltinMatchesTheDataFile) {
  const std::string path = std::string(SPARSEMAP_SOURCE_DIR) + "/data/nongemm_taxonomy.json";
  const Taxonomy file = Taxonomy::load(path);
  EXPECT_EQ(file.size(), Taxonomy::builtin().size());
  EXPECT_GT(file.size(), 150u);
}

TEST(Taxonomy, ClassifiesTheGroups) {
  const Taxonomy& t = Taxonomy::builtin();
  EXPECT_EQ(t.classify("aten::linear"), (OpClass{"gemm", false, true}));
  EXPECT_EQ(t.classify("aten::conv2d"), (OpClass{"gemm", false, true}));
  EXPECT_EQ(t.classify("aten::matmul"), (OpClass{"gemm", true, true}));
  EXPECT_EQ(t.classify("aten::bmm"), (OpClass{"gemm", true, true}));
  EXPECT_EQ(t.classify("aten::softmax").group, "logit");
  EXPECT_EQ(t.classify("aten::layer_norm").group, "normalization");
  EXPECT_EQ(t.classify("sparsemap::rms_norm").group, "normalization");
  EXPECT_EQ(t.classify("sparsemap::frozen_batch_norm").group, "normalization");
  EXPECT_EQ(t.classify("sparsemap::gelu_new").group, "activation");
  EXPECT_EQ(t.classify("sparsemap::depthwise_conv").group, "gemm");
  EXPECT_EQ(t.classify("sparsemap::nms").group, "roi");
  EXPECT_EQ(t.classify("sparsemap::roi_align").group, "roi");
  EXPECT_EQ(t.classify("aten::embedding").group, "embedding");
  EXPECT_EQ(t.classify("aten::upsample_bilinear2d").group, "interpolation");
  EXPECT_EQ(t.classify("aten::adaptive_avg_pool2d").group, "pooling");
  EXPECT_EQ(t.classify("aten::quantize_per_tensor").group, "qdq");
  EXPECT_EQ(t.classify("aten::permute").group, "memory");
  EXPECT_EQ(t.classify("aten::add").group, "arithmetic");
}

TEST(Taxonomy, InPlaceVariantsAndUnknownOperators) {
  const Taxonomy& t = Taxonomy::builtin();
  EXPECT_EQ(t.classify("aten::relu_").group, "activation");
  EXPECT_EQ(t.classify("aten::add_").group, "arithmetic");
  EXPECT_EQ(t.classify("aten::index_put_").group, "memory");
  EXPECT_EQ(t.classify("aten::no_such_op"), (OpClass{"other", false, false}));
  EXPECT_EQ(t.classify("_").known, false);
  EXPECT_EQ(t.classify("").known, false);
  // "other" may also be named on purpose: then it is known.
  EXPECT_EQ(t.classify("aten::dropout"), (OpClass{"other", false, true}));
}

TEST(Taxonomy, GroupKeys) {
  ASSERT_EQ(nongemm_groups().size(), 11u);
  EXPECT_EQ(nongemm_groups().front(), "activation");
  EXPECT_EQ(nongemm_groups().back(), "other");
  EXPECT_EQ(all_groups().front(), "gemm");
  EXPECT_EQ(all_groups().size(), 12u);
}

std::string error_of(const std::string& text) {
  try {
    Taxonomy::parse(text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Taxonomy, RejectsBadFiles) {
  const std::string ok_gemm = R"("gemm": {"ops": ["a"], "subgroups": {"attention": ["b"]}})";
  EXPECT_EQ(error_of("{" + ok_gemm + R"(, "nongemm": {"memory": ["c"]}})"), "");
  EXPECT_NE(error_of("{\n  \"gemm\": [\n}").find("t.json:3"), std::string::npos);
  EXPECT_NE(error_of(R"({"nongemm": {}})").find("missing object \"gemm\""), std::string::npos);
  EXPECT_NE(error_of("{" + ok_gemm + "}").find("missing object \"nongemm\""), std::string::npos);
  EXPECT_NE(error_of("{" + ok_gemm + R"(, "nongemm": {"softmax": ["c"]}})")
                .find("unknown NonGEMM group 'softmax'"),
            std::string::npos);
  EXPECT_NE(error_of("{" + ok_gemm + R"(, "nongemm": {"memory": ["a"]}})")
                .find("operator 'a' is named twice"),
            std::string::npos);
  EXPECT_NE(error_of("{" + ok_gemm + R"(, "nongemm": {"memory": [3]}})").find("strings"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"gemm": {"ops": [], "subgroups": {"conv": []}}, "nongemm": {}})")
                .find("unknown GEMM subgroup"),
            std::string::npos);
  EXPECT_THROW(Taxonomy::load("/nonexistent/taxonomy.json"), InputError);
}

TEST(Registry, NamesAliasesAndTheZoo) {
  EXPECT_EQ(model_infos().size(), 16u);
  EXPECT_EQ(canonical_model_name("ResNet_50"), "resnet50");
  EXPECT_EQ(canonical_model_name("bert-base-uncased"), "bert-base");  // the zoo's alias
  EXPECT_EQ(canonical_model_name("detr"), "detr-r50");
  EXPECT_EQ(canonical_model_name("Mixtral"), "mixtral-8x7b");
  EXPECT_EQ(canonical_model_name("faster_rcnn"), "faster-rcnn-r50-fpn");
  EXPECT_EQ(canonical_model_name("mobilenet-v2"), "");  // in the zoo, not in the suite
  EXPECT_EQ(canonical_model_name(""), "");
  // Every suite name the workload zoo knows is spelled as the zoo spells it.
  int in_zoo = 0;
  for (const ModelInfo& m : model_infos()) {
    if (!m.zoo_name.empty()) {
      ++in_zoo;
      EXPECT_EQ(workload::zoo_canonical_name(m.name), m.name);
    }
  }
  EXPECT_GE(in_zoo, 6);  // resnet50, bert-base, gpt2, gpt2-xl, vit-b16, llama2-7b
  EXPECT_THROW(model_info("alexnet"), InputError);
}

TEST(Registry, ResolvesDefaultsAndRejectsBadOptions) {
  ModelOptions o;
  ResolvedOptions r = resolve_options("gpt2", o);
  EXPECT_EQ(r.seq_len, 256);
  EXPECT_EQ(r.layers_run, 12);
  r = resolve_options("gpt2-xl", o);
  EXPECT_EQ(r.seq_len, 512);
  r = resolve_options("llama2-7b", o);
  EXPECT_EQ(r.seq_len, 2048);
  EXPECT_EQ(r.layers_run, 1);
  EXPECT_EQ(r.layers_full, 32);
  r = resolve_options("detr-r50", o);
  EXPECT_EQ(r.image_h, 800);
  EXPECT_EQ(r.image_w, 1088);
  EXPECT_EQ(resolve_options("segformer-b0", o).image_h, 512);
  EXPECT_EQ(resolve_options("bert-base", o).seq_len, 128);

  ModelOptions bad;
  bad.batch = 0;
  EXPECT_THROW(resolve_options("resnet50", bad), InputError);
  bad = {};
  bad.seq_len = 16;
  EXPECT_THROW(resolve_options("resnet50", bad), InputError);  // a vision model
  bad.seq_len = 1025;
  EXPECT_THROW(resolve_options("gpt2", bad), InputError);
  bad = {};
  bad.layers = 33;
  EXPECT_THROW(resolve_options("llama2-7b", bad), InputError);
  bad.layers = 2;
  EXPECT_THROW(resolve_options("swin-t", bad), InputError);  // no override
  try {
    bad = {};
    bad.layers = 0;
    bad.batch = 5000;
    resolve_options("resnet50", bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("<flag --batch>"), std::string::npos);
  }
}

}  // namespace
}  // namespace sparsemap::ml::nongemm
