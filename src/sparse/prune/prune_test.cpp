// Pruning: exact sparsity, deterministic ties, each pattern's invariants, errors.
#include "sparsemap/sparse/prune/prune.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::sparse {
namespace {

DenseMatrix random_dense(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  DenseMatrix d(rows, cols);
  for (auto& x : d.values) x = u(rng);
  return d;
}

TEST(Prune, MagnitudeKeepsExactlyTheLargest) {
  const DenseMatrix w = random_dense(10, 10, 1);
  const Mask m = magnitude_mask(w.view(), 0.37);
  EXPECT_EQ(m.kept(), 63);
  float min_kept = 2, max_dropped = -1;
  for (int64_t r = 0; r < 10; ++r)
    for (int64_t c = 0; c < 10; ++c) {
      const float a = std::fabs(w.at(r, c));
      if (m.at(r, c))
        min_kept = std::min(min_kept, a);
      else
        max_dropped = std::max(max_dropped, a);
    }
  EXPECT_GE(min_kept, max_dropped);
  EXPECT_EQ(magnitude_mask(w.view(), 0.0).kept(), 100);
  EXPECT_EQ(magnitude_mask(w.view(), 1.0).kept(), 0);
}

TEST(Prune, TiesAreBrokenByPositionDeterministically) {
  DenseMatrix w(4, 4);
  std::fill(w.values.begin(), w.values.end(), 1.0f);
  const Mask m = magnitude_mask(w.view(), 0.5);
  for (int64_t i = 0; i < 16; ++i) EXPECT_EQ(m.keep[static_cast<size_t>(i)], i < 8 ? 1 : 0);
  EXPECT_EQ(magnitude_mask(w.view(), 0.5), m);
  const Mask v = column_vector_mask(w.view(), 2, 0.5);  // 8 vectors, keep 4: columns 0-3, group 0
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 4; ++c) EXPECT_EQ(v.at(r, c), r < 2) << r << "," << c;
}

TEST(Prune, ColumnVectorsAreWholeAndExact) {
  const DenseMatrix w = random_dense(64, 40, 2);
  for (int vl : {1, 2, 4, 8, 16, 32}) {
    const Mask m = column_vector_mask(w.view(), vl, 0.9);
    const int64_t units = (64 / vl) * 40;
    EXPECT_EQ(m.kept(), (units - std::llround(0.9 * units)) * vl) << vl;
    for (int64_t g = 0; g < 64 / vl; ++g)
      for (int64_t c = 0; c < 40; ++c)
        for (int64_t i = 1; i < vl; ++i) EXPECT_EQ(m.at(g * vl + i, c), m.at(g * vl, c));
    const CvseMatrix s =
        std::get<CvseMatrix>(prune(w.view(), parse_format("cvse:" + std::to_string(vl)), 0.9));
    EXPECT_EQ(s.vectors(), units - std::llround(0.9 * units));
    EXPECT_EQ(to_dense(s), apply_mask(w.view(), m));
  }
  // M not a multiple of V: the last group's vectors are shorter.
  const Mask odd = column_vector_mask(random_dense(13, 7, 3).view(), 8, 0.5);
  EXPECT_EQ(odd.rows, 13);
}

TEST(Prune, ColumnVectorKeepsTheLargestNorms) {
  DenseMatrix w(4, 3);  // V = 4: one group, 3 vectors with norms 1, 3, 2
  w.at(0, 0) = 1;
  w.at(1, 1) = 3;
  w.at(2, 2) = -2;
  const Mask m = column_vector_mask(w.view(), 4, 1.0 / 3.0);
  EXPECT_FALSE(m.at(0, 0));
  EXPECT_TRUE(m.at(0, 1));
  EXPECT_TRUE(m.at(3, 2));
}

TEST(Prune, NmKeepsNPerGroupOnBothAxes) {
  const DenseMatrix w = random_dense(9, 11, 4);
  for (NmAxis axis : {NmAxis::Row, NmAxis::Col}) {
    const Mask m = nm_mask(w.view(), 2, 4, axis);
    const int64_t lines = axis == NmAxis::Row ? 9 : 11, extent = axis == NmAxis::Row ? 11 : 9;
    for (int64_t line = 0; line < lines; ++line)
      for (int64_t p0 = 0; p0 < extent; p0 += 4) {
        int kept = 0;
        float min_kept = 2, max_dropped = -1;
        for (int64_t p = p0; p < std::min<int64_t>(extent, p0 + 4); ++p) {
          const int64_t r = axis == NmAxis::Row ? line : p, c = axis == NmAxis::Row ? p : line;
          const float a = std::fabs(w.at(r, c));
          if (m.at(r, c)) {
            ++kept;
            min_kept = std::min(min_kept, a);
          } else {
            max_dropped = std::max(max_dropped, a);
          }
        }
        EXPECT_EQ(kept, std::min<int64_t>(2, extent - p0));
        EXPECT_GE(min_kept, max_dropped);
      }
    const NmMatrix s =
        std::get<NmMatrix>(prune(w.view(), FormatSpec{FormatKind::Nm, 1, 2, 4, 1, 1, axis}, -1));
    EXPECT_EQ(to_dense(s), apply_mask(w.view(), m));
  }
}

