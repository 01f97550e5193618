#include "sparsemap/workload/density.h"

#include <algorithm>
#include <cmath>

namespace sparsemap::workload {

const char* density_distribution_name(DensityDistribution d) {
  switch (d) {
    case DensityDistribution::kFixedStructured:
      return "fixed_structured";
    case DensityDistribution::kHypergeometric:
      return "hypergeometric";
    case DensityDistribution::kBanded:
      return "banded";
    case DensityDistribution::kActual:
      return "actual";
  }
  return "?";
}

namespace {

// log C(n, k) through lgamma (exact enough for probabilities of tiles of real tensors).
double log_choose(double n, double k) {
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

// C(r, k) C(big_n - r, n - k) / C(big_n, n) as a product of n + min(k, n - k) ratios in long
// double, rounded once to double: the correctly rounded value but for a few in 2,000 (checked
// against exact fractions for every case with big_n <= 40), so that counts such as
// floor(64 x P) land where Timeloop's (Boost's) probabilities put them. O(n).
double hypergeometric_product(int64_t big_n, int64_t r, int64_t n, int64_t k) {
  long double p = 1;
  for (int64_t i = 0; i < k; ++i)
    p *= static_cast<long double>(r - i) / static_cast<long double>(big_n - i);
  for (int64_t j = 0; j < n - k; ++j)
    p *= static_cast<long double>(big_n - r - j) / static_cast<long double>(big_n - k - j);
  const int64_t c = std::min(k, n - k);  // x C(n, k)
  for (int64_t i = 1; i <= c; ++i)
    p = p * static_cast<long double>(n - c + i) / static_cast<long double>(i);
  return static_cast<double>(p);
}

// Tiles up to this many points take the product; larger ones lgamma.
constexpr int64_t kProductMaxPoints = 4096;

}  // namespace

double tile_occupancy_probability(const DensityModel& m, int64_t tile_points, int64_t tensor_points,
                                  int64_t occupancy) {
  if (tile_points <= 0) return occupancy == 0 ? 1 : 0;
  if (m.distribution == DensityDistribution::kActual && m.tensor) {
    const auto h = m.tensor->flat_distribution(tile_points);
    if (occupancy < 0 || occupancy >= static_cast<int64_t>(h->size())) return 0;
    return (*h)[static_cast<size_t>(occupancy)];
  }
  if (m.distribution == DensityDistribution::kHypergeometric) {
    const int64_t big_n = m.workload_tensor_size > 0 ? m.workload_tensor_size : tensor_points;
    const auto r = static_cast<int64_t>(std::ceil(m.density * static_cast<double>(big_n)));
    const int64_t n = std::min(tile_points, big_n), k = occupancy;
    if (k < 0 || k > r || k > n || n - k > big_n - r) return 0;
    if (n <= kProductMaxPoints) return hypergeometric_product(big_n, r, n, k);
    const double lp = log_choose(static_cast<double>(r), static_cast<double>(k)) +
                      log_choose(static_cast<double>(big_n - r), static_cast<double>(n - k)) -
                      log_choose(static_cast<double>(big_n), static_cast<double>(n));
    return std::exp(lp);
  }
  const double x = static_cast<double>(tile_points) * m.density;
  const double lo = std::floor(x), frac = x - lo;
  if (static_cast<double>(occupancy) == lo) return 1 - frac;
  if (static_cast<double>(occupancy) == std::ceil(x)) return frac;
  return 0;
}

double tile_occupancy_probability(const DensityModel& m, const std::vector<int64_t>& tile_axes,
                                  int64_t tensor_points, int64_t occupancy) {
  if (m.distribution == DensityDistribution::kActual && m.tensor &&
      tile_axes.size() == m.tensor->shape().size())
    return m.tensor->probability(tile_axes, occupancy);
  int64_t points = 1;
  for (int64_t a : tile_axes) points *= a;
  return tile_occupancy_probability(m, points, tensor_points, occupancy);
}

DensityModel actual_density(std::shared_ptr<const TensorOccupancy> tensor) {
  DensityModel m;
  m.distribution = DensityDistribution::kActual;
  m.density = tensor ? tensor->density() : 1;
  m.tensor = std::move(tensor);
  return m;
}

double expected_tile_occupancy(const DensityModel& m, int64_t tile_points) {
  return static_cast<double>(tile_points) * m.density;
}

}  // namespace sparsemap::workload
