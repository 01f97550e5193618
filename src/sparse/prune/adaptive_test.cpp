// Adaptive column-vector pruning: the choice rule, per-panel choices, the panel kernel.
#include "sparsemap/sparse/prune/adaptive.h"

#include <gtest/gtest.h>

#include <random>

#include "sparsemap/error.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::sparse {
namespace {

// Columns constant within each aligned block of 8 rows: vector pruning loses nothing there.
DenseMatrix vector_structured(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  DenseMatrix d(rows, cols);
  for (int64_t g = 0; g < rows; g += 8)
    for (int64_t c = 0; c < cols; ++c) {
      const float x = n(rng);
      for (int64_t r = g; r < std::min(rows, g + 8); ++r) d.at(r, c) = x;
    }
  return d;
}

DenseMatrix iid(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  DenseMatrix d(rows, cols);
  for (auto& x : d.values) x = n(rng);
  return d;
}

std::vector<VCandidate> model_candidates() {
  std::vector<VCandidate> c;
  for (int v : {1, 2, 4, 8, 16, 32}) c.push_back({v, cvse_cost_model(v)});
  return c;
}

TEST(Adaptive, StructuredWeightsGetLongVectors) {
  const DenseMatrix w = vector_structured(64, 48, 1);
  const AdaptiveChoice c = choose_vector_length(w.view(), 0.8, 0.0, model_candidates());
  EXPECT_EQ(c.v, 8);  // 16 and 32 break the 8-row structure, so their error is higher
  EXPECT_LE(c.rel_error, c.unstructured_error + 1e-9);  // units round differently
  EXPECT_EQ(c.errors.size(), 6u);
}

TEST(Adaptive, BudgetTradesErrorForSpeed) {
  const DenseMatrix w = iid(64, 64, 2);
  const AdaptiveChoice strict = choose_vector_length(w.view(), 0.7, 0.0, model_candidates());
  EXPECT_EQ(strict.v, 1);
  const AdaptiveChoice loose = choose_vector_length(w.view(), 0.7, 10.0, model_candidates());
  EXPECT_EQ(loose.v, 32);  // every V qualifies; the cheapest wins
  // Errors grow with V on iid weights; some budget in between picks a middle V.
  const double b4 = loose.errors[2] / loose.unstructured_error - 1.0;
  const AdaptiveChoice mid = choose_vector_length(w.view(), 0.7, b4, model_candidates());
  EXPECT_GE(mid.v, 4);
  EXPECT_LE(mid.rel_error, (1 + b4) * mid.unstructured_error * (1 + 1e-9));
}

TEST(Adaptive, PanelsChooseTheirOwnVAndTheKernelMatches) {
  DenseMatrix w = vector_structured(64, 40, 3);
  const DenseMatrix noise = iid(32, 40, 4);
  for (int64_t r = 32; r < 64; ++r)
    for (int64_t c = 0; c < 40; ++c) w.at(r, c) = noise.at(r - 32, c);
  const AdaptiveCvse a = adaptive_cvse(w.view(), 0.75, 0.0, model_candidates(), 32);
  ASSERT_EQ(a.panels.size(), 2u);
  EXPECT_EQ(a.choices[0].v, 8);
  EXPECT_EQ(a.choices[1].v, 1);
  const DenseMatrix pruned = to_dense(a);
  EXPECT_NEAR(1.0 - static_cast<double>(pruned.nnz()) / (64 * 40), 0.75, 0.01);
  const DenseMatrix b = iid(40, 33, 5);
  DenseMatrix ref(64, 33), c(64, 33);
  spmm_dense_ref(pruned, b.view(), ref.view());
  spmm_adaptive(a, b.view(), c.view(), {2, Isa::Auto});
  for (size_t i = 0; i < c.values.size(); ++i) EXPECT_NEAR(c.values[i], ref.values[i], 1e-4);
}

TEST(Adaptive, BadArguments) {
  const DenseMatrix w = iid(8, 8, 6);
  EXPECT_THROW(choose_vector_length(w.view(), 0.5, 0.0, {}), InputError);
  EXPECT_THROW(choose_vector_length(w.view(), 0.5, -1.0, model_candidates()), InputError);
  EXPECT_THROW(choose_vector_length(w.view(), 0.5, 0.0, {{3, 1.0}}), InputError);
  EXPECT_THROW(adaptive_cvse(w.view(), 0.5, 0.0, model_candidates(), 20), InputError);
  EXPECT_THROW(cvse_cost_model(5), InputError);
}

}  // namespace
}  // namespace sparsemap::sparse
