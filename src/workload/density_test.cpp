// The density models' tile-occupancy probabilities (Sparseloop's fixed_structured and
// hypergeometric), against values worked by hand.
#include "sparsemap/workload/density.h"

#include <gtest/gtest.h>

namespace sparsemap::workload {
namespace {

TEST(Density, FixedStructuredSplitsBetweenFloorAndCeil) {
  const DensityModel m{DensityDistribution::kFixedStructured, 0.43, 0, 0, nullptr};
  // 3 points x 0.43 = 1.29 nonzeros: 1 with probability 0.71, 2 with 0.29.
  EXPECT_NEAR(tile_occupancy_probability(m, 3, 27, 1), 0.71, 1e-12);
  EXPECT_NEAR(tile_occupancy_probability(m, 3, 27, 2), 0.29, 1e-12);
  EXPECT_EQ(tile_occupancy_probability(m, 3, 27, 0), 0);
  EXPECT_NEAR(tile_occupancy_probability(m, 1, 27, 0), 0.57, 1e-12);
  EXPECT_NEAR(expected_tile_occupancy(m, 100), 43, 1e-12);
}

TEST(Density, HypergeometricMatchesTheBinomialCoefficients) {
  const DensityModel m{DensityDistribution::kHypergeometric, 0.25, 0, 0, nullptr};
  // 4 nonzeros among 16 points; a tile of 4: P(0) = C(12,4)/C(16,4) = 495/1820,
  // P(1) = C(4,1) C(12,3) / C(16,4) = 880/1820.
  EXPECT_NEAR(tile_occupancy_probability(m, 4, 16, 0), 495.0 / 1820, 1e-12);
  EXPECT_NEAR(tile_occupancy_probability(m, 4, 16, 1), 880.0 / 1820, 1e-12);
  EXPECT_EQ(tile_occupancy_probability(m, 4, 16, 5), 0);
  double total = 0;
  for (int k = 0; k <= 4; ++k) total += tile_occupancy_probability(m, 4, 16, k);
  EXPECT_NEAR(total, 1, 1e-12);
  // workload_tensor_size overrides the tensor's points: 30 of 100 nonzero.
  const DensityModel w{DensityDistribution::kHypergeometric, 0.3, 0, 100, nullptr};
  EXPECT_NEAR(tile_occupancy_probability(w, 1, 16, 0), 0.7, 1e-12);
}

}  // namespace
}  // namespace sparsemap::workload
