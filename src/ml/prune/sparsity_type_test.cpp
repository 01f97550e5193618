// Sparsity types: parsing, exact unit counts, N:M groups, pooled blocks, channels, vectors.
#include "sparsemap/ml/prune/sparsity_type.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sparsemap/error.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::ml::prune {
namespace {

using sparse::DenseMatrix;
using sparse::Mask;

DenseMatrix random_scores(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  DenseMatrix d(rows, cols);
  for (auto& x : d.values) x = u(rng);
  return d;
}

TEST(SparsityType, ParsesEveryForm) {
  EXPECT_EQ(parse_sparsity_type("unstructured").kind, SparsityKind::Unstructured);
  const SparsityType b = parse_sparsity_type("block:4x2");
  EXPECT_EQ(b.kind, SparsityKind::Block);
  EXPECT_EQ(b.bh, 4);
  EXPECT_EQ(b.bw, 2);
  EXPECT_EQ(b.pooling, Pooling::Avg);
  EXPECT_EQ(parse_sparsity_type("block:2x2:max").pooling, Pooling::Max);
  const SparsityType nm = parse_sparsity_type("nm:2:4:col");
  EXPECT_EQ(nm.n, 2);
  EXPECT_EQ(nm.m, 4);
  EXPECT_EQ(nm.axis, sparse::NmAxis::Col);
  EXPECT_DOUBLE_EQ(nm.intrinsic_sparsity(), 0.5);
  const SparsityType ch = parse_sparsity_type("channel:in");
  EXPECT_TRUE(ch.input_channels);
  EXPECT_EQ(ch.pooling, Pooling::L2);
  EXPECT_EQ(parse_sparsity_type("cvse:8").v, 8);
  for (const char* t : {"unstructured", "block:3x5:l2", "nm:1:8:row", "channel:out:avg", "cvse:4"})
    EXPECT_EQ(parse_sparsity_type(t).str(), t);
  for (const char* bad :
       {"", "block", "block:0x2", "nm:5:4", "nm:2:4:diag", "cvse:3", "chan", "block:2x2:min"})
    EXPECT_THROW(parse_sparsity_type(bad), InputError) << bad;
}

TEST(SparsityType, MatrixShapeOfParameters) {
  EXPECT_EQ(matrix_shape({300, 784}).rows, 300);
  EXPECT_EQ(matrix_shape({64, 32, 3, 3}).cols, 288);
  EXPECT_EQ(matrix_shape({10}).rows, 1);
  EXPECT_EQ(matrix_shape({10}).cols, 10);
}

TEST(SparsityType, UnstructuredIsExactPerLayer) {
  const DenseMatrix s = random_scores(30, 77, 1);
  for (double sp : {0.0, 0.1, 0.5, 0.8, 0.93, 1.0}) {
    const Mask m = compute_mask(s.view(), {}, sp, {30, 77});
    EXPECT_EQ(m.kept(), 2310 - std::llround(sp * 2310)) << sp;
    EXPECT_EQ(m, sparse::magnitude_mask(s.view(), sp));  // the same rule, not a second one
  }
  EXPECT_THROW(compute_mask(s.view(), {}, 1.5, {30, 77}), InputError);
}

TEST(SparsityType, NmHasExactlyNInEveryGroupAlongEitherAxis) {
  const DenseMatrix s = random_scores(16, 24, 2);
  for (auto axis : {sparse::NmAxis::Row, sparse::NmAxis::Col})
    for (auto [n, m] : {std::pair{2, 4}, std::pair{1, 4}, std::pair{4, 8}}) {
      SparsityType t;
      t.kind = SparsityKind::Nm;
      t.n = n;
      t.m = m;
      t.axis = axis;
      const Mask mask = compute_mask(s.view(), t, 0.5, {16, 24});
      for (int64_t line = 0; line < (axis == sparse::NmAxis::Row ? 16 : 24); ++line)
        for (int64_t g = 0; g < (axis == sparse::NmAxis::Row ? 24 : 16) / m; ++g) {
          int kept = 0;
          for (int i = 0; i < m; ++i)
            kept +=
                axis == sparse::NmAxis::Row ? mask.at(line, g * m + i) : mask.at(g * m + i, line);
          EXPECT_EQ(kept, n);
        }
      EXPECT_EQ(compute_mask(s.view(), t, 0.0, {16, 24}).kept(), 16 * 24);  // not yet pruning
    }
}

TEST(SparsityType, BlocksArePooledAndExact) {
  DenseMatrix s(4, 4);
  // Block (0,0) avg 0.5 max 1.0; block (0,1) avg 0.6 max 0.6; others 0.
  s.at(0, 0) = 1.0f;
  s.at(0, 1) = 0.5f;
  s.at(1, 0) = 0.5f;
  s.at(1, 1) = 0.0f;
  for (int r = 0; r < 2; ++r)
    for (int c = 2; c < 4; ++c) s.at(r, c) = 0.6f;
  SparsityType t = parse_sparsity_type("block:2x2:avg");
  Mask m = compute_mask(s.view(), t, 0.75, {4, 4});  // keep 1 of 4 blocks
  EXPECT_TRUE(m.at(0, 2) && m.at(1, 3) && !m.at(0, 0));
  t.pooling = Pooling::Max;
  m = compute_mask(s.view(), t, 0.75, {4, 4});
  EXPECT_TRUE(m.at(0, 0) && m.at(1, 1) && !m.at(0, 2));
  EXPECT_EQ(m.kept(), 4);
  // L2 pooling is sparse::block_mask itself; both routes agree, edge blocks included.
  const DenseMatrix r = random_scores(13, 10, 3);
  t.pooling = Pooling::L2;
  t.bh = 4;
  t.bw = 3;
  const Mask direct = compute_mask(r.view(), t, 0.6, {13, 10});
  EXPECT_EQ(direct, sparse::block_mask(r.view(), 4, 3, 0.6));
  EXPECT_EQ(unit_count(t, {13, 10}), 16);
  t.pooling = Pooling::Avg;
  const Mask avg = compute_mask(r.view(), t, 0.6, {13, 10});
  int64_t kept_blocks = 0;
  for (int64_t br = 0; br < 4; ++br)
    for (int64_t bc = 0; bc < 4; ++bc) kept_blocks += avg.at(br * 4, bc * 3);
  EXPECT_EQ(kept_blocks, 16 - std::llround(0.6 * 16));
}

TEST(SparsityType, ChannelsAndVectors) {
  const DenseMatrix s = random_scores(8, 4 * 9, 4);  // a conv [8, 4, 3, 3]
  const std::vector<int64_t> shape = {8, 4, 3, 3};
  const Mask out = compute_mask(s.view(), parse_sparsity_type("channel"), 0.5, shape);
  int rows_kept = 0;
  for (int64_t r = 0; r < 8; ++r) {
    const bool k = out.at(r, 0);
    for (int64_t c = 0; c < 36; ++c) EXPECT_EQ(out.at(r, c), k);
    rows_kept += k;
  }
  EXPECT_EQ(rows_kept, 4);
  const Mask in = compute_mask(s.view(), parse_sparsity_type("channel:in:avg"), 0.25, shape);
  int ch_kept = 0;
  for (int64_t ch = 0; ch < 4; ++ch) {
    const bool k = in.at(0, ch * 9);
    for (int64_t r = 0; r < 8; ++r)
      for (int64_t c = ch * 9; c < ch * 9 + 9; ++c) EXPECT_EQ(in.at(r, c), k);
    ch_kept += k;
  }
  EXPECT_EQ(ch_kept, 3);
  EXPECT_EQ(unit_count(parse_sparsity_type("channel:in"), shape), 4);
  const Mask v = compute_mask(s.view(), parse_sparsity_type("cvse:4"), 0.75, shape);
  EXPECT_EQ(v, sparse::column_vector_mask(s.view(), 4, 0.75));
  EXPECT_EQ(v.kept(), (72 - 54) * 4);
}

TEST(SparsityType, TopKKeepsExactlyK) {
  DenseMatrix s(1, 6);
  s.values = {0.5f, 0.0f, 0.5f, 0.9f, 0.0f, 0.1f};
  const Mask m = top_k_mask(s.view(), 3);
  EXPECT_EQ(m.keep, (std::vector<uint8_t>{1, 0, 1, 1, 0, 0}));
  EXPECT_EQ(top_k_mask(s.view(), 5).keep,
            (std::vector<uint8_t>{1, 1, 1, 1, 0, 1}));  // ties: lower index
  EXPECT_EQ(top_k_mask(s.view(), 0).kept(), 0);
  EXPECT_EQ(top_k_mask(s.view(), 6).kept(), 6);
}

}  // namespace
}  // namespace sparsemap::ml::prune
