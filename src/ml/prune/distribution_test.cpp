// Distributions: uniform, the filter, the custom map, and ERK against hand-worked examples.
#include "sparsemap/ml/prune/distribution.h"

#include <gtest/gtest.h>

#include "sparsemap/error.h"

namespace sparsemap::ml::prune {
namespace {

const std::vector<ParamShape> kMlp = {{"fc1.weight", {300, 784}}, {"fc1.bias", {300}},
                                      {"fc2.weight", {100, 300}}, {"fc2.bias", {100}},
                                      {"bn.weight", {5, 5}},      {"fc3.weight", {10, 100}}};

TEST(Distribution, UniformPrunesWhatTheFilterAllows) {
  const auto s = layer_sparsities(kMlp, 0.8, {});
  ASSERT_EQ(s.size(), kMlp.size());
  EXPECT_EQ(s[0], 0.8);
  EXPECT_FALSE(s[1]);  // bias
  EXPECT_EQ(s[2], 0.8);
  EXPECT_FALSE(s[3]);
  EXPECT_FALSE(s[4]);  // a norm, although 2-D
  EXPECT_EQ(s[5], 0.8);
  EXPECT_FALSE(default_prunable({"w", {7}}));
  EXPECT_TRUE(default_prunable({"conv.weight", {8, 3, 3, 3}}));
}

TEST(Distribution, CustomMapAndKeepDense) {
  Distribution d;
  d.custom = {{"fc1.bias", 0.5}, {"fc2.weight", 0.95}};
  d.keep_dense = {"fc3"};
  const auto s = layer_sparsities(kMlp, 0.8, d);
  EXPECT_EQ(s[0], 0.8);
  EXPECT_EQ(s[1], 0.5);  // custom prunes even a bias
  EXPECT_EQ(s[2], 0.95);
  EXPECT_FALSE(s[5]);  // kept dense
  d.custom = {{"nope", 0.5}};
  EXPECT_THROW(layer_sparsities(kMlp, 0.8, d), InputError);
  EXPECT_THROW(layer_sparsities(kMlp, 1.2, {}), InputError);
  EXPECT_EQ(parse_custom_map("fc1.weight=0.9,fc2.weight=0"),
            (std::map<std::string, double>{{"fc1.weight", 0.9}, {"fc2.weight", 0.0}}));
  EXPECT_THROW(parse_custom_map("fc1.weight=2"), InputError);
  EXPECT_THROW(parse_custom_map("fc1.weight"), InputError);
}

TEST(Distribution, ErkHandWorked) {
  // A: 100 x 100, raw = 200 / 10000 = 0.02; B: 10 x 100, raw = 110 / 1000 = 0.11.
  // s = 0.9: ones to keep = (10000 - 9000) + (1000 - 900) = 1100;
  // eps = 1100 / (0.02 * 10000 + 0.11 * 1000) = 1100 / 310;
  // density A = 0.02 * eps = 22/310, B = 0.11 * eps = 121/310.
  Distribution d;
  d.kind = DistributionKind::Erk;
  const auto s = layer_sparsities({{"a.weight", {100, 100}}, {"b.weight", {10, 100}}}, 0.9, d);
  EXPECT_NEAR(*s[0], 1.0 - 22.0 / 310.0, 1e-12);   // 0.929032...
  EXPECT_NEAR(*s[1], 1.0 - 121.0 / 310.0, 1e-12);  // 0.609677...
  // The kept count equals uniform's: 10000 * 22/310 + 1000 * 121/310 = 1100.
  EXPECT_NEAR(10000 * (1 - *s[0]) + 1000 * (1 - *s[1]), 1100.0, 1e-9);
}

TEST(Distribution, ErkResolvesLayersThatWouldExceedDensityOne) {
  // A: 100 x 100 (raw 0.02), B: 2 x 100 (raw 102 / 200 = 0.51), s = 0.5.
  // First solve: eps = (5000 + 100) / (200 + 102) = 16.89, B's density 8.6 > 1 -> B dense.
  // Re-solve: eps * 0.02 * 10000 = 5000 - floor(0.5 * 200) = 4900 -> eps = 24.5,
  // density A = 0.49 (sparsity 0.51), B = 1 (sparsity 0).
  Distribution d;
  d.kind = DistributionKind::Erk;
  const auto s = layer_sparsities({{"a.weight", {100, 100}}, {"b.weight", {2, 100}}}, 0.5, d);
  EXPECT_NEAR(*s[0], 0.51, 1e-12);
  EXPECT_DOUBLE_EQ(*s[1], 0.0);
  // Conv kernels count their kernel dimensions (ERK, not ER): raw = (8+4+3+3) / 288.
  const auto c = layer_sparsities(
      {{"conv.weight", {8, 4, 3, 3}}, {"fc.weight", {10, 288}}, {"fc.bias", {10}}}, 0.8, d);
  const double raw_c = 18.0 / 288.0, raw_f = 298.0 / 2880.0;
  const double ones = (288 - 230) + (2880 - 2304);  // floor(0.8 * N) zeros each
  const double eps = ones / (raw_c * 288 + raw_f * 2880);
  EXPECT_NEAR(*c[0], 1 - eps * raw_c, 1e-12);
  EXPECT_NEAR(*c[1], 1 - eps * raw_f, 1e-12);
  EXPECT_FALSE(c[2]);
}

TEST(Distribution, ErkLeavesCustomLayersOut) {
  Distribution d;
  d.kind = DistributionKind::Erk;
  d.custom = {{"b.weight", 0.3}};
  const auto s = layer_sparsities({{"a.weight", {100, 100}}, {"b.weight", {10, 100}}}, 0.9, d);
  EXPECT_NEAR(*s[0], 0.9, 1e-12);  // the only ERK layer keeps uniform's count
  EXPECT_DOUBLE_EQ(*s[1], 0.3);
  EXPECT_EQ(parse_distribution("ERK"), DistributionKind::Erk);
  EXPECT_THROW(parse_distribution("er"), InputError);
}

}  // namespace
}  // namespace sparsemap::ml::prune
