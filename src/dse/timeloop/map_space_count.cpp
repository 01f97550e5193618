// The number of points of a Timeloop map space (MapSpace::count, map_space.h), without visiting
// them: the points enumerate() visits are, per complete factor placement, 2^(free keep bits) x
// the product over levels of m_i!, m_i the level's free-order dimensions whose temporal factor is
// over 1. Placements are built one dimension at a time, and what the dimensions after d can do
// depends only on the levels' X / Y fan-out used so far; what they add to the count, on the m_i
// so far too. So the count of the dimensions after d is memoised on (d, m, used X, used Y): each
// such state is expanded once, where a depth-first walk over whole placements meets it once per
// placement of the dimensions before d.
#include <algorithm>
#include <map>

#include "sparsemap/dse/timeloop/map_space.h"

namespace sparsemap::dse::timeloop {
namespace {

uint64_t saturating_add(uint64_t a, uint64_t b, uint64_t cap) {
  return a >= cap - std::min(cap, b) ? cap : a + b;
}

uint64_t saturating_mul(uint64_t a, uint64_t b, uint64_t cap) {
  if (a == 0 || b == 0) return 0;
  return a > cap / b ? cap : std::min(cap, a * b);
}

}  // namespace

// One count: the placement being built, the m_i so far and the memo.
struct MapSpace::Counter {
  struct Group {
    int64_t prime;
    int exponent;
  };
  const MapSpace& s;
  uint64_t cap;
  std::vector<std::vector<Group>> groups;  // [dim]: its primes with their exponents
  std::vector<char> free_order;            // [level * dims + dim]: in temporal_free_[level]
  Placement pl;
  std::vector<int> moving;  // [level]: m_i
  std::map<std::vector<int64_t>, uint64_t> memo;

  // Points over the placements of dims [d, dims) from the current state.
  uint64_t after(int d) {
    if (d == s.nd_) {
      uint64_t n = s.keep_genes_.size() >= 63 ? cap : uint64_t{1} << s.keep_genes_.size();
      for (int m : moving)
        for (int f = 2; f <= m; ++f) n = saturating_mul(n, static_cast<uint64_t>(f), cap);
      return std::min(n, cap);
    }
    std::vector<int64_t> key{d};
    key.insert(key.end(), moving.begin(), moving.end());
    key.insert(key.end(), pl.used_x.begin(), pl.used_x.end());
    key.insert(key.end(), pl.used_y.begin(), pl.used_y.end());
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    uint64_t total = 0;
    place(d, 0, 0, groups[d].empty() ? 0 : groups[d][0].exponent, total);
    memo.emplace(std::move(key), total);
    return total;
  }

  // Places dim d's group g (`left` of its exponent still to place) over its slots from slot
  // `at` on, as enumerate() does; each complete placement of d adds after(d + 1).
  void place(int d, size_t g, size_t at, int left, uint64_t& total) {
    if (total >= cap) return;
    if (g == groups[d].size()) {
      std::vector<int> was = moving;
      for (int i = 0; i < s.n_; ++i) {
        const size_t k = static_cast<size_t>(i) * s.nd_ + d;
        if (free_order[k] && pl.temporal[k] > 1) ++moving[i];
      }
      total = saturating_add(total, after(d + 1), cap);
      moving = std::move(was);
      return;
    }
    const auto& slots = s.slots_[d];
    const Group& gr = groups[d][g];
    if (at == slots.size()) {
      if (left == 0)
        place(d, g + 1, 0, g + 1 < groups[d].size() ? groups[d][g + 1].exponent : 0, total);
      return;
    }
    const Slot& slot = slots[at];
    const size_t k = static_cast<size_t>(slot.level) * s.nd_ + d;
    const bool choose_axis =
        slot.spatial && pl.spatial[k] == 1 && s.axis_of(slot.level, d, nullptr) < 0;
    const bool last = at + 1 == slots.size();
    if (!last || left == 0) place(d, g, at + 1, left, total);
    const int axis_before = pl.axis[k];
    for (int axis = 0; axis < (choose_axis ? 2 : 1); ++axis) {
      if (choose_axis) pl.axis[k] = axis;
      int64_t placed = 1;
      for (int a = 1; a <= left && total < cap; ++a) {
        if (!s.fits(pl, slot, d, gr.prime)) break;
        s.put(pl, slot, d, gr.prime);
        placed *= gr.prime;
        if (!last || a == left) place(d, g, at + 1, left - a, total);
      }
      s.take(pl, slot, d, placed);
      pl.axis[k] = axis_before;
    }
  }
};

uint64_t MapSpace::count(uint64_t cap) const {
  Counter c{*this, std::max<uint64_t>(cap, 1), {}, {}, {}, {}, {}};
  c.groups.resize(static_cast<size_t>(nd_));
  for (const Prime& pr : primes_) {
    auto& g = c.groups[static_cast<size_t>(pr.dim)];
    if (!g.empty() && g.back().prime == pr.value)
      ++g.back().exponent;
    else
      g.push_back({pr.value, 1});
  }
  c.free_order.assign(static_cast<size_t>(n_) * nd_, 0);
  for (int i = 0; i < n_; ++i)
    for (int k : temporal_free_[i]) c.free_order[static_cast<size_t>(i) * nd_ + k] = 1;
  c.moving.assign(static_cast<size_t>(n_), 0);
  start_placement(nullptr, c.pl);
  if (!c.pl.feasible) return 0;  // fixed spatial factors over a mesh axis: no point at all
  return c.after(0);
}

}  // namespace sparsemap::dse::timeloop
