// The Sparseloop model on an actual tensor's density (workload/tensor_density.h): a tensor
// whose tiles hold what the fixed-structured model says gives its run exactly, and the model
// counts the tensor's own tiles.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "sparsemap/cost/sparseloop.h"
#include "sparsemap/io/timeloop.h"
#include "support/test_data.h"

namespace sparsemap::cost {
namespace {

io::TimeloopInputs dot_product() {
  const std::string d = testing::test_data_dir("sparseloop") + "/01.2.3-SCDU-dot-product/";
  return io::read_timeloop_files({d + "arch.yaml", d + "problem.yaml",
                                  d + "timeloop-mapper.map.yaml", d + "timeloop-mapper.ERT.yaml"});
}

SparseLoopResult run(const io::TimeloopInputs& in) {
  return evaluate_sparseloop(*in.problem, *in.arch, *in.mapping, &*in.ert, *in.sparse,
                             in.densities);
}

// 01.2.3: A (16 points, CP at the buffer, the leader of B's and Z's skipping) at 0.25. An
// actual A of 4 nonzeros in 16 has the fixed-structured occupancies of both tiles the model
// asks for (the whole tensor: 4; a point: empty with 12/16), so its run is the same.
TEST(SparseloopActual, MatchesFixedStructuredWhereTheTilesAgree) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  io::TimeloopInputs in = dot_product();
  const SparseLoopResult fixed = run(in);
  std::vector<uint8_t> nz(16, 0);
  for (int i : {0, 1, 2, 3}) nz[static_cast<size_t>(i)] = 1;  // clustered: order does not matter
  in.densities["A"] = workload::actual_density(
      std::make_shared<const workload::TensorOccupancy>(std::vector<int64_t>{16}, nz, "A"));
  const SparseLoopResult actual = run(in);
  ASSERT_TRUE(actual.ok()) << actual.reason;
  EXPECT_EQ(actual.actual_computes, 4);
  EXPECT_EQ(actual.skipped_computes, fixed.skipped_computes);
  EXPECT_EQ(actual.cycles, fixed.cycles);
  EXPECT_EQ(actual.energy_pj, fixed.energy_pj);
  EXPECT_EQ(actual.to_json(), fixed.to_json());
}

// 8 nonzeros of 16: half the computes (the rest are not issued: A's zeros are not stored, as
// in the reference's run); the CP metadata holds one coordinate per nonzero.
TEST(SparseloopActual, DensityHalf) {
  SPARSEMAP_TEST_DATA(dir, "sparseloop");
  io::TimeloopInputs in = dot_product();
  std::vector<uint8_t> nz(16, 0);
  for (int i = 0; i < 16; i += 2) nz[static_cast<size_t>(i)] = 1;
  in.densities["A"] = workload::actual_density(
      std::make_shared<const workload::TensorOccupancy>(std::vector<int64_t>{16}, nz, "A"));
  const SparseLoopResult r = run(in);
  ASSERT_TRUE(r.ok()) << r.reason;
  EXPECT_EQ(r.algorithmic_computes, 16);
  EXPECT_EQ(r.actual_computes, 8);
  EXPECT_EQ(r.skipped_computes, 0);
  const auto* a = r.level("Buffer")->dataspace("A");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->reads.actual, 8);
  EXPECT_EQ(a->expected_occupancy, 8);
  ASSERT_EQ(a->format_reads.size(), 1u);
  EXPECT_EQ(a->format_reads[0].metadata, 8);
}

}  // namespace
}  // namespace sparsemap::cost
