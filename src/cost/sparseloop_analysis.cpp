// The Sparseloop model's analysis of tiles: loops innermost first, tile occupancies, format
// metadata per rank and the leader-tile probabilities of gating / skipping. Formulas in
// include/sparsemap/cost/sparseloop.h.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "sparseloop_internal.h"

namespace sparsemap::cost::sparseloop_detail {

int64_t Nest::points(int ds, const std::vector<int64_t>& ext) const {
  int64_t n = 1;
  for (int64_t a : axis_extents(ds, ext)) n *= a;
  return n;
}

std::vector<int64_t> Nest::axis_extents(int ds, const std::vector<int64_t>& ext) const {
  std::vector<int64_t> out;
  for (const auto& axis : p->data_spaces[ds].projection) {
    int64_t len = 1;
    for (const auto& t : axis) {
      const int k = p->dim_index(t.dim);
      if (k >= 0) len += p->coefficient(t) * (ext[k] - 1);
    }
    out.push_back(len);
  }
  return out;
}

std::vector<int64_t> Nest::level_extents(int level) const {
  std::vector<int64_t> ext(dims, 1);
  for (const auto& l : loops)
    if (l.level >= level) ext[l.dim] *= l.bound;
  return ext;
}

std::pair<int64_t, int64_t> Nest::support(int ds, int64_t tile_points) const {
  if (!has_density[ds]) return {tile_points, tile_points};
  const auto& m = density[ds];
  if (actual(ds)) {  // the flat view's occupancies
    const auto h = m.tensor->flat_distribution(tile_points);
    int64_t lo = 0;
    while (lo + 1 < static_cast<int64_t>(h->size()) && (*h)[static_cast<size_t>(lo)] == 0) ++lo;
    return {lo, static_cast<int64_t>(h->size()) - 1};
  }
  const double x = static_cast<double>(tile_points) * m.density;
  if (m.distribution != workload::DensityDistribution::kHypergeometric)
    return {static_cast<int64_t>(std::floor(x)),
            std::min(tile_points, static_cast<int64_t>(std::ceil(x)))};
  // Hypergeometric: mean +- 12 standard deviations (the rest is below 1e-30), within bounds.
  const int64_t big_n = m.workload_tensor_size > 0 ? m.workload_tensor_size : tensor_points[ds];
  const double r = std::ceil(m.density * static_cast<double>(big_n));
  const double n = static_cast<double>(std::min(tile_points, big_n)),
               bn = static_cast<double>(big_n);
  const double mean = n * r / bn;
  const double sd =
      std::sqrt(std::max(0.0, n * (r / bn) * (1 - r / bn) * (bn - n) / std::max(1.0, bn - 1)));
  const double lo = std::max({0.0, n + r - bn, std::floor(mean - 12 * sd - 1)});
  const double hi = std::min({n, r, std::ceil(mean + 12 * sd + 1)});
  return {static_cast<int64_t>(lo), static_cast<int64_t>(std::max(lo, hi))};
}

double Nest::prob(int ds, int64_t tile_points, int64_t occupancy) const {
  if (!has_density[ds]) return occupancy == tile_points ? 1 : 0;
  return workload::tile_occupancy_probability(density[ds], tile_points, tensor_points[ds],
                                              occupancy);
}

std::pair<int64_t, int64_t> Nest::support(int ds, const std::vector<int64_t>& axes) const {
  int64_t points = 1;
  for (int64_t a : axes) points *= a;
  if (!actual(ds) || axes.size() != density[ds].tensor->shape().size())
    return support(ds, points);
  // The occupancies some tile of that shape has.
  const auto h = density[ds].tensor->distribution(axes);
  int64_t lo = 0, hi = static_cast<int64_t>(h->size()) - 1;
  while (lo < hi && (*h)[static_cast<size_t>(lo)] == 0) ++lo;
  return {lo, hi};
}

double Nest::prob(int ds, const std::vector<int64_t>& axes, int64_t occupancy) const {
  if (!actual(ds)) {
    int64_t points = 1;
    for (int64_t a : axes) points *= a;
    return prob(ds, points, occupancy);
  }
  return workload::tile_occupancy_probability(density[ds], axes, tensor_points[ds], occupancy);
}

int Nest::child(int level, int ds) const {
  for (int j = level + 1; j < levels; ++j)
    if (kept(j, ds)) return j;
  return levels;
}

Nest build_nest(const workload::Einsum& p, const arch::Hierarchy& h, const LoopNestPoint& x,
                const std::map<std::string, workload::DensityModel>& densities) {
  Nest n;
  n.p = &p;
  n.h = &h;
  n.levels = x.levels;
  n.dims = x.dims;
  n.nds = static_cast<int>(p.data_spaces.size());
  n.keep = x.keep;
  n.level_begin.assign(n.levels, 0);
  n.level_end.assign(n.levels, 0);
  for (int i = n.levels - 1; i >= 0; --i) {
    n.level_begin[i] = static_cast<int>(n.loops.size());
    // Spatial loops sit inside the level's temporal ones; each order is outermost first.
    for (int pos = n.dims - 1; pos >= 0; --pos) {
      const int d = x.spatial_order[i * n.dims + pos];
      n.loops.push_back({d, x.spatial[i * n.dims + d], i, true});
    }
    for (int pos = n.dims - 1; pos >= 0; --pos) {
      const int d = x.temporal_order[i * n.dims + pos];
      n.loops.push_back({d, x.temporal[i * n.dims + d], i, false});
    }
    n.level_end[i] = static_cast<int>(n.loops.size());
  }
  for (const auto& d : p.dims) n.bounds.push_back(p.bound(d));
  for (const auto& ds : p.data_spaces) {
    uint64_t rel = 0;
    for (const auto& axis : ds.projection)
      for (const auto& t : axis) {
        const int k = p.dim_index(t.dim);
        if (k >= 0 && k < 64) rel |= uint64_t{1} << k;
      }
    n.relevant.push_back(rel);
    const auto it = densities.find(ds.name);
    n.has_density.push_back(it != densities.end());
    n.density.push_back(it != densities.end() ? it->second : workload::DensityModel{});
  }
  for (int ds = 0; ds < n.nds; ++ds) n.tensor_points.push_back(n.points(ds, n.bounds));
  return n;
}

namespace {

// A width in bits as an attribute gives it: 0 unless a whole number in 0..2^20.
int bits_attribute(const std::string& v) {
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (end == v.c_str() || *end != '\0' || x < 0 || x > (1 << 20)) return 0;
  return static_cast<int>(x);
}

}  // namespace

int default_metadata_bits(const arch::StorageLevel& s) {
  for (const char* k : {"metadata_datawidth", "metadata_word_bits"}) {
    const auto it = s.attributes.find(k);
    if (it != s.attributes.end()) return bits_attribute(it->second);
  }
  return 0;
}

int metadata_storage_width(const arch::StorageLevel& s) {
  for (const char* k : {"metadata_storage_width", "metadata_width"}) {
    const auto it = s.attributes.find(k);
    if (it != s.attributes.end()) return bits_attribute(it->second);
  }
  return 0;
}

Ineffectual ineffectual_probability(const Nest& n, int level, int target,
                                    const std::vector<int>& leaders) {
  Ineffectual out;
  int t = level;
  while (t >= 0 && !n.kept(t, target)) --t;  // the optimisation lands on the next outer keeper
  if (t < 0) return out;
  out.level = t;
  const int c = n.child(t, target);
  const bool to_compute = c == n.levels;
  // The target loop: scanning the loops of levels c-1 .. t innermost first.
  const int first = c < n.levels ? n.level_begin[c - 1] : 0;
  const int last = n.level_end[t];  // one past the last loop of level t
  int g = -1;
  bool scalar = false;
  for (int i = first; i < last && g < 0; ++i) {
    const Loop& l = n.loops[i];
    if (!to_compute) {
      if (l.bound > 1 && n.is_relevant(target, l.dim)) g = i;
      continue;
    }
    const bool next_spatial = i + 1 < n.level_end[l.level] ? n.loops[i + 1].spatial : false;
    if (!next_spatial) {
      g = i;
      scalar = !l.spatial;
    } else if (n.is_relevant(target, l.dim) && l.bound > 1) {
      g = i;
    }
  }
  if (g < 0) g = last - 1;
  if (g < 0) return out;  // no loops at all
  std::vector<int64_t> mold(n.dims, 1);
  if (!scalar)
    for (int i = 0; i <= g; ++i) mold[n.loops[i].dim] *= n.loops[i].bound;
  const Loop& tl = n.loops[g];
  const bool is_spatial = tl.spatial;
  std::vector<int> relevant_loops = {g};
  std::vector<int64_t> cond = mold;
  bool upper_found = !is_spatial;
  for (int i = g + 1; i < last; ++i) {
    const Loop& u = n.loops[i];
    if (u.bound == 1) continue;
    const bool above_spatial =
        !upper_found && !u.spatial && !to_compute && !n.is_relevant(target, u.dim);
    if (u.spatial || above_spatial) {
      cond[u.dim] *= u.bound;
      relevant_loops.push_back(i);
    }
    if (is_spatial && !u.spatial && (to_compute || n.is_relevant(target, u.dim)))
      upper_found = true;
  }
  const int64_t block = std::max<int64_t>(1, n.h->storage[t].block_size);
  double effectual = 1;
  for (int leader : leaders) {
    std::map<int, double> co;  // co-iterated dimension -> product of its loops' bounds
    double aggregated = 1;
    bool co_seen = false, ineffective = false;
    for (size_t j = 0; !scalar && j < relevant_loops.size(); ++j) {
      const Loop& l = n.loops[relevant_loops[j]];
      if (is_spatial && co_seen && n.is_relevant(leader, l.dim)) {
        ineffective = true;
        break;
      }
      if (n.is_relevant(target, l.dim) && n.is_relevant(leader, l.dim)) {
        co[l.dim] = (co.count(l.dim) ? co[l.dim] : 1.0) * static_cast<double>(l.bound);
        aggregated *= static_cast<double>(l.bound);
        co_seen = true;
      }
    }
    if (ineffective) continue;
    std::vector<double> tm(mold.begin(), mold.end()), cm(cond.begin(), cond.end());
    const double granularity = static_cast<double>(n.points(target, mold));
    double scaling = std::ceil(static_cast<double>(block) / (granularity / aggregated));
    for (const auto& [dim, factor] : co) {
      const double eff = factor / scaling;
      tm[dim] = std::ceil(tm[dim] / eff);
      cm[dim] = std::ceil(cm[dim] / eff);
      scaling /= factor;
    }
    if (scaling > 1) {
      cm[tl.dim] *= scaling;
      tm[tl.dim] *= scaling;
    }
    std::vector<int64_t> cond_ext(n.dims);
    for (int d = 0; d < n.dims; ++d) cond_ext[d] = static_cast<int64_t>(cm[d]);
    effectual *= 1 - n.prob(leader, n.axis_extents(leader, cond_ext), 0);
  }
  out.p = 1 - effectual;
  return out;
}

}  // namespace sparsemap::cost::sparseloop_detail
