// Density models of a tensor's nonzeros as Sparseloop (Timeloop 3) defines them: how many
// nonzeros a tile of a given shape holds (expected value, and the probability of each count).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sparsemap/workload/tensor_density.h"

namespace sparsemap::workload {

enum class DensityDistribution {
  kFixedStructured,  // every tile of s points holds s x density nonzeros (floor or ceil)
  kHypergeometric,   // nonzeros placed uniformly at random over the whole tensor ("uniform")
  kBanded,           // a band of band_width around the diagonal (read, not modelled)
  kActual,           // counted on an actual tensor (`tensor`; workload/tensor_density.h)
};

const char* density_distribution_name(DensityDistribution d);

// One data space's density model (`problem.instance.densities.<name>`). A data space without
// one is dense.
struct DensityModel {
  DensityDistribution distribution = DensityDistribution::kFixedStructured;
  double density = 1;                // nonzeros / points, 0..1
  int64_t band_width = 0;            // banded only
  int64_t workload_tensor_size = 0;  // points of the whole tensor; 0: the problem's tensor size
  // kActual only: the tensor (shared, immutable); `density` is then its nonzeros / points.
  std::shared_ptr<const TensorOccupancy> tensor;
  // Equal tensors are the same object.
  bool operator==(const DensityModel& o) const {
    return distribution == o.distribution && density == o.density && band_width == o.band_width &&
           workload_tensor_size == o.workload_tensor_size && tensor == o.tensor;
  }
};

// The probability that a tile of `tile_points` points of a tensor of `tensor_points` points
// holds exactly `occupancy` nonzeros.
//   fixed_structured: x = tile_points x density; P(floor x) = 1 - frac(x), P(ceil x) = frac(x).
//   hypergeometric:   r = ceil(density x tensor_points) nonzeros in N = tensor_points points;
//                     P(k) = C(r, k) C(N - r, n - k) / C(N, n), n = tile_points (a product of
//                     ratios in long double up to 4,096 points, nearly always the correctly
//                     rounded double; lgamma above).
// Banded is evaluated as fixed_structured.
//   actual:           the tensor's flat view (tiles of tile_points consecutive points).
double tile_occupancy_probability(const DensityModel& m, int64_t tile_points, int64_t tensor_points,
                                  int64_t occupancy);

// The same for a tile of the given extents per axis of the data space (its projection axes):
// the actual model counts the tensor's tiles of that shape (TensorOccupancy::probability); the
// others see only the tile's points (the product of the extents).
double tile_occupancy_probability(const DensityModel& m, const std::vector<int64_t>& tile_axes,
                                  int64_t tensor_points, int64_t occupancy);

// An actual density model of `tensor`: distribution kActual, density = its nonzeros / points.
DensityModel actual_density(std::shared_ptr<const TensorOccupancy> tensor);

// Expected nonzeros of such a tile: tile_points x density (all models; for the actual one the
// flat view's mean when tile_points divides the tensor's points).
double expected_tile_occupancy(const DensityModel& m, int64_t tile_points);

}  // namespace sparsemap::workload
