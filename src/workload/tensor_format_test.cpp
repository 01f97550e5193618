#include "sparsemap/workload/tensor_format.h"

#include <gtest/gtest.h>

#include "sparsemap/error.h"

namespace sparsemap::workload {
namespace {

TEST(TensorFormat, RankUnitsFollowSparseloopsFormulas) {
  // A fibre of 8 coordinates, 3 of 4 fibres nonempty, 5 nonzero coordinates in all.
  const RankOccupancy o{8, 3, 4, 5};
  auto u = rank_units(RankFormat::kUOP, o);
  EXPECT_EQ(u.metadata, 0);
  EXPECT_EQ(u.payload, 27);  // 3 * (8 + 1)
  u = rank_units(RankFormat::kCP, o);
  EXPECT_EQ(u.metadata, 5);
  EXPECT_EQ(u.payload, 5);
  u = rank_units(RankFormat::kB, o);
  EXPECT_EQ(u.metadata, 24);  // 3 * 8
  EXPECT_EQ(u.payload, 5);
  u = rank_units(RankFormat::kUB, o);
  EXPECT_EQ(u.metadata, 32);  // 4 * 8
  EXPECT_EQ(u.payload, 32);
  u = rank_units(RankFormat::kRLE, o);
  EXPECT_EQ(u.metadata, 5);
  EXPECT_EQ(u.payload, 5);
}

TEST(TensorFormat, CsrOfThreeRowsAndFourNonzerosIs256Bits) {
  // CSR of a 3 x 5 matrix with 4 nonzeros: 32-bit row offsets (3 + 1) and column indices (4).
  TensorFormat f{{uop_rank("rows", "rows", 32), cp_rank("cols", "cols", 32, 0)}};
  const FormatBits b = format_bits(f, {{3, 1, 1, 3}, {5, 3, 3, 4}});
  EXPECT_EQ(b.metadata, (std::vector<double>{0, 128}));
  EXPECT_EQ(b.payload, (std::vector<double>{128, 0}));  // the innermost payload is the data
  EXPECT_EQ(b.total(), 256);
  EXPECT_TRUE(f.compressed());
  EXPECT_EQ(f.str(), "UOP(rows; p32) CP(cols; m32 p0)");
}

TEST(TensorFormat, DenseRanksStoreNothingAndPrintAsU) {
  TensorFormat f{{dense_rank("rows", "rows/8"), dense_rank("cols", "cols")}};
  EXPECT_FALSE(f.compressed());
  EXPECT_TRUE(f.ranks[0].dense());
  EXPECT_EQ(format_bits(f, {{2, 1, 1, 2}, {7, 2, 2, 14}}).total(), 0);
  EXPECT_EQ(f.str(), "U(rows/8) U(cols)");
}

TEST(TensorFormat, SparseloopRanksPrintTheirDimensions) {
  RankSpec r;
  r.format = RankFormat::kRLE;
  r.flattened_rank_ids = {{"C", "R"}};
  TensorFormat f{{r}};
  EXPECT_EQ(f.str(), "RLE(C,R)");
  EXPECT_STREQ(rank_format_name(RankFormat::kUB), "UB");
  EXPECT_FALSE(rank_compressed(RankFormat::kUB));
  EXPECT_TRUE(rank_compressed(RankFormat::kB));
}

TEST(TensorFormat, BitsNeedEveryWidthAndOneOccupancyPerRank) {
  RankSpec r;  // widths -1: the level's default, unknown here
  TensorFormat f{{r}};
  EXPECT_THROW(format_bits(f, {{1, 1, 1, 1}}), InputError);
  EXPECT_THROW(format_bits(TensorFormat{}, {{1, 1, 1, 1}}), InputError);
}

}  // namespace
}  // namespace sparsemap::workload
