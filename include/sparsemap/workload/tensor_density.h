// Tile occupancies of an actual tensor (the density model Sparseloop calls "actual data"): how
// many nonzeros each tile of a given shape holds, counted exactly over the tensor's tiles.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sparsemap::workload {

// A tensor's nonzero pattern, row-major over its axes (a data space's projection axes in the
// problem's order, the first axis slowest), and the occupancy distributions of the tile shapes
// asked for.
//
// Tiles of shape t (t_a points along axis a, clamped to 1..N_a) partition the tensor as a loop
// nest tiles it: tile j covers [j_a t_a, min((j_a + 1) t_a, N_a)) along each axis a, so there
// are T = prod_a ceil(N_a / t_a) tiles (the last one along an axis is shorter when t_a does not
// divide N_a). With c_k the number of tiles holding exactly k nonzeros:
//   P(t, k)        = c_k / T                      (the occupancy distribution)
//   E[occupancy]   = sum_k k c_k / T = nnz / T    (= nnz x prod_a t_a / N when t divides N)
// A data space whose tiles overlap (an input's sliding windows) is counted on this partition.
// A caller that knows a tile's points n only (not its shape) gets the flat view: the tensor
// read as one axis of N points in row-major order, tiles of n consecutive points.
//
// Thread-safe: the distributions are computed on first use, O(N) each, and cached.
class TensorOccupancy {
 public:
  // `shape`: extents per axis (each >= 1); `nonzero`: prod(shape) flags in row-major order;
  // `source`: where the tensor comes from (a file, a layer), for messages and JSON. Throws
  // std::invalid_argument when the flags do not match the shape.
  TensorOccupancy(std::vector<int64_t> shape, std::vector<uint8_t> nonzero, std::string source);

  const std::vector<int64_t>& shape() const { return shape_; }
  const std::string& source() const { return source_; }
  int64_t points() const { return static_cast<int64_t>(nonzero_.size()); }
  int64_t nonzeros() const { return nonzeros_; }
  double density() const;  // nonzeros / points (1 for an empty tensor)

  // P(t, k) for k = 0 .. the largest occupancy of any tile (the vector's last index). `tile`
  // has one extent per axis (std::invalid_argument otherwise).
  std::shared_ptr<const std::vector<double>> distribution(const std::vector<int64_t>& tile) const;
  // The flat view: tiles of `tile_points` consecutive points.
  std::shared_ptr<const std::vector<double>> flat_distribution(int64_t tile_points) const;

  // P(t, k) (0 outside the distribution) and E[occupancy] = sum_k k P(t, k).
  double probability(const std::vector<int64_t>& tile, int64_t occupancy) const;
  double expected_occupancy(const std::vector<int64_t>& tile) const;

 private:
  std::shared_ptr<const std::vector<double>> cached(const std::vector<int64_t>& key,
                                                    const std::vector<int64_t>& shape,
                                                    const std::vector<int64_t>& tile) const;

  std::vector<int64_t> shape_;
  std::vector<uint8_t> nonzero_;
  std::string source_;
  int64_t nonzeros_ = 0;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const std::vector<double>>> cache_;
};

// The occupancy distribution of `shape`'s tiles of extents `tile` over `nonzero` (row-major):
// out[k] = c_k / T as above. The function behind TensorOccupancy, uncached.
std::vector<double> tile_occupancy_histogram(const std::vector<int64_t>& shape,
                                             const std::vector<uint8_t>& nonzero,
                                             const std::vector<int64_t>& tile);

}  // namespace sparsemap::workload
