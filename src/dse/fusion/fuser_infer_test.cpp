// The learned fusion mapper without libtorch: the plain weights file round-trips and refuses
// every bad file with one InputError naming it; decoding is deterministic, needs no repair
// machinery of its own and refuses models longer than its positions.
#include "sparsemap/dse/fusion/fuser_infer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "sparsemap/arch/presets.h"
#include "sparsemap/dse/fusion/synthetic_models.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::dse::fusion {
namespace {

// The held-out case ShippedModelOnHeldOutCase pins.
constexpr const char* kPinModel = "mnasnet";
constexpr int64_t kPinBatch = 64;
constexpr int64_t kPinBufferKb = 1536;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("sparsemap_fuser_infer_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// Weights of a small configuration filled with reproducible values in [-0.5, 0.5).
FuserWeights random_weights(int d, int layers, int heads, int max_nodes, uint64_t seed) {
  FuserWeights w;
  w.config = {d, layers, heads, max_nodes};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  for (auto& [v, count] : w.arrays()) {
    v->resize(count);
    for (float& x : *v) x = u(rng);
  }
  return w;
}

cost::FusionCostModel model_of(uint64_t seed, int64_t batch, int64_t buffer_kb) {
  cost::FusionOptions o;
  o.buffer_bytes = buffer_kb * 1024;
  return cost::FusionCostModel(cost::fusion_graph(synthetic_cnn(seed, batch), batch),
                               arch::preset("flat-edge"), o);
}

void expect_refused(const std::string& path, const std::string& fragment) {
  try {
    read_fuser_weights(path);
    ADD_FAILURE() << path << " was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(FuserInfer, WeightsRoundTripExactly) {
  const FuserWeights w = random_weights(8, 2, 2, 40, 5);
  const std::string path = temp_path("w.bin");
  write_fuser_weights(w, path);
  EXPECT_TRUE(is_fuser_weights_file(path));
  // Header 28 bytes; 11 + 2 x 12 arrays, each an 8-byte count; d = 8: 2,616 floats.
  EXPECT_EQ(std::filesystem::file_size(path), 28u + 35u * 8u + 4u * 2616u);
  FuserWeights r = read_fuser_weights(path);
  std::filesystem::remove(path);
  EXPECT_EQ(r.config.d_model, 8);
  EXPECT_EQ(r.config.max_nodes, 40);
  FuserWeights w2 = w;
  const auto a = w2.arrays(), b = r.arrays();
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(*a[k].first, *b[k].first) << k;
  const cost::FusionCostModel m = model_of(2, 8, 256);
  EXPECT_EQ(infer_mapping(w, m), infer_mapping(r, m));
  EXPECT_EQ(fuser_weights_path("data/dnnfuser/fuser.pt"), "data/dnnfuser/fuser.bin");
  EXPECT_EQ(fuser_weights_path("model"), "model.bin");
}

TEST(FuserInfer, BadWeightFilesAreOneInputError) {
  const FuserWeights w = random_weights(8, 1, 2, 16, 1);
  const std::string good = temp_path("good.bin");
  write_fuser_weights(w, good);
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::filesystem::remove(good);
  const std::string path = temp_path("bad.bin");
  auto write = [&](const std::string& b) { std::ofstream(path, std::ios::binary) << b; };
  expect_refused(temp_path("missing.bin"), "no such weights file");
  expect_refused(std::filesystem::temp_directory_path().string(), "not a regular file");
  write("not a model at all, just text");
  expect_refused(path, "SMFUSER header");
  EXPECT_FALSE(is_fuser_weights_file(path));
  write(bytes.substr(0, bytes.size() - 1));  // truncated
  expect_refused(path, "truncated or not written by fuse-train");
  write(bytes + "x");  // trailing byte
  expect_refused(path, "bytes");
  std::string v = bytes;
  v[8] = 2;  // version 2
  write(v);
  expect_refused(path, "unsupported weights file version 2");
  std::string c = bytes;
  c[20] = 3;  // heads 3 does not divide d_model 8
  write(c);
  expect_refused(path, "heads must divide d_model");
  std::string big = bytes;  // d_model 2^30: refused before any allocation
  big[12] = 0, big[13] = 0, big[14] = 0, big[15] = 0x40;
  write(big);
  expect_refused(path, "d_model must be 4 to 1024");
  std::string nf = bytes;  // the first value of the first array becomes NaN
  const float nan = std::nanf("");
  std::memcpy(&nf[28 + 8], &nan, 4);
  write(nf);
  expect_refused(path, "non-finite");
  std::filesystem::remove(path);
}

TEST(FuserInfer, DecodingIsDeterministicAndBounded) {
  const FuserWeights w = random_weights(16, 2, 4, 128, 9);
  for (uint64_t s : {1, 4}) {
    const cost::FusionCostModel m = model_of(s, 16, 256);
    const cost::FusionMapping a = infer_mapping(w, m);
    EXPECT_EQ(a, infer_mapping(w, m));
    ASSERT_EQ(a.micro_batch.size(), static_cast<size_t>(m.size()));
    for (int64_t x : a.micro_batch) EXPECT_EQ(16 % x, 0);
    bool repaired = false;
    const FusionResult r = learned(m, Objective::Latency, w, &repaired);
    EXPECT_EQ(r.method, "learned");
    if (!repaired) {
      EXPECT_EQ(r.mapping, a);
    }
    if (dp(m, Objective::Latency).cost.meets_buffer) {
      EXPECT_TRUE(r.cost.meets_buffer);
    }
  }
  const FuserWeights few = random_weights(8, 1, 2, 3, 2);  // 3 positions
  EXPECT_THROW(infer_mapping(few, model_of(1, 4, 256)), InputError);
}

// The shipped model (data/dnnfuser/fuser.bin) on one held-out case of docs/dnnfuser.md's
// evaluation grid: mnasnet (not in training) at batch 64 with a 1,536 KiB buffer on flat-edge,
// dataflow best, latency objective, the same as `sparsemap fuse --model mnasnet --batch 64
// --buffer-kb 1536 --method none,dp,learned`. Pins the learned mapping's cost exactly, beside no
// fusion and DP (the best search on this case): a retrained or changed fuser.bin, features or
// decoding shows up here.
TEST(FuserInfer, ShippedModelOnHeldOutCase) {
  workload::ZooOptions zo;
  zo.batch = kPinBatch;
  cost::FusionOptions fo;
  fo.buffer_bytes = kPinBufferKb * 1024;
  const cost::FusionCostModel m(cost::fusion_graph(workload::zoo_model(kPinModel, zo), kPinBatch),
                                arch::preset("flat-edge"), fo);
  const FuserWeights w =
      read_fuser_weights(std::string(SPARSEMAP_SOURCE_DIR) + "/data/dnnfuser/fuser.bin");
  const FusionResult l = learned(m, Objective::Latency, w);
  const FusionResult none = no_fusion(m, Objective::Latency);
  const FusionResult best = dp(m, Objective::Latency);
  std::printf(
      "none %.17g cycles %.17g B; dp %.17g cycles %.17g B; learned %.17g cycles %.17g B, "
      "%zu groups, gain kept %.4f\n",
      none.cost.latency_cycles, none.cost.dram_bytes, best.cost.latency_cycles,
      best.cost.dram_bytes, l.cost.latency_cycles, l.cost.dram_bytes, l.mapping.groups().size(),
      (none.cost.latency_cycles - l.cost.latency_cycles) /
          (none.cost.latency_cycles - best.cost.latency_cycles));
  EXPECT_TRUE(l.cost.meets_buffer);
  EXPECT_DOUBLE_EQ(l.cost.latency_cycles, 86282461.520793915);
  EXPECT_DOUBLE_EQ(l.cost.dram_bytes, 1103175312);
  EXPECT_EQ(l.mapping.groups().size(), 40u);  // of 53 layers
  EXPECT_DOUBLE_EQ(none.cost.latency_cycles, 87674136.915653229);
  EXPECT_DOUBLE_EQ(none.cost.dram_bytes, 1544629904);
  EXPECT_DOUBLE_EQ(best.cost.latency_cycles, 84642993);
  EXPECT_DOUBLE_EQ(best.cost.dram_bytes, 991535760);
  // It keeps 45.9% of the latency that fusion gains here (docs/dnnfuser.md's headline).
  EXPECT_NEAR((none.cost.latency_cycles - l.cost.latency_cycles) /
                  (none.cost.latency_cycles - best.cost.latency_cycles),
              0.4591, 1e-4);
}

}  // namespace
}  // namespace sparsemap::dse::fusion
