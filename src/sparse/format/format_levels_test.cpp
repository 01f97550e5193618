// The kernels' formats in the one vocabulary of formats: each format's per-rank description,
// and its metadata bits on real stored matrices against footprint() (hand-worked numbers).
#include <gtest/gtest.h>

#include <cmath>

#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::sparse {
namespace {

using workload::format_bits;
using workload::FormatBits;

DenseMatrix with(int64_t rows, int64_t cols, std::initializer_list<std::pair<int, int>> nz) {
  DenseMatrix d(rows, cols);
  float x = 1.0f;
  for (const auto& [r, c] : nz) d.at(r, c) = x++;
  return d;
}

// The per-rank bits of `a`'s format, checked against footprint(a): per rank ceil(bits / 8)
// bytes sum to the metadata bytes; the innermost rank's coordinates are the stored values.
FormatBits bits_of(const AnySparse& a) {
  const auto f = spec_of(a).levels();
  const auto occ = rank_occupancy(a);
  const FormatBits b = format_bits(f, occ);
  int64_t bytes = 0;
  for (size_t r = 0; r < b.metadata.size(); ++r)
    bytes += static_cast<int64_t>(std::ceil((b.metadata[r] + b.payload[r]) / 8));
  const Footprint fp = footprint(a);
  EXPECT_EQ(bytes, fp.metadata_bytes) << spec_of(a).str();
  EXPECT_EQ(occ.back().coords, stored_values(a)) << spec_of(a).str();
  EXPECT_EQ(4 * stored_values(a), fp.values_bytes) << spec_of(a).str();
  return b;
}

TEST(FormatLevels, EachFormatsRanks) {
  auto s = [](const char* t) { return parse_format(t).levels().str(); };
  EXPECT_EQ(s("dense"), "U(rows) U(cols)");
  EXPECT_EQ(s("csr"), "UOP(rows; p32) CP(cols; m32 p0)");
  EXPECT_EQ(s("bsr:2x4"), "UOP(rows/2; p32) CP(cols/4; m32 p0) U(rows%2) U(cols%4)");
  EXPECT_EQ(s("cvse:8"), "UOP(rows/8; p32) CP(cols; m32 p0) U(rows%8)");
  EXPECT_EQ(s("nm:2:4"), "U(rows) U(cols/4) CP(2 of cols%4; m2 p0)");
  EXPECT_EQ(s("nm:1:8:col"), "U(rows/8) U(cols) CP(1 of rows%8; m3 p0)");
  EXPECT_EQ(s("nm:3:5"), "U(rows) U(cols/5) CP(3 of cols%5; m3 p0)");
  EXPECT_EQ(s("vnm:64:2:8"),
            "U(rows/64) U(cols/8) CP(4 of cols%8; m3 p0) U(rows%64) CP(2 of 4; m2 p0)");
  EXPECT_TRUE(parse_format("nm:2:4").levels().compressed());
  EXPECT_FALSE(parse_format("dense").levels().compressed());
  EXPECT_EQ(parse_format("csr").levels().ranks[1].flattened_rank_ids,
            (std::vector<std::vector<std::string>>{{"cols"}}));
}

TEST(FormatLevels, DenseHasNoMetadata) {
  const FormatBits b = bits_of(to_dense(with(3, 4, {{0, 1}})));
  EXPECT_EQ(b.total(), 0);
}

TEST(FormatLevels, CsrBitsAreRowOffsetsAndColumnIndices) {
  // 3 x 4, 3 nonzeros: (3 + 1) 32-bit offsets, 3 32-bit columns: 128 + 96 bits = 28 bytes.
  FormatBits b = bits_of(csr_from_dense(with(3, 4, {{0, 1}, {0, 3}, {2, 0}}).view()));
  EXPECT_EQ(b.payload, (std::vector<double>{128, 0}));
  EXPECT_EQ(b.metadata, (std::vector<double>{0, 96}));
  // 5 x 7, 6 nonzeros, two empty rows: 6 * 32 + 6 * 32 = 384 bits.
  b = bits_of(csr_from_dense(with(5, 7, {{0, 0}, {0, 6}, {1, 3}, {3, 1}, {3, 2}, {3, 5}}).view()));
  EXPECT_EQ(b.total(), 384);
}

TEST(FormatLevels, BsrBitsAreBlockRowOffsetsAndBlockColumns) {
  // 5 x 6 in 2 x 4 blocks: 3 block rows, 2 block columns; nonzeros in blocks (0, 0), (1, 1),
  // (2, 0): (3 + 1) * 32 + 3 * 32 = 224 bits; the 2 x 4 ranks inside store nothing.
  const FormatBits b = bits_of(bsr_from_dense(with(5, 6, {{0, 0}, {3, 5}, {4, 1}}).view(), 2, 4));
  EXPECT_EQ(b.payload, (std::vector<double>{128, 0, 0, 0}));
  EXPECT_EQ(b.metadata, (std::vector<double>{0, 96, 0, 0}));
}

TEST(FormatLevels, CvseBitsAreGroupOffsetsAndVectorColumns) {
  // 5 x 3, V = 4: groups {0..3}, {4 + 3 padding rows}; vectors (group 0, cols 0 and 2),
  // (group 1, col 2): (2 + 1) * 32 + 3 * 32 = 192 bits; 3 * 4 value slots.
  const FormatBits b = bits_of(cvse_from_dense(with(5, 3, {{1, 0}, {2, 2}, {4, 2}}).view(), 4));
  EXPECT_EQ(b.payload, (std::vector<double>{96, 0, 0}));
  EXPECT_EQ(b.metadata, (std::vector<double>{0, 96, 0}));
  // 16 x 10, V = 8: 2 groups, 4 vectors: 3 * 32 + 4 * 32 = 224 bits.
  EXPECT_EQ(
      bits_of(cvse_from_dense(with(16, 10, {{0, 0}, {7, 9}, {8, 4}, {15, 5}}).view(), 8)).total(),
      224);
}

TEST(FormatLevels, NmBitsAreTheOffsetsOfEverySlot) {
  // 2:4 along rows, 3 x 10: 3 groups per row (the last covers cols 8, 9 + 2 padding), 2 slots
  // each: 18 slots * 2 bits = 36 bits (5 bytes packed).
  FormatBits b = bits_of(
      nm_from_dense(with(3, 10, {{0, 0}, {0, 3}, {1, 9}, {2, 5}}).view(), 2, 4, NmAxis::Row));
  EXPECT_EQ(b.metadata, (std::vector<double>{0, 0, 36}));
  EXPECT_EQ(b.total(), 36);
  // 1:8 down columns, 20 x 3: 3 groups per column, 9 slots * 3 bits = 27 bits (4 bytes).
  b = bits_of(nm_from_dense(with(20, 3, {{0, 0}, {19, 2}}).view(), 1, 8, NmAxis::Col));
  EXPECT_EQ(b.total(), 27);
  // 3:5 along rows, 2 x 10: 2 groups per row, 12 slots * ceil(log2 5) = 3 bits = 36 bits.
  b = bits_of(
      nm_from_dense(with(2, 10, {{0, 0}, {0, 1}, {0, 2}, {1, 9}}).view(), 3, 5, NmAxis::Row));
  EXPECT_EQ(b.total(), 36);
}

TEST(FormatLevels, VnmBitsAreTheSelectionsAndTheOffsetsAmongThem) {
  // 6 x 8, V = 4, 2:8: 2 row blocks, 1 column group: 2 * 4 selected columns * 3 bits = 24;
  // 6 rows * 2 slots * 2 bits = 24 (3 + 3 bytes).
  const FormatBits b =
      bits_of(vnm_from_dense(with(6, 8, {{0, 1}, {0, 5}, {3, 5}, {5, 2}}).view(), 4, 2, 8));
  EXPECT_EQ(b.metadata, (std::vector<double>{0, 0, 24, 0, 24}));
  EXPECT_EQ(b.total(), 48);
}

}  // namespace
}  // namespace sparsemap::sparse