TEST(Prune, VnmSelectsFourColumnsPerBlockAndNPerRow) {
  const DenseMatrix w = random_dense(20, 24, 5);
  const Mask m = vnm_mask(w.view(), 8, 2, 8);
  EXPECT_NEAR(m.sparsity(), 0.75, 1e-12);
  for (int64_t b = 0; b < 20; b += 8)
    for (int64_t c0 = 0; c0 < 24; c0 += 8) {
      int cols_used = 0;
      for (int64_t c = c0; c < c0 + 8; ++c) {
        bool used = false;
        for (int64_t r = b; r < std::min<int64_t>(20, b + 8); ++r) used = used || m.at(r, c);
        cols_used += used;
      }
      EXPECT_LE(cols_used, 4);
      for (int64_t r = b; r < std::min<int64_t>(20, b + 8); ++r) {
        int kept = 0;
        for (int64_t c = c0; c < c0 + 8; ++c) kept += m.at(r, c);
        EXPECT_EQ(kept, 2);
      }
    }
  const VnmMatrix s = std::get<VnmMatrix>(prune(w.view(), parse_format("vnm:8:2:8"), 0.75));
  EXPECT_EQ(to_dense(s), apply_mask(w.view(), m));
}

TEST(Prune, BlocksAreWholeAndExact) {
  const DenseMatrix w = random_dense(17, 10, 6);  // 5 x 4 grid of 4x3 blocks (edges smaller)
  const Mask m = block_mask(w.view(), 4, 3, 0.5);
  for (int64_t r = 0; r < 17; ++r)
    for (int64_t c = 0; c < 10; ++c) EXPECT_EQ(m.at(r, c), m.at(r / 4 * 4, c / 3 * 3));
  const BsrMatrix s = std::get<BsrMatrix>(prune(w.view(), parse_format("bsr:4x3"), 0.5));
  EXPECT_EQ(s.blocks(), 20 - 10);
  EXPECT_EQ(to_dense(s), apply_mask(w.view(), m));
}

TEST(Prune, ErrorsAndRelativeError) {
  const DenseMatrix w = random_dense(8, 8, 7);
  EXPECT_THROW(magnitude_mask(w.view(), -0.1), InputError);
  EXPECT_THROW(magnitude_mask(w.view(), 1.5), InputError);
  EXPECT_THROW(magnitude_mask(w.view(), NAN), InputError);
  EXPECT_THROW(column_vector_mask(w.view(), 3, 0.5), InputError);
  EXPECT_THROW(prune_mask(w.view(), parse_format("nm:2:4"), 0.9), InputError);
  EXPECT_NO_THROW(prune_mask(w.view(), parse_format("nm:2:4"), 0.5));
  EXPECT_THROW(block_mask(w.view(), 0, 2, 0.5), InputError);
  EXPECT_THROW(nm_mask(w.view(), 5, 4, NmAxis::Row), InputError);

  DenseMatrix x(1, 2);
  x.values = {3, 4};
  EXPECT_DOUBLE_EQ(relative_error(x.view(), Mask{1, 2, {0, 1}}), 0.6);
  EXPECT_DOUBLE_EQ(relative_error(DenseMatrix(2, 2).view(), Mask{2, 2, {0, 0, 0, 0}}), 0.0);
}

// The reference rule: a stable sort of the units by descending score, cut after round(s * n).
std::vector<uint8_t> sorted_reference(const std::vector<double>& score, double sparsity) {
  const int64_t n = static_cast<int64_t>(score.size());
  const int64_t keep = n - std::llround(sparsity * static_cast<double>(n));
  std::vector<int64_t> idx(score.size());
  std::iota(idx.begin(), idx.end(), int64_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    return score[static_cast<size_t>(a)] > score[static_cast<size_t>(b)];
  });
  std::vector<uint8_t> out(score.size(), 0);
  for (int64_t i = 0; i < keep; ++i) out[static_cast<size_t>(idx[static_cast<size_t>(i)])] = 1;
  return out;
}

