// The utilisation bound and the spatial seeds (spatial.h).
#include "sparsemap/dse/mapper/spatial.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "sparsemap/error.h"

namespace sparsemap::dse::mapper {
namespace {

using workload::Dim;
using workload::OpKind;

constexpr int kSlotReduction = 1, kSlotY = 2, kSlotX = 3, kSlotR = 4, kSlotS = 5;  // map_space.h

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool strided(const MapSpace& sp) { return sp.layer().stride.y > 1 || sp.layer().stride.x > 1; }

// min over {s_i : prod s_i <= cap} of prod_{i >= first} ceil(e_i / s_i), memoised on (i, cap).
// Only the smallest s of each quotient ceil(e / s) is tried: O(sqrt e) values per extent.
class BoundSearch {
 public:
  explicit BoundSearch(std::vector<int64_t> extents) : e_(std::move(extents)) {}

  int64_t min_steps(size_t i, int64_t cap) {
    if (i == e_.size()) return 1;
    const auto key = std::make_pair(i, cap);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const int64_t e = e_[i];
    int64_t best = -1;
    for (int64_t s = 1; s <= std::min(e, cap);) {
      const int64_t q = ceil_div(e, s);
      const int64_t v = q * min_steps(i + 1, cap / s);
      if (best < 0 || v < best) best = v;
      if (q == 1) break;
      s = ceil_div(e, q - 1);  // the smallest s with a smaller quotient
    }
    memo_.emplace(key, best);
    return best;
  }

