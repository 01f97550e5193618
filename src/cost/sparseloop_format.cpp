// The Sparseloop model's representation formats: which loops of a tile each rank of a format
// covers, and the expected metadata and payload units of the tile per rank. Formulas in
// include/sparsemap/cost/sparseloop.h.
#include <algorithm>
#include <cmath>

#include "sparseloop_internal.h"

namespace sparsemap::cost::sparseloop_detail {
namespace {

// Timeloop's adjustment of a format word width: the level's default when not given, else the
// first width >= the given one that divides the metadata storage width.
int adjust_bits(int given, const arch::StorageLevel& s) {
  if (given < 0) return default_metadata_bits(s);
  const int width = metadata_storage_width(s);
  if (given == 0 || width % given == 0) return given;
  int b = given;
  while (b < 2 * given && width % b != 0) ++b;
  return b;
}

// The probability that `points` points of a tile of `shape` points holding `k` nonzeros are
// all zeros, under the data space's model constrained to that tile. An actual tensor's tile of
// k nonzeros is taken to hold them uniformly: C(shape - points, k) / C(shape, k)
// = prod_{j < k} (shape - points - j) / (shape - j), multiplied out when k or points is small
// (exact for 12/16 = 0.75, where lgamma is a rounding off and ceil() would jump).
double constrained_empty(const Nest& n, int ds, int64_t points, int64_t shape, int64_t k) {
  if (points <= 0) return 1;
  if (n.actual(ds) && std::min(points, k) <= 64) {
    if (points > shape - k) return 0;
    double p = 1;
    if (k <= points)
      for (int64_t j = 0; j < k; ++j)
        p *= static_cast<double>(shape - points - j) / static_cast<double>(shape - j);
    else  // the same ratio as C(shape - k, points) / C(shape, points)
      for (int64_t j = 0; j < points; ++j)
        p *= static_cast<double>(shape - k - j) / static_cast<double>(shape - j);
    return p;
  }
  if (n.has_density[ds] &&
      (n.density[ds].distribution == workload::DensityDistribution::kHypergeometric ||
       n.density[ds].distribution == workload::DensityDistribution::kActual)) {
    workload::DensityModel m = n.density[ds];
    m.distribution = workload::DensityDistribution::kHypergeometric;
    m.tensor = nullptr;
    m.workload_tensor_size = shape;
    m.density = static_cast<double>(k) / static_cast<double>(shape);
    return workload::tile_occupancy_probability(m, points, shape, 0);
  }
  const double x =
      static_cast<double>(points) * static_cast<double>(k) / static_cast<double>(shape);
  return std::floor(x) == 0 ? 1 - (x - std::floor(x)) : 0;
}

// Ranks of a tile, innermost first: each rank's fibre shape (points of the data space over
// the rank's loops) and subtile[r] (points of the tile under rank r's outermost loop: a
// flattened rank spans all its loops, as Sparseloop's reference outputs count it; subtile[0]
// is one point).
struct RankLayout {
  std::vector<int64_t> fibre;
  std::vector<int64_t> subtile = {1};
  std::string error;
};

// The dimensions of rank r's flattening group holding `dim` (empty: no rule for the rank or
// dim not in it); `has_rule` tells whether the rank has a rule at all.
std::vector<std::string> flattening_group(const Nest& n, const arch::DataSpaceFormat& f, int r,
                                          int dim, bool* has_rule) {
  const auto& spec = f.ranks[f.ranks.size() - 1 - r];
  *has_rule = !spec.flattened_rank_ids.empty();
  for (const auto& group : spec.flattened_rank_ids)
    for (const auto& name : group)
      if (n.p->dim_index(name) == dim) return group;
  return {};
}

bool in_group(const Nest& n, const std::vector<std::string>& group, int dim) {
  for (const auto& name : group)
    if (n.p->dim_index(name) == dim) return true;
  return false;
}

RankLayout rank_layout(const Nest& n, int level, int ds,
                       const std::vector<const arch::DataSpaceFormat*>& formats) {
  RankLayout out;
  const arch::DataSpaceFormat* f = formats[level];
  const bool has_md = f != nullptr;
  const int ranks = has_md ? static_cast<int>(f->ranks.size()) : 1;
  const int c = n.child(level, ds);
  const bool pre_tiled =
      has_md && f->compressed() && c < n.levels && n.points(ds, n.level_extents(c)) > 1;
  // The tile's own loops (levels level .. c-1), innermost first, relevant to ds; each with the
  // points of the tile under it.
  struct L {
    int dim;
    int64_t bound, tile_points;
  };
  std::vector<L> sub;
  std::vector<int64_t> cum(n.dims, 1);
  for (const Loop& l : n.loops) {
    cum[l.dim] *= l.bound;
    if (l.level >= level && l.level < c && n.is_relevant(ds, l.dim))
      sub.push_back({l.dim, l.bound, n.points(ds, cum)});
  }
  int r = -1;
  if (pre_tiled) {
    // The child's ranks are the innermost ones here.
    const RankLayout child = rank_layout(n, c, ds, formats);
    const arch::DataSpaceFormat* cf = formats[c];
    const int child_ranks = static_cast<int>(child.fibre.size());
    if (!child.error.empty()) return child;
    if (child_ranks > ranks)
      out.error = n.h->storage[level].name + " and " + n.h->storage[c].name + ": the formats of " +
                  n.p->data_spaces[ds].name + " do not align (pre-tiling)";
    for (int k = 0; cf && cf->compressed() && k < std::min(child_ranks, ranks); ++k)
      if (cf->ranks[cf->ranks.size() - 1 - k].format != f->ranks[f->ranks.size() - 1 - k].format)
        out.error = n.h->storage[level].name + " and " + n.h->storage[c].name +
                    ": the formats of " + n.p->data_spaces[ds].name + " do not align (pre-tiling)";
    out.fibre = child.fibre;
    out.subtile = child.subtile;
    r = child_ranks - 1;
  } else if (c < n.levels) {
    // The child's tile folds into the innermost loop of each dimension here.
    std::vector<int64_t> fold = n.level_extents(c);
    for (auto& l : sub) {
      l.bound *= fold[l.dim];
      fold[l.dim] = 1;
    }
  }
  size_t g = 0;
  int64_t corresponding = 1;
  auto push_rank = [&](const std::vector<L>& loops) {
    std::vector<int64_t> ext(n.dims, 1);
    for (const auto& l : loops) ext[l.dim] *= l.bound;
    out.fibre.push_back(n.points(ds, ext));
    out.subtile.push_back(corresponding);
  };
  while (r < ranks - 1 && g < sub.size()) {
    while (g < sub.size() && sub[g].bound == 1) ++g;
    if (g < sub.size()) {
      ++r;
      std::vector<L> rank_loops;
      std::vector<std::string> group;
      bool flat = !has_md;
      if (has_md) {
        bool has_rule = false;
        group = flattening_group(n, *f, r, sub[g].dim, &has_rule);
        if (has_rule && group.empty()) {  // a rank of other dimensions: empty here
          push_rank({});
          continue;
        }
        flat = has_rule;
      }
      rank_loops.push_back(sub[g]);
      corresponding = sub[g].tile_points;
      ++g;
      while (flat && g < sub.size() &&
             (!has_md || in_group(n, group, sub[g].dim) || sub[g].bound == 1)) {
        if (sub[g].bound > 1) rank_loops.push_back(sub[g]);
        corresponding = sub[g].tile_points;
        ++g;
      }
      push_rank(rank_loops);
    }
    corresponding = 1;
  }
  while (r < ranks - 1) {
    ++r;
    corresponding = sub.empty() ? 1 : sub.front().tile_points;
    push_rank({});
  }
  for (; g < sub.size(); ++g)
    if (sub[g].bound > 1 && out.error.empty())
      out.error = n.h->storage[level].name + ": " + n.p->data_spaces[ds].name +
                  " needs more ranks than its format has";
  return out;
}

}  // namespace

FormatOccupancy format_occupancy(const Nest& n, int level, int ds,
                                 const std::vector<const arch::DataSpaceFormat*>& formats,
                                 bool parent_compressed) {
  const auto& s = n.h->storage[level];
  const arch::DataSpaceFormat& f = *formats[level];
  const int ranks = static_cast<int>(f.ranks.size());
  FormatOccupancy out;
  out.metadata.assign(ranks, 0);
  out.payload.assign(ranks, 0);
  for (int r = 0; r < ranks; ++r) {
    const arch::RankSpec& rf = f.ranks[ranks - 1 - r];
    // A bitmask's metadata word is one bit per coordinate unless given (Timeloop's default).
    const int md_bits =
        rf.format == arch::RankFormat::kB && rf.metadata_word_bits < 0 ? 1 : rf.metadata_word_bits;
    out.metadata_bits.push_back(adjust_bits(md_bits, s));
    out.payload_bits.push_back(adjust_bits(f.ranks[ranks - 1 - r].payload_word_bits, s));
  }
  const std::vector<int64_t> axes = n.axis_extents(ds, n.level_extents(level));
  const int64_t shape = n.points(ds, n.level_extents(level));
  if (shape <= 0) return out;
  const RankLayout layout = rank_layout(n, level, ds, formats);
  out.error = layout.error;
  if (static_cast<int>(layout.fibre.size()) != ranks) {
    if (out.error.empty())
      out.error = s.name + ": the ranks of " + n.p->data_spaces[ds].name + " do not fit its tile";
    return out;
  }
  // The occupancies the tile can have, and their probabilities (known nonempty below a
  // compressed parent).
  std::vector<std::pair<int64_t, double>> occ;
  const auto [lo, hi] = n.support(ds, axes);
  for (int64_t k = lo; k <= hi; ++k) {
    const double pk = n.prob(ds, axes, k);
    if (pk > 0) occ.emplace_back(k, pk);
  }
  if (parent_compressed && !occ.empty() && occ.front().first == 0 && occ.front().second < 1) {
    const double nonempty = 1 - occ.front().second;
    occ.erase(occ.begin());
    for (auto& o : occ) o.second /= nonempty;
  }
  for (const auto& [k, pk] : occ) {
    out.expected_nonzeros += pk * static_cast<double>(k);
    double fibres_max = 1;
    int64_t cur_points = shape;
    std::vector<double> md(ranks, 0), pl(ranks, 0);
    std::vector<bool> empty(ranks, false);
    for (int r = ranks - 1; r >= 0; --r) {
      const int64_t fs = layout.fibre[r];
      const int64_t next_points = layout.subtile[r];
      const bool innermost = f.inner_to_outer ? r == 0 : r == ranks - 1;
      if (fs == 1 && !innermost) {
        empty[r] = true;
      } else {
        const double fibres = fibres_max * (1 - constrained_empty(n, ds, cur_points, shape, k));
        const double nz =
            static_cast<double>(fs) * (1 - constrained_empty(n, ds, next_points, shape, k));
        // The rank's units by the shared formulas (workload/tensor_format.h): CP and B hold
        // ceil(nz) coordinates per nonempty fibre, RLE nz (its expectation).
        const arch::RankFormat format = f.ranks[ranks - 1 - r].format;
        workload::RankOccupancy o;
        o.fibre_shape = static_cast<double>(fs);
        o.fibres = fibres;
        o.all_fibres = fibres_max;
        o.coords = format == arch::RankFormat::kRLE ? fibres * nz : fibres * std::ceil(nz);
        const workload::RankUnits u = workload::rank_units(format, o);
        md[r] = u.metadata;
        pl[r] = u.payload;
      }
      fibres_max *= static_cast<double>(fs);
      cur_points = next_points;
    }
    // The innermost rank with metadata carries the data itself as its payload.
    for (int r = 0; r < ranks; ++r)
      if (!empty[r]) {
        pl[r] = 0;
        break;
      }
    for (int r = 0; r < ranks; ++r) {
      out.metadata[r] += pk * md[r];
      out.payload[r] += pk * pl[r];
    }
  }
  return out;
}

}  // namespace sparsemap::cost::sparseloop_detail
