// The tracked-threshold masking pass equals magnitude_mask at every step: scores drifting a
// little, jumping (misses), with ties, a changing kept count, aliased scores and beta.
#include "sparsemap/ml/prune/ste_mask.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::ml::prune {
namespace {

// Checks one step against the reference mask; returns the full selections so far.
void expect_step(const std::vector<float>& w, const std::vector<float>& s, int64_t keep, float beta,
                 SteBand& band, const std::string& what) {
  const int64_t n = static_cast<int64_t>(w.size());
  std::vector<float> out(w.size()), mk(w.size());
  ste_mask_unstructured(w.data(), s.data(), out.data(), mk.data(), n, keep, beta, band);
  const double sparsity = 1.0 - static_cast<double>(keep) / static_cast<double>(n);
  ASSERT_EQ(sparse::kept_units(n, sparsity), keep);
  const sparse::Mask want = sparse::magnitude_mask({s.data(), 1, n, n}, sparsity);
  int64_t wrong = 0, kept = 0;
  for (int64_t j = 0; j < n; ++j) {
    const bool k = want.keep[static_cast<size_t>(j)] != 0;
    kept += mk[static_cast<size_t>(j)] == 1.0f;
    wrong += (mk[static_cast<size_t>(j)] == 1.0f) != k ||
             out[static_cast<size_t>(j)] !=
                 (k ? w[static_cast<size_t>(j)] : w[static_cast<size_t>(j)] * beta);
  }
  EXPECT_EQ(wrong, 0) << what;
  EXPECT_EQ(kept, keep) << what;
}

TEST(SteMask, EqualsMagnitudeMaskAsWeightsDriftAndTheCountChanges) {
  std::mt19937 rng(7);
  std::normal_distribution<float> init(0.0f, 0.05f), step(0.0f, 1e-3f);
  const int64_t n = 10007;  // not a multiple of 8: the scalar tail runs too
  std::vector<float> w(static_cast<size_t>(n));
  for (float& x : w) x = init(rng);
  SteBand band;
  for (int t = 0; t < 60; ++t) {
    const int64_t keep = n - std::llround(std::min(0.9, 0.02 * t) * static_cast<double>(n));
    expect_step(w, w, keep, 0.0f, band, "drift, step " + std::to_string(t));
    for (float& x : w) x += step(rng);
  }
  // Most steps hit the band: the first (no threshold yet) and a few early ones do not.
  EXPECT_LT(band.full_selects, 10);
  EXPECT_GE(band.full_selects, 1);
}

TEST(SteMask, TiesGoToTheLowerIndexAndJumpsFallBackToTheFullSelection) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> level(-6, 6);  // many exact ties, zeros included
  const int64_t n = 999;
  std::vector<float> w(static_cast<size_t>(n)), scores(w.size());
  SteBand band;
  for (int t = 0; t < 20; ++t) {
    for (float& x : w) x = 0.125f * static_cast<float>(level(rng));  // a jump every step
    expect_step(w, w, 400 + 7 * t, 0.25f, band, "ties, step " + std::to_string(t));
  }
  EXPECT_GE(band.full_selects, 1);
  // Fixed scores apart from the weights (random_ste): every step after the first hits.
  for (float& x : scores) x = static_cast<float>(rng() % 1000) / 7.0f;
  SteBand fixed;
  for (int t = 0; t < 5; ++t) {
    for (float& x : w) x = 0.125f * static_cast<float>(level(rng));
    expect_step(w, scores, 500, 0.0f, fixed, "fixed scores, step " + std::to_string(t));
  }
  EXPECT_EQ(fixed.full_selects, 1);
  // All or nothing kept.
  expect_step(w, w, n, 0.0f, band, "keep all");
  expect_step(w, w, 0, 0.5f, band, "keep none");
  EXPECT_FALSE(band.valid);
}

TEST(SteMask, GradientScalesPrunedEntriesAndAddsTheDecay) {
  std::vector<float> g = {1, 2, 3, 4}, w = {0.5f, -1, 2, 0}, mk = {1, 0, 0, 1};
  ste_gradient(g.data(), w.data(), mk.data(), 0.1f, 0.5f, 4);
  // kept: g; pruned: g * 0.5 + 0.1 * w.
  EXPECT_FLOAT_EQ(g[0], 1.0f);
  EXPECT_FLOAT_EQ(g[1], 2 * 0.5f + 0.1f * -1);
  EXPECT_FLOAT_EQ(g[2], 3 * 0.5f + 0.1f * 2);
  EXPECT_FLOAT_EQ(g[3], 4.0f);
}

TEST(SteMask, DecayFromTheMaskedWeightsEqualsTheMaskFormula) {
  std::vector<float> w = {0.5f, -1, 2, 0, 3}, mk = {1, 0, 0, 1, 0}, masked(5), g(5, 1.0f),
                     want(5, 1.0f);
  for (size_t j = 0; j < w.size(); ++j) masked[j] = w[j] * mk[j];
  ste_decay(g.data(), w.data(), masked.data(), 0.25f, 5);
  ste_gradient(want.data(), w.data(), mk.data(), 0.25f, 1.0f, 5);
  EXPECT_EQ(g, want);
  EXPECT_FLOAT_EQ(g[1], 1.0f + 0.25f * -1);
}

}  // namespace
}  // namespace sparsemap::ml::prune
