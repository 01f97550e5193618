// Kernel formats priced on a Sparseloop design: a pruned 8 x 8 weight A[M][K] of the spMspM
// tutorial design (tests/data/sparseloop/02.2.1-spMspM: BackingStorage keeps A, Buffer
// bypasses it) stored N:M or column-vector, evaluated by cost::evaluate_sparseloop; the
// metadata units per rank are hand-worked from docs/sparseloop.md's formulas, and their bits at
// the kernels' widths equal footprint() of the matrix the density describes.
#include "sparsemap/sparse/format/sparseloop_format.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sparsemap/cost/sparseloop.h"
#include "sparsemap/error.h"
#include "sparsemap/io/timeloop.h"
#include "support/test_data.h"

namespace sparsemap::sparse {
namespace {

const MatrixDims kA{{"M"}, {"K"}};  // A[m][k]: rows M, reduction K along the columns

// The design's problem, architecture and ERT with a mapping of A's loops (innermost first:
// `buffer` at Buffer, then `backing` at BackingStorage), A alone formatted (`f` at
// BackingStorage, no action optimisations) and A fixed_structured at `density`.
cost::SparseLoopResult price(const arch::DataSpaceFormat& f, const std::string& buffer,
                             const std::string& backing, double density) {
  const std::string d = testing::test_data_dir("sparseloop") + "/02.2.1-spMspM/";
  const std::string map =
      (std::filesystem::temp_directory_path() / "sparsevocab_map.yaml").string();
  {
    std::ofstream o(map);
    o << "mapping:\n"
         "  - {target: Buffer, type: datatype, keep: [B, Z], bypass: [A]}\n"
         "  - {target: BackingStorage, type: datatype, keep: [A, B, Z], bypass: []}\n"
         "  - {target: Buffer, type: temporal, "
      << buffer << "}\n  - {target: BackingStorage, type: temporal, " << backing << "}\n";
  }
  const auto in = io::read_timeloop_files(
      {d + "arch.yaml", d + "problem.yaml", map, d + "timeloop-mapper.ERT.yaml"});
  std::filesystem::remove(map);
  arch::SparseOptimizations so;
  set_format(so, "BackingStorage", f);
  workload::DensityModel m;
  m.density = density;
  return cost::evaluate_sparseloop(*in.problem, *in.arch, *in.mapping, &*in.ert, so, {{"A", m}});
}

DenseMatrix with(int64_t rows, int64_t cols, std::initializer_list<std::pair<int, int>> nz) {
  DenseMatrix d(rows, cols);
  for (const auto& [r, c] : nz) d.at(r, c) = 1.0f;
  return d;
}

TEST(SparseloopFormat, RanksFlattenTheProblemDimensionsOfTheirAxis) {
  const arch::DataSpaceFormat f =
      sparseloop_format(parse_format("cvse:4"), "Weights", {{"K"}, {"C", "R", "S"}});
  EXPECT_EQ(f.data_space, "Weights");
  EXPECT_EQ(f.str(), "UOP(rows/4; p32) CP(cols; m32 p0) U(rows%4)");
  ASSERT_EQ(f.ranks.size(), 3u);
  EXPECT_EQ(f.ranks[0].flattened_rank_ids, (std::vector<std::vector<std::string>>{{"K"}}));
  EXPECT_EQ(f.ranks[1].flattened_rank_ids,
            (std::vector<std::vector<std::string>>{{"C", "R", "S"}}));
  EXPECT_EQ(f.ranks[2].format, arch::RankFormat::kUOP);
  EXPECT_EQ(f.ranks[2].payload_word_bits, 0);
  EXPECT_THROW(sparseloop_format(parse_format("vnm:4:2:8"), "A", kA), InputError);
  EXPECT_THROW(sparseloop_format(parse_format("nm:2:4"), "A", {{"M"}, {}}), InputError);
  arch::SparseOptimizations so;
  set_format(so, "L", f);
  set_format(so, "L", sparseloop_format(parse_format("csr"), "Weights", kA));
  ASSERT_EQ(so.levels.size(), 1u);
  ASSERT_EQ(so.levels[0].formats.size(), 1u);
  EXPECT_EQ(so.levels[0].formats[0].ranks.size(), 2u);
}

// nm:2:4 along K at density 0.5. A's loops innermost first: K4 (Buffer), K2 (BackingStorage),
// M8. The CP rank takes K4 and K2 (consecutive loops of its dimension): fibre 8, 8 fibres of
// 4 nonzeros (x = 8 * 0.5), 32 coordinates; the groups rank is empty; the rows rank is one
// fibre of 8 rows: 9 offsets at 0 bits. A is read 512 times (every MAC, Buffer bypasses it),
// 512 / 64 = 8 times per tile: 256 coordinate reads. 32 coordinates * 2 bits = 64 bits = the
// 8 bytes of an 8 x 8 2:4 matrix's offsets.
TEST(SparseloopFormat, NmWeightsPricedOnASparseloopDesign) {
  const arch::DataSpaceFormat f = sparseloop_format(parse_format("nm:2:4"), "A", kA);
  const cost::SparseLoopResult r =
      price(f, "factors: M1 N8 K4, permutation: KNM", "factors: M8 N1 K2, permutation: KMN", 0.5);
  ASSERT_TRUE(r.ok()) << r.reason;
  const cost::SparseDataspace* a = r.level("BackingStorage")->dataspace("A");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->format, "uop uop cp");
  EXPECT_EQ(a->format_occupancy,
            (std::vector<cost::RankUnits>{{32, 0}, {0, 0}, {0, 9}}));  // innermost first
  EXPECT_EQ(a->reads.algorithmic, 512);
  EXPECT_EQ(a->reads.actual, 256);
  EXPECT_EQ(a->format_reads[0].metadata, 256);
  // The kernels' 2:4 matrix with 2 kept of every 4 columns: 32 slots of 2 bits.
  DenseMatrix w(8, 8);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; j += 2) w.at(i, j) = 1.0f;
  const Footprint fp = footprint(nm_from_dense(w.view(), 2, 4, NmAxis::Row));
  EXPECT_EQ(fp.metadata_bytes * 8, a->format_occupancy[0].metadata * f.ranks[2].metadata_word_bits);
}

