// The actual-tensor density model: occupancy distributions of tiles of given shapes, counted on
// tiny tensors by hand.
#include "sparsemap/workload/tensor_density.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "sparsemap/workload/density.h"

namespace sparsemap::workload {
namespace {

// 2 x 4, nonzeros marked 1:
//   1 0 0 1
//   0 0 1 1
std::shared_ptr<const TensorOccupancy> two_by_four() {
  return std::make_shared<const TensorOccupancy>(
      std::vector<int64_t>{2, 4}, std::vector<uint8_t>{1, 0, 0, 1, 0, 0, 1, 1}, "2x4");
}

TEST(TensorDensity, CountsTheTilesOfEachShape) {
  const auto t = two_by_four();
  EXPECT_EQ(t->points(), 8);
  EXPECT_EQ(t->nonzeros(), 4);
  EXPECT_EQ(t->density(), 0.5);
  // 1 x 2 tiles hold 1, 1 (row 0) and 0, 2 (row 1): P(0) = 1/4, P(1) = 2/4, P(2) = 1/4.
  EXPECT_EQ(*t->distribution({1, 2}), (std::vector<double>{0.25, 0.5, 0.25}));
  EXPECT_EQ(t->expected_occupancy({1, 2}), 1.0);
  // 2 x 1 tiles (columns) hold 1, 0, 1, 2: the same distribution, another shape.
  EXPECT_EQ(*t->distribution({2, 1}), (std::vector<double>{0.25, 0.5, 0.25}));
  // 2 x 2 tiles hold 1 and 3.
  EXPECT_EQ(*t->distribution({2, 2}), (std::vector<double>{0, 0.5, 0, 0.5}));
  EXPECT_EQ(t->expected_occupancy({2, 2}), 2.0);
  EXPECT_EQ(t->probability({2, 2}, 3), 0.5);
  EXPECT_EQ(t->probability({2, 2}, 2), 0.0);
  EXPECT_EQ(t->probability({2, 2}, 4), 0.0);
  EXPECT_EQ(t->probability({2, 2}, -1), 0.0);
  // 1 x 3 does not divide 4: tiles [0, 3) and [3, 4) of each row hold 1, 1, 1, 1.
  EXPECT_EQ(*t->distribution({1, 3}), (std::vector<double>{0, 1}));
  // Extents beyond the tensor are clamped: one tile of all 4 nonzeros.
  EXPECT_EQ(*t->distribution({5, 9}), (std::vector<double>{0, 0, 0, 0, 1}));
  // The flat view: 1 0 0 | 1 0 0 | 1 1 -> 1, 1, 2.
  EXPECT_EQ(*t->flat_distribution(3), (std::vector<double>{0, 2.0 / 3, 1.0 / 3}));
  EXPECT_EQ(*t->flat_distribution(1), (std::vector<double>{0.5, 0.5}));
}

TEST(TensorDensity, AsADensityModel) {
  const DensityModel m = actual_density(two_by_four());
  EXPECT_EQ(m.distribution, DensityDistribution::kActual);
  EXPECT_EQ(m.density, 0.5);
  EXPECT_STREQ(density_distribution_name(m.distribution), "actual");
  EXPECT_EQ(tile_occupancy_probability(m, std::vector<int64_t>{1, 2}, 8, 2), 0.25);
  EXPECT_EQ(tile_occupancy_probability(m, std::vector<int64_t>{2, 2}, 8, 1), 0.5);
  // Points only: the flat view.
  EXPECT_EQ(tile_occupancy_probability(m, 3, 8, 2), 1.0 / 3);
  EXPECT_EQ(tile_occupancy_probability(m, 0, 8, 0), 1.0);
  EXPECT_EQ(expected_tile_occupancy(m, 4), 2.0);
  // The same tensor object is the same model; another object with the same flags is not.
  EXPECT_EQ(m, actual_density(m.tensor));
  EXPECT_FALSE(m == actual_density(two_by_four()));
}

TEST(TensorDensity, TwoFourPatternsHoldTwoOfEveryFour) {
  // A 2:4 row of 8 and a 3-D 2 x 2 x 2 tensor with one nonzero per 2 x 1 x 2 slab.
  // 1 1 0 0 | 0 1 0 1: pairs hold 2, 0, 1, 1.
  const TensorOccupancy nm({1, 8}, {1, 1, 0, 0, 0, 1, 0, 1}, "2:4");
  EXPECT_EQ(*nm.distribution({1, 4}), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(*nm.distribution({1, 2}), (std::vector<double>{0.25, 0.5, 0.25}));
  const TensorOccupancy cube({2, 2, 2}, {1, 0, 0, 0, 0, 0, 0, 1}, "cube");
  EXPECT_EQ(*cube.distribution({2, 1, 2}), (std::vector<double>{0, 1}));
  EXPECT_EQ(*cube.distribution({1, 2, 2}), (std::vector<double>{0, 1}));
  EXPECT_EQ(*cube.distribution({1, 1, 2}), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(*cube.distribution({1, 1, 1}), (std::vector<double>{0.75, 0.25}));
}

TEST(TensorDensity, RejectsMismatchedInputs) {
  EXPECT_THROW(TensorOccupancy({2, 2}, {1, 0, 1}, "x"), std::invalid_argument);
  EXPECT_THROW(TensorOccupancy({0, 2}, {}, "x"), std::invalid_argument);
  const auto t = two_by_four();
  EXPECT_THROW((void)t->distribution({2}), std::invalid_argument);
  EXPECT_THROW((void)t->distribution({1, 1, 1}), std::invalid_argument);
  // Another number of axes than the tensor's: the model falls back to the tile's points.
  const DensityModel m = actual_density(t);
  EXPECT_EQ(tile_occupancy_probability(m, std::vector<int64_t>{3}, 8, 2), 1.0 / 3);
}

}  // namespace
}  // namespace sparsemap::workload