 private:
  std::vector<int64_t> e_;
  std::map<std::pair<size_t, int64_t>, int64_t> memo_;
};

// One seed: which slots go on the PEs, and the cluster size of level 1 (0: one level).
struct Candidate {
  int64_t steps = 0;
  int levels = 1, p0 = 0, p1 = 0;
  int64_t cluster = 0;
  bool operator<(const Candidate& o) const {
    return std::tie(steps, levels, p0, p1, cluster) <
           std::tie(o.steps, o.levels, o.p0, o.p1, o.cluster);
  }
};

// Steps of a seed: the slots not on the PEs are walked whole, one index per step.
int64_t seed_steps(const MapSpace& sp, const Candidate& c, int64_t pes) {
  int64_t steps = 1;
  for (int s = 0; s < kSlots; ++s)
    if (s != c.p0 && (c.levels == 1 || s != c.p1)) steps *= std::max<int64_t>(1, sp.extent(s));
  const int64_t e0 = std::max<int64_t>(1, sp.extent(c.p0));
  if (c.levels == 1) return steps * ceil_div(e0, pes);
  const int64_t units = pes / c.cluster;  // level-0 clusters (problem.cpp: P / cluster sizes)
  if (c.p0 == c.p1) return steps * ceil_div(e0, units * c.cluster);
  return steps * ceil_div(e0, units) * ceil_div(std::max<int64_t>(1, sp.extent(c.p1)), c.cluster);
}

// How much level 0 hands the inner level at once (seed_mapping).
enum class Tiling { Inner, Whole, Minimal };

// A seed's mapping. Every PE holds one index of each slot and the whole filter window (R and S
// untiled: MAESTRO's sliding window). Level 0 gives each cluster one index of p0 (and c of p1,
// one per PE of the cluster). The cost model charges a level's first step its ingress on top of
// its compute, once per run of the inner level, so the inner level should walk many steps per
// run. Inner: level 0 hands it the whole of slot 1 (the reduction: C, or K of a GEMM), or of
// the largest other slot when slot 1 is on the PEs. Whole: every slot not on the PEs (fewer
// runs, more L2). Minimal: one index of each (the least L2, for small buffers).
MapSpace::Decoded seed_mapping(const MapSpace& sp, const Candidate& c, Tiling tiling) {
  MapSpace::Decoded d;
  d.levels = c.levels;
  for (int l = 0; l < 4; ++l) {
    for (int s = 0; s < kSlots; ++s) d.order[l][s] = s, d.tile[l][s] = 1;
    for (int s : {kSlotR, kSlotS}) d.tile[l][s] = std::max<int64_t>(1, sp.extent(s));
    d.cluster[l] = 0;
  }
  d.parallel[0] = c.p0;
  if (c.levels == 2) d.parallel[1] = c.p1;
  const bool two = c.levels == 2;
  // Slots level 0 may hand over whole: not on the PEs, and not the output rows and columns of a
  // strided layer (their sliding window over a strided input costs far more than its steps).
  auto may = [&](int s) {
    return s != c.p0 && !(two && s == c.p1) && !(strided(sp) && (s == kSlotY || s == kSlotX));
  };
  int inner = -1;  // the reduction slot, else the largest slot level 0 may hand over
  for (int s = 0; s < kSlots; ++s)
    if (may(s) && (inner < 0 || s == kSlotReduction ||
                   (inner != kSlotReduction && sp.extent(s) > sp.extent(inner))))
      inner = s;
  for (int s = 0; s < kSlots; ++s)
    if (may(s) && (tiling == Tiling::Whole || (tiling == Tiling::Inner && s == inner)))
      d.tile[0][s] = std::max<int64_t>(1, sp.extent(s));
  if (two) {
    d.cluster[1] = c.cluster;
    d.tile[0][c.p1] = c.cluster;  // level 0 hands each cluster c indices of p1, one per PE
  }
  return d;
}

bool same_decoding(const MapSpace::Decoded& a, const MapSpace::Decoded& b) {
  if (a.levels != b.levels) return false;
  for (int l = 0; l < a.levels; ++l) {
    if (a.parallel[l] != b.parallel[l] || a.tile[l] != b.tile[l]) return false;
    if (l >= 1 && a.cluster[l] != b.cluster[l]) return false;
  }
  return true;
}

}  // namespace

std::vector<int64_t> loop_extents(const workload::Layer& l) {
  std::vector<Dim> dims;
  bool window = true;  // Y' and X' are loops too
  switch (l.kind) {
    case OpKind::Conv:
    case OpKind::NgConv:
    case OpKind::TrConv:
      dims = {Dim::N, Dim::G, Dim::K, Dim::C, Dim::R, Dim::S};
      break;
    case OpKind::DsConv:
      dims = {Dim::N, Dim::G, Dim::C, Dim::R, Dim::S};
      break;
    case OpKind::Fc:
      dims = {Dim::N, Dim::K, Dim::C}, window = false;
      break;
    case OpKind::Gemm:
      dims = {Dim::M, Dim::N, Dim::K}, window = false;
      break;
    case OpKind::BatchedGemm:
      dims = {Dim::G, Dim::M, Dim::N, Dim::K}, window = false;
      break;
    default:
      return {};
  }
  std::vector<int64_t> e;
  for (Dim d : dims) e.push_back(l.dim(d));
  if (window) e.insert(e.end(), {l.out_y(), l.out_x()});
  e.erase(std::remove_if(e.begin(), e.end(), [](int64_t x) { return x <= 1; }), e.end());
  return e;
}

int64_t utilisation_bound_cycles(const workload::Layer& layer, int64_t pes) {
  SPARSEMAP_ASSERT(pes >= 1);
  if (layer.macs() <= 0) return 0;
  std::vector<int64_t> e = loop_extents(layer);
  std::sort(e.rbegin(), e.rend());  // large extents first: smaller caps sooner, fewer states
  return BoundSearch(std::move(e)).min_steps(0, pes);
}

std::vector<search::Genome> spatial_seeds(const MapSpace& space, size_t count, bool minimal) {
  const int64_t pes = space.arch().num_pes;
  // The filter window stays whole in every PE (MAESTRO's sliding window), and a strided layer
  // keeps its output rows and columns off the PEs too: the cost model's sliding window over a
  // strided input costs such a spread far above its steps (resnet18's conv1: 3.06x).
  std::vector<int> par;
  for (int s : space.parallel_choices())
    if (s != kSlotR && s != kSlotS && !(strided(space) && (s == kSlotY || s == kSlotX)))
      par.push_back(s);
  if (par.empty()) par = space.parallel_choices();
  // The best candidate of each (levels, p0, p1): seeds that differ in which slots are spread.
  std::map<std::tuple<int, int, int>, Candidate> best;
  auto offer = [&](Candidate c) {
    c.steps = seed_steps(space, c, pes);
    auto [it, fresh] = best.emplace(std::make_tuple(c.levels, c.p0, c.p1), c);
    if (!fresh && c < it->second) it->second = c;
  };
  for (int p0 : par) {
    offer({0, 1, p0, p0, 0});
    if (space.options().max_levels < 2) continue;
    for (int p1 : par) {
      Candidate pick{0, 2, p0, p1, 1};
      pick.steps = seed_steps(space, pick, pes);
      const int64_t e1 = std::max<int64_t>(1, space.extent(p1));
      for (Candidate c = pick; c.cluster <= std::min(pes, e1); ++c.cluster) {
        c.steps = seed_steps(space, c, pes);
        if (c < pick) pick = c;
      }
      offer(pick);
    }
  }
  std::vector<Candidate> order;
  for (const auto& kv : best) order.push_back(kv.second);
  std::sort(order.begin(), order.end());
  std::vector<search::Genome> out;
  for (const Candidate& c : order)
    for (Tiling t : {Tiling::Inner, Tiling::Whole, Tiling::Minimal}) {
      if (out.size() >= count || (t == Tiling::Minimal && !minimal)) break;
      const MapSpace::Decoded want = seed_mapping(space, c, t);
      search::Genome g = space.encode(want);
      if (same_decoding(space.decode_raw(g), want) &&
          std::find(out.begin(), out.end(), g) == out.end())
        out.push_back(std::move(g));
    }
  return out;
}

}  // namespace sparsemap::dse::mapper