// cvse:4 at density 0.125. A's loops innermost first: M4 (Buffer), K8, M2 (BackingStorage).
// Ranks innermost first: U(rows%4) fibre 4, CP(cols) fibre 8, UOP(rows/4) fibre 2. The tile
// holds 8 nonzeros, spread by fixed_structured: a 4-row vector holds x = 0.5 of them, so it is
// nonempty with probability 0.5: 2 fibres * ceil(8 * 0.5) = 8 coordinates; UOP: 1 * (2 + 1) = 3
// offsets. At 32 bits: 8 * 32 + 3 * 32 = 352 bits = the 44 bytes of a CVSE matrix holding those
// 8 vectors (8 nonzeros, one per vector; a column-vector pruning would keep 2 whole vectors:
// Sparseloop's density models are per element, docs/formats.md).
TEST(SparseloopFormat, ColumnVectorWeightsPricedOnASparseloopDesign) {
  const arch::DataSpaceFormat f = sparseloop_format(parse_format("cvse:4"), "A", kA);
  const cost::SparseLoopResult r =
      price(f, "factors: M4 N8 K1, permutation: MNK", "factors: M2 N1 K8, permutation: KMN", 0.125);
  ASSERT_TRUE(r.ok()) << r.reason;
  const cost::SparseDataspace* a = r.level("BackingStorage")->dataspace("A");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->format, "uop cp uop");
  EXPECT_EQ(a->format_occupancy, (std::vector<cost::RankUnits>{{0, 0}, {8, 8}, {0, 3}}));
  const CvseMatrix w = cvse_from_dense(
      with(8, 8, {{0, 0}, {1, 2}, {2, 4}, {3, 6}, {4, 1}, {5, 3}, {6, 5}, {7, 7}}).view(), 4);
  EXPECT_EQ(w.vectors(), 8);
  EXPECT_EQ(footprint(w).metadata_bytes * 8,
            a->format_occupancy[1].metadata * f.ranks[1].metadata_word_bits +
                a->format_occupancy[2].payload * f.ranks[0].payload_word_bits);
}

}  // namespace
}  // namespace sparsemap::sparse
