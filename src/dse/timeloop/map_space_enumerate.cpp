// Exhaustive enumeration of a Timeloop map space (MapSpace::enumerate, map_space.h), once
// count() (map_space_count.cpp) says it is small enough: every
// split of each prime power over a dimension's free slots (and, for a free mesh split, each
// axis), then every order of each level's free temporal loops whose factor is over 1, then
// every choice of the free keep / bypass bits. Points differing only in where a factor-1 loop
// sits are one point.
#include <algorithm>
#include <numeric>

#include "sparsemap/dse/timeloop/map_space.h"

namespace sparsemap::dse::timeloop {
namespace {

struct Group {
  int dim;
  int64_t prime;
  int exponent;
};

}  // namespace

bool MapSpace::enumerate(uint64_t limit, const std::function<bool(const Decoded&)>& visit) const {
  std::vector<Group> groups;
  for (const Prime& pr : primes_) {
    if (!groups.empty() && groups.back().dim == pr.dim && groups.back().prime == pr.value)
      ++groups.back().exponent;
    else
      groups.push_back({pr.dim, pr.value, 1});
  }
  if (keep_genes_.size() >= 63) return false;  // over 2^63 points: never enumerable
  if (count(limit == UINT64_MAX ? limit : limit + 1) > limit) return false;
  bool go_on = true;

  // Orders and keeps of one complete factor placement.
  std::vector<std::vector<int>> moving(n_);  // free dims whose temporal factor is over 1
  auto leaf = [&](const Placement& pl) {
    for (int i = 0; i < n_; ++i) {
      moving[i].clear();
      for (int k : temporal_free_[i])
        if (pl.temporal[static_cast<size_t>(i) * nd_ + k] > 1) moving[i].push_back(k);
    }
    std::vector<double> key(static_cast<size_t>(n_) * nd_, -1.0);  // factor-1 dims innermost
    Decoded d;
    std::function<void(int)> orders = [&](int i) {
      if (!go_on) return;
      if (i == n_) {
        for (uint64_t mask = 0; go_on && mask < (uint64_t{1} << keep_genes_.size()); ++mask) {
          finish(pl, key.data(), {nullptr, mask}, d);
          go_on = visit(d);
        }
        return;
      }
      std::vector<int> perm = moving[i];
      do {
        for (size_t pos = 0; pos < perm.size(); ++pos)
          key[static_cast<size_t>(i) * nd_ + perm[pos]] = static_cast<double>(pos);
        orders(i + 1);
      } while (go_on && std::next_permutation(perm.begin(), perm.end()));
    };
    orders(0);
  };

  // Places group g's exponent over the slots of its dimension from slot s on; leaves `pl` as
  // it found it (each factor put is taken back).
  std::function<void(size_t, size_t, int, Placement&)> place_group = [&](size_t g, size_t s,
                                                                         int left, Placement& pl) {
    if (!go_on) return;
    if (g == groups.size()) {
      if (pl.feasible) leaf(pl);
      return;
    }
    const Group& gr = groups[g];
    const auto& slots = slots_[gr.dim];
    if (s == slots.size()) {
      if (left == 0) place_group(g + 1, 0, g + 1 < groups.size() ? groups[g + 1].exponent : 0, pl);
      return;
    }
    const Slot& slot = slots[s];
    const size_t at = static_cast<size_t>(slot.level) * nd_ + gr.dim;
    // A free mesh axis is chosen when the dimension's spatial loop first gets a factor.
    const bool choose_axis =
        slot.spatial && pl.spatial[at] == 1 && axis_of(slot.level, gr.dim, nullptr) < 0;
    // The dimension's last slot takes whatever is left: placing less there leads nowhere.
    const bool last = s + 1 == slots.size();
    if (!last || left == 0) place_group(g, s + 1, left, pl);  // none of this prime here
    const int axis_before = pl.axis[at];
    for (int axis = 0; axis < (choose_axis ? 2 : 1); ++axis) {
      if (choose_axis) pl.axis[at] = axis;
      int64_t placed = 1;
      for (int a = 1; a <= left && go_on; ++a) {
        if (!fits(pl, slot, gr.dim, gr.prime)) break;
        put(pl, slot, gr.dim, gr.prime);
        placed *= gr.prime;
        if (!last || a == left) place_group(g, s + 1, left - a, pl);
      }
      take(pl, slot, gr.dim, placed);
      pl.axis[at] = axis_before;
    }
  };

  Placement pl;
  start_placement(nullptr, pl);
  if (!pl.feasible) return true;  // fixed spatial factors over a mesh axis: no point at all
  place_group(0, 0, groups.empty() ? 0 : groups[0].exponent, pl);
  return true;
}

}  // namespace sparsemap::dse::timeloop