TEST(Prune, SelectionMatchesASortingReferenceWithManyTies) {
  std::mt19937 rng(11);
  // Few distinct magnitudes (both signs, -0 and +0, subnormals, huge values), so most ranks
  // fall inside runs of equal scores; also a strided view (ld > cols).
  const std::vector<float> values = {0.0f, -0.0f, 1e-42f, 0.25f,   -0.25f,
                                     0.5f, 1.0f,  -1.0f,  3.0e38f, 0.5000001f};
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t rows = 1 + static_cast<int64_t>(rng() % 40),
                  cols = 1 + static_cast<int64_t>(rng() % 70);
    const int64_t ld = cols + static_cast<int64_t>(rng() % 3);
    std::vector<float> data(static_cast<size_t>(rows * ld), 9.0f);
    const size_t distinct = 1 + rng() % values.size();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        data[static_cast<size_t>(r * ld + c)] = values[rng() % distinct];
    const ConstMatrixView w{data.data(), rows, cols, ld};
    std::vector<double> entry(static_cast<size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        entry[static_cast<size_t>(r * cols + c)] = std::fabs(data[static_cast<size_t>(r * ld + c)]);
    for (double s : {0.0, 0.1, 0.37, 0.5, 0.8, 0.95, 1.0}) {
      EXPECT_EQ(magnitude_mask(w, s).keep, sorted_reference(entry, s)) << trial << " s=" << s;
      // The threshold form keeps the same entries.
      const MagnitudeThreshold t = magnitude_threshold(w, s);
      std::vector<uint8_t> by_threshold;
      int64_t ties = t.ties;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          uint32_t bits;
          std::memcpy(&bits, &data[static_cast<size_t>(r * ld + c)], sizeof bits);
          bits &= 0x7fffffffu;
          const bool tie = bits == t.bits && ties > 0;
          ties -= tie;
          by_threshold.push_back(bits > t.bits || tie);
        }
      EXPECT_EQ(by_threshold, sorted_reference(entry, s)) << trial << " s=" << s;
      // 2 x 3 blocks: the reference ranks each block's squared norm.
      const int64_t gr = (rows + 1) / 2, gc = (cols + 2) / 3;
      std::vector<double> block(static_cast<size_t>(gr * gc), 0.0);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          const double x = data[static_cast<size_t>(r * ld + c)];
          block[static_cast<size_t>((r / 2) * gc + c / 3)] += x * x;
        }
      const std::vector<uint8_t> units = sorted_reference(block, s);
      const Mask m = block_mask(w, 2, 3, s);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          ASSERT_EQ(m.at(r, c), units[static_cast<size_t>((r / 2) * gc + c / 3)] != 0)
              << trial << " s=" << s;
    }
  }
  // N:M groups (small M by rank counting, large M by sorting) on ties: per group the
  // reference keeps the first N of the stable order.
  for (int m : {4, 8, 16, 17, 32}) {
    const int64_t rows = 5, cols = 70;
    std::vector<float> data(static_cast<size_t>(rows * cols));
    for (float& x : data) x = values[rng() % 4];
    const ConstMatrixView w{data.data(), rows, cols, cols};
    for (int n : {1, 2, 3}) {
      const Mask got = nm_mask(w, n, m, NmAxis::Row);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c0 = 0; c0 < cols; c0 += m) {
          const int64_t len = std::min<int64_t>(m, cols - c0);
          std::vector<double> group(static_cast<size_t>(len));
          for (int64_t p = 0; p < len; ++p)
            group[static_cast<size_t>(p)] = std::fabs(data[static_cast<size_t>(r * cols + c0 + p)]);
          const double s = 1.0 - static_cast<double>(std::min<int64_t>(n, len)) / len;
          const std::vector<uint8_t> want = sorted_reference(group, s);
          for (int64_t p = 0; p < len; ++p)
            ASSERT_EQ(got.at(r, c0 + p), want[static_cast<size_t>(p)] != 0)
                << n << ":" << m << " row " << r << " col " << c0 + p;
        }
    }
  }
  // One large array of ties: 100,000 entries with 3 magnitudes.
  std::vector<float> big(100000);
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<float>(rng() % 3) * ((i & 1) ? 1.0f : -1.0f);
  std::vector<double> abs_big(big.size());
  for (size_t i = 0; i < big.size(); ++i) abs_big[i] = std::fabs(big[i]);
  const ConstMatrixView v{big.data(), 250, 400, 400};
  for (double s : {0.2, 0.5, 0.8, 0.9999})
    EXPECT_EQ(magnitude_mask(v, s).keep, sorted_reference(abs_big, s)) << s;
}

}  // namespace
}  // namespace sparsemap::sparse
