#include "sparsemap/workload/tensor_density.h"

#include <algorithm>
#include <stdexcept>

namespace sparsemap::workload {

TensorOccupancy::TensorOccupancy(std::vector<int64_t> shape, std::vector<uint8_t> nonzero,
                                 std::string source)
    : shape_(std::move(shape)), nonzero_(std::move(nonzero)), source_(std::move(source)) {
  int64_t n = 1;
  for (int64_t a : shape_) {
    if (a < 1) throw std::invalid_argument("TensorOccupancy: an axis of extent < 1");
    n *= a;
  }
  if (n != static_cast<int64_t>(nonzero_.size()))
    throw std::invalid_argument("TensorOccupancy: flags do not match the shape");
  for (uint8_t z : nonzero_) nonzeros_ += z != 0;
}

double TensorOccupancy::density() const {
  return nonzero_.empty() ? 1.0 : static_cast<double>(nonzeros_) / static_cast<double>(points());
}

std::vector<double> tile_occupancy_histogram(const std::vector<int64_t>& shape,
                                             const std::vector<uint8_t>& nonzero,
                                             const std::vector<int64_t>& tile) {
  if (tile.size() != shape.size())
    throw std::invalid_argument("tile_occupancy_histogram: one extent per axis expected");
  const size_t d = shape.size();
  // Tiles per axis and the tile grid's row-major strides.
  std::vector<int64_t> t(d), grid(d), stride(d, 1);
  int64_t tiles = 1;
  for (size_t a = 0; a < d; ++a) {
    t[a] = std::clamp<int64_t>(tile[a], 1, shape[a]);
    grid[a] = (shape[a] + t[a] - 1) / t[a];
    tiles *= grid[a];
  }
  for (size_t a = d; a-- > 1;) stride[a - 1] = stride[a] * grid[a];
  // Walk the points in row-major order with their coordinates, counting nonzeros per tile.
  std::vector<int64_t> count(static_cast<size_t>(tiles), 0), coord(d, 0);
  const int64_t points = static_cast<int64_t>(nonzero.size());
  for (int64_t i = 0; i < points; ++i) {
    if (nonzero[static_cast<size_t>(i)]) {
      int64_t j = 0;
      for (size_t a = 0; a < d; ++a) j += coord[a] / t[a] * stride[a];
      ++count[static_cast<size_t>(j)];
    }
    for (size_t a = d; a-- > 0;) {
      if (++coord[a] < shape[a]) break;
      coord[a] = 0;
    }
  }
  const int64_t most = count.empty() ? 0 : *std::max_element(count.begin(), count.end());
  std::vector<double> out(static_cast<size_t>(most) + 1, 0.0);
  for (int64_t c : count) out[static_cast<size_t>(c)] += 1;
  for (double& p : out) p /= static_cast<double>(std::max<int64_t>(1, tiles));
  return out;
}

std::shared_ptr<const std::vector<double>> TensorOccupancy::cached(
    const std::vector<int64_t>& key, const std::vector<int64_t>& shape,
    const std::vector<int64_t>& tile) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  auto h =
      std::make_shared<const std::vector<double>>(tile_occupancy_histogram(shape, nonzero_, tile));
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.emplace(key, std::move(h)).first->second;
}

std::shared_ptr<const std::vector<double>> TensorOccupancy::distribution(
    const std::vector<int64_t>& tile) const {
  if (tile.size() != shape_.size())
    throw std::invalid_argument("TensorOccupancy: one tile extent per axis expected");
  std::vector<int64_t> key(tile);
  for (size_t a = 0; a < key.size(); ++a) key[a] = std::clamp<int64_t>(key[a], 1, shape_[a]);
  return cached(key, shape_, key);
}

std::shared_ptr<const std::vector<double>> TensorOccupancy::flat_distribution(
    int64_t tile_points) const {
  const int64_t n = std::clamp<int64_t>(tile_points, 1, std::max<int64_t>(1, points()));
  // Key: -1 then the points (no shaped key starts with a negative extent).
  return cached({-1, n}, {std::max<int64_t>(1, points())}, {n});
}

double TensorOccupancy::probability(const std::vector<int64_t>& tile, int64_t occupancy) const {
  const auto h = distribution(tile);
  if (occupancy < 0 || occupancy >= static_cast<int64_t>(h->size())) return 0;
  return (*h)[static_cast<size_t>(occupancy)];
}

double TensorOccupancy::expected_occupancy(const std::vector<int64_t>& tile) const {
  const auto h = distribution(tile);
  double e = 0;
  for (size_t k = 0; k < h->size(); ++k) e += static_cast<double>(k) * (*h)[k];
  return e;
}

}  // namespace sparsemap::workload
