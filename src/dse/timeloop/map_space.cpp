// Timeloop's map space: constraints, genome decoding and the mapping a point writes
// (include/sparsemap/dse/timeloop/map_space.h). Enumeration: map_space_enumerate.cpp.
#include "sparsemap/dse/timeloop/map_space.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "sparsemap/error.h"

namespace sparsemap::dse::timeloop {
namespace {

// Tokens of a factors or permutation text: split on spaces and commas, or (no separator and
// `letters`) one per character, as Timeloop reads "RPK".
std::vector<std::string> tokens(const std::string& text, bool letters) {
  std::vector<std::string> out;
  if (letters && text.find_first_of(" ,") == std::string::npos) {
    for (char c : text) out.emplace_back(1, c);
    return out;
  }
  std::string cur;
  for (char c : text) {
    if (c == ' ' || c == ',' || c == '\t') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

std::vector<int64_t> prime_factors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t f = 2; f * f <= n; ++f)
    while (n % f == 0) {
      out.push_back(f);
      n /= f;
    }
  if (n > 1) out.push_back(n);
  return out;
}

MapSpace::MapSpace(const workload::Einsum& p, const arch::Hierarchy& h) : p_(p), h_(h) {
  n_ = static_cast<int>(h.storage.size());
  nd_ = static_cast<int>(p.dims.size());
  nds_ = static_cast<int>(p.data_spaces.size());
  if (n_ == 0) throw InputError({"<architecture>"}, "expected at least one storage level");
  if (nd_ > 64 || nds_ > 64)
    throw InputError({"<problem>"}, "expected at most 64 dimensions and 64 data spaces");
  rules_.resize(n_);
  fixed_temporal_.assign(static_cast<size_t>(n_) * nd_, 1);
  fixed_spatial_.assign(fixed_temporal_.size(), 1);
  for (int i = 0; i < n_; ++i) parse_level(i);
  add_genes();
}

// Reads level i's constraints into rules_[i] and the fixed factors.
void MapSpace::parse_level(int i) {
  const arch::StorageLevel& s = h_.storage[i];
  const arch::LevelConstraints& c = s.constraints;
  LevelRules& r = rules_[i];
  const std::string where = "constraints of " + s.name;
  auto fail = [&](const std::string& what) { throw InputError({where}, what); };
  auto dim = [&](const std::string& name, const std::string& text) {
    const int k = p_.dim_index(name);
    if (k < 0)
      fail("expected a dimension of " + p_.name + " in " + quote_input(text) + ", found " +
           quote_input(name));
    return k;
  };
  // Fan-out: the instances below one instance, along each mesh axis.
  const int64_t below_n = i + 1 < n_ ? h_.storage[i + 1].instances : h_.compute.instances;
  const int64_t below_x = i + 1 < n_ ? h_.storage[i + 1].mesh_x : h_.compute.mesh_x;
  const int64_t below_y = i + 1 < n_ ? h_.storage[i + 1].mesh_y : h_.compute.mesh_y;
  const int64_t fanout = std::max<int64_t>(1, below_n / std::max<int64_t>(1, s.instances));
  r.fanout_x = std::max<int64_t>(1, below_x / std::max<int64_t>(1, s.mesh_x));
  r.fanout_y = std::max<int64_t>(1, below_y / std::max<int64_t>(1, s.mesh_y));
  if (r.fanout_x * r.fanout_y != fanout) {
    r.fanout_x = fanout;
    r.fanout_y = 1;
  }
  for (int sp = 0; sp < 2; ++sp) {
    auto& bounds = sp ? r.spatial : r.temporal;
    bounds.assign(nd_, FactorBounds{});
    const std::string& text = sp ? c.spatial_factors : c.temporal_factors;
    for (const std::string& t : tokens(text, false)) {
      const size_t op = t.find_first_of("<>=");
      if (op == 0 || op == std::string::npos)
        fail("expected factors as D=n, D<=n or D>=n in " + quote_input(text) + ", found " +
             quote_input(t));
      const int k = dim(t.substr(0, op), text);
      const bool le = t.compare(op, 2, "<=") == 0, ge = t.compare(op, 2, ">=") == 0;
      const std::string num = t.substr(op + (le || ge ? 2 : 1));
      if (num.empty() || num.size() > 12 ||
          !std::all_of(num.begin(), num.end(), [](char ch) { return std::isdigit(ch); }))
        fail("expected a whole number after " + quote_input(t.substr(0, op + 1)) + ", found " +
             quote_input(num));
      const int64_t v = std::stoll(num), bound = p_.bound(p_.dims[k]);
      if (le) {
        bounds[k].max = std::max<int64_t>(1, v);
      } else if (ge) {
        if (v > bound)
          fail(quote_input(t) + " cannot be met: the bound of " + p_.dims[k] + " is " +
               std::to_string(bound));
        bounds[k].min = v;
      } else {
        if (v > bound)
          fail(quote_input(t) + " cannot be met: the bound of " + p_.dims[k] + " is " +
               std::to_string(bound));
        bounds[k].exact = v == 0 ? bound : v;
        (sp ? fixed_spatial_ : fixed_temporal_)[i * nd_ + k] = bounds[k].exact;
      }
    }
    // Permutation: innermost first; '_' separates the innermost from the outermost dims.
    const std::string& perm = sp ? c.spatial_permutation : c.temporal_permutation;
    auto& inner = sp ? r.spatial_inner : r.temporal_inner;
    auto& outer = sp ? r.spatial_outer : r.temporal_outer;
    bool after = false;
    uint64_t seen = 0;
    for (const std::string& t : tokens(perm, true)) {
      if (t == "_") {
        after = true;
        continue;
      }
      const int k = dim(t, perm);
      if (seen >> k & 1) fail("expected each dimension once in " + quote_input(perm));
      seen |= uint64_t{1} << k;
      (after ? outer : inner).push_back(k);
    }
  }
  if (c.spatial_split >= 0) r.split = c.spatial_split;
  for (int kb = 0; kb < 2; ++kb)
    for (const std::string& name : kb ? c.bypass : c.keep) {
      const int k = p_.data_space_index(name);
      if (k < 0)
        fail("expected a data space of " + p_.name + " to " + (kb ? "bypass" : "keep") +
             ", found " + quote_input(name));
      (kb ? r.bypass : r.keep) |= uint64_t{1} << k;
    }
  if (r.keep & r.bypass) fail("a data space is both kept and bypassed");
  const uint64_t all = nds_ == 64 ? ~uint64_t{0} : (uint64_t{1} << nds_) - 1;
  if (i == 0 && r.bypass)
    fail("the outermost level keeps every data space (Timeloop's rule); it cannot bypass one");
  if (i == 0) r.keep = all;
  if (s.dummy && r.keep) fail("a spatial placeholder keeps no data space");
  if (s.dummy) r.bypass = all;
}

// Checks the fixed factors, lists the free slots and primes and lays out the genome.
void MapSpace::add_genes() {
  slots_.assign(nd_, {});
  primes_.clear();
  for (int k = 0; k < nd_; ++k) {
    const int64_t bound = p_.bound(p_.dims[k]);
    int64_t fixed = 1;
    for (int i = 0; i < n_; ++i) {
      fixed *= fixed_temporal_[i * nd_ + k];
      if (fixed <= bound) fixed *= fixed_spatial_[i * nd_ + k];
      if (fixed > bound || bound % fixed != 0)
        throw InputError({"constraints"}, "the fixed factors of " + p_.dims[k] + " (down to " +
                                              h_.storage[i].name + ") do not divide its bound " +
                                              std::to_string(bound));
      const LevelRules& r = rules_[i];
      if (r.temporal[k].exact == 0) slots_[k].push_back({i, false});
      if (r.spatial[k].exact == 0 && r.fanout_x * r.fanout_y > 1 && r.spatial[k].max > 1)
        slots_[k].push_back({i, true});
    }
    const int64_t left = bound / fixed;
    if (left > 1 && slots_[k].empty())
      throw InputError({"constraints"},
                       "every factor of " + p_.dims[k] + " is fixed and they multiply to " +
                           std::to_string(fixed) + ", not its bound " + std::to_string(bound));
    for (int64_t f : prime_factors(left)) primes_.push_back({k, f});
  }
  // Spatial fixed factors must fit their fan-outs.
  for (int i = 0; i < n_; ++i) {
    int64_t used = 1;
    for (int k = 0; k < nd_; ++k) used *= fixed_spatial_[i * nd_ + k];
    if (used > rules_[i].fanout_x * rules_[i].fanout_y)
      throw InputError({"constraints of " + h_.storage[i].name},
                       "fixed spatial factors multiply to " + std::to_string(used) +
                           ", over the fan-out of " +
                           std::to_string(rules_[i].fanout_x * rules_[i].fanout_y));
  }
  axis_genes_.clear();
  keep_genes_.clear();
  for (int i = 0; i < n_; ++i) {
    const LevelRules& r = rules_[i];
    if (r.split < 0 && r.fanout_x > 1 && r.fanout_y > 1)
      for (int k = 0; k < nd_; ++k)
        if (r.spatial[k].exact == 0) axis_genes_.push_back({i, k});
    for (int ds = 0; ds < nds_; ++ds)
      if (!((r.keep | r.bypass) >> ds & 1)) keep_genes_.push_back({i, ds});
  }
  axis_base_ = primes_.size();
  order_base_ = axis_base_ + axis_genes_.size();
  fix_axes_and_orders();
  set_start();
  keep_base_ = order_base_ + static_cast<size_t>(n_) * nd_;
  genes_ = keep_base_ + keep_genes_.size();
}

// Per (level, dim): the mesh axis of its spatial loop when the fan-out or the split fixes it
// (else -1) and the axis gene that chooses it; per level the dims its temporal permutation
// leaves free.
void MapSpace::fix_axes_and_orders() {
  const size_t cells = static_cast<size_t>(n_) * nd_;
  axis_fixed_.assign(cells, -1);
  axis_gene_of_.assign(cells, -1);
  temporal_free_.assign(n_, {});
  for (int i = 0; i < n_; ++i) {
    const LevelRules& r = rules_[i];
    std::vector<int> listed = r.spatial_inner;
    listed.insert(listed.end(), r.spatial_outer.begin(), r.spatial_outer.end());
    for (int k = 0; k < nd_; ++k) {
      const size_t at = static_cast<size_t>(i) * nd_ + k;
      if (r.fanout_y == 1) {
        axis_fixed_[at] = 0;
      } else if (r.fanout_x == 1) {
        axis_fixed_[at] = 1;
      } else if (r.split >= 0) {
        const auto it = std::find(listed.begin(), listed.end(), k);
        axis_fixed_[at] = it - listed.begin() < r.split ? 0 : 1;
      }
      // A fixed spatial factor under a free split has no axis gene of its own: it reads the
      // gene after the axis genes (the first order gene).
      const auto g = std::find(axis_genes_.begin(), axis_genes_.end(), std::make_pair(i, k));
      axis_gene_of_[at] = static_cast<int>(g - axis_genes_.begin());
      const auto in = [k](const std::vector<int>& v) {
        return std::find(v.begin(), v.end(), k) != v.end();
      };
      if (!in(r.temporal_inner) && !in(r.temporal_outer)) temporal_free_[i].push_back(k);
    }
  }
}

MapSpace::Layout MapSpace::layout() const {
  Layout l;
  for (const Prime& pr : primes_) l.factor_dim.push_back(pr.dim);
  l.axis_base = axis_base_;
  l.order_base = order_base_;
  l.keep_base = keep_base_;
  l.axis = axis_genes_;
  l.keep = keep_genes_;
  l.levels = n_;
  l.dims = nd_;
  return l;
}

int MapSpace::axis_of(int level, int dim, const search::Genome* g) const {
  const size_t at = static_cast<size_t>(level) * nd_ + dim;
  if (axis_fixed_[at] >= 0 || !g) return axis_fixed_[at];
  return (*g)[axis_base_ + static_cast<size_t>(axis_gene_of_[at])] < 0.5 ? 0 : 1;
}

bool MapSpace::fits(const Placement& pl, const Slot& slot, int dim, int64_t value) const {
  const size_t at = static_cast<size_t>(slot.level) * nd_ + dim;
  const LevelRules& r = rules_[slot.level];
  if (!slot.spatial) return pl.temporal[at] * value <= r.temporal[dim].max;
  if (pl.spatial[at] * value > r.spatial[dim].max) return false;
  return pl.axis[at] == 0 ? pl.used_x[slot.level] * value <= r.fanout_x
                          : pl.used_y[slot.level] * value <= r.fanout_y;
}

void MapSpace::put(Placement& pl, const Slot& slot, int dim, int64_t value) const {
  const size_t at = static_cast<size_t>(slot.level) * nd_ + dim;
  if (!slot.spatial) {
    pl.temporal[at] *= value;
    return;
  }
  pl.spatial[at] *= value;
  (pl.axis[at] == 0 ? pl.used_x : pl.used_y)[slot.level] *= value;
}

void MapSpace::take(Placement& pl, const Slot& slot, int dim, int64_t value) const {
  const size_t at = static_cast<size_t>(slot.level) * nd_ + dim;
  if (!slot.spatial) {
    pl.temporal[at] /= value;
    return;
  }
  pl.spatial[at] /= value;
  (pl.axis[at] == 0 ? pl.used_x : pl.used_y)[slot.level] /= value;
}

void MapSpace::start_placement(const search::Genome* g, Placement& pl) const {
  pl.temporal = start_.temporal;
  pl.spatial = start_.spatial;
  pl.axis = start_.axis;
  pl.used_x = start_.used_x;
  pl.used_y = start_.used_y;
  if (g)
    for (const size_t at : free_axis_cells_) {
      if ((*g)[axis_base_ + static_cast<size_t>(axis_gene_of_[at])] < 0.5) continue;
      pl.axis[at] = 1;  // a fixed spatial factor moves from the X fan-out to the Y one
      const size_t i = at / static_cast<size_t>(nd_);
      pl.used_x[i] /= pl.spatial[at];
      pl.used_y[i] *= pl.spatial[at];
    }
  pl.feasible = true;
  for (int i = 0; i < n_; ++i)
    if (pl.used_x[i] > rules_[i].fanout_x || pl.used_y[i] > rules_[i].fanout_y) pl.feasible = false;
}

// The placement every decoding starts from: the fixed factors, each spatial loop on its fixed
// axis (X where the axis is free: a genome may move it to Y), and the fan-out they use.
void MapSpace::set_start() {
  has_min_.assign(n_, 0);
  for (int i = 0; i < n_; ++i)
    for (int k = 0; k < nd_; ++k)
      if (rules_[i].temporal[k].min > 1 || rules_[i].spatial[k].min > 1) has_min_[i] = 1;
  start_.temporal = fixed_temporal_;
  start_.spatial = fixed_spatial_;
  start_.axis.assign(fixed_temporal_.size(), 0);
  start_.used_x.assign(n_, 1);
  start_.used_y.assign(n_, 1);
  free_axis_cells_.clear();
  for (int i = 0; i < n_; ++i)
    for (int k = 0; k < nd_; ++k) {
      const size_t at = static_cast<size_t>(i) * nd_ + k;
      if (axis_fixed_[at] < 0) free_axis_cells_.push_back(at);
      start_.axis[at] = std::max(0, axis_fixed_[at]);
      (start_.axis[at] == 0 ? start_.used_x : start_.used_y)[i] *= start_.spatial[at];
    }
}

namespace {

// Sorts dims[0, n) by key, ascending, equal keys in their first order (insertion sort: stable,
// and no allocation for the few dims of a level).
void sort_by_key(int* dims, size_t n, const double* key) {
  for (size_t a = 1; a < n; ++a) {
    const int d = dims[a];
    size_t b = a;
    for (; b > 0 && key[d] < key[dims[b - 1]]; --b) dims[b] = dims[b - 1];
    dims[b] = d;
  }
}

}  // namespace

// Orders, keeps and splits of a placement whose factors are final; order_keys[i * dims + k]
// ranks the free dimensions of level i (ascending: innermost first).
void MapSpace::finish(const Placement& pl, const double* order_keys, KeepChoice keep,
                      Decoded& d) const {
  d.feasible = pl.feasible;
  cost::LoopNestPoint& x = d.point;
  x.levels = n_;
  x.dims = nd_;
  x.temporal = pl.temporal;
  x.spatial = pl.spatial;
  x.temporal_order.resize(pl.temporal.size());
  x.spatial_order.resize(pl.temporal.size());
  x.keep.resize(n_);
  d.split.resize(n_);
  d.scratch.resize(static_cast<size_t>(nd_) * 3);
  int* const free = d.scratch.data();  // then the X loops, then the Y loops
  int* const sx = free + nd_;
  int* const sy = sx + nd_;
  for (int i = 0; i < n_; ++i) {
    const LevelRules& r = rules_[i];
    const size_t row = static_cast<size_t>(i) * nd_;
    if (has_min_[i])
      for (int k = 0; k < nd_; ++k)
        if (pl.temporal[row + k] < r.temporal[k].min || pl.spatial[row + k] < r.spatial[k].min)
          d.feasible = false;
    // Temporal, innermost first: fixed inner, free by key, fixed outer; stored outermost first.
    const std::vector<int>& open = temporal_free_[i];
    std::copy(open.begin(), open.end(), free);
    sort_by_key(free, open.size(), order_keys + row);
    int* out = x.temporal_order.data() + row;
    out = std::copy(r.temporal_outer.rbegin(), r.temporal_outer.rend(), out);
    out = std::reverse_copy(free, free + open.size(), out);
    std::copy(r.temporal_inner.rbegin(), r.temporal_inner.rend(), out);
    // Spatial, innermost first: X loops, then Y loops, then the factor-1 dimensions; stored
    // outermost first, so the factor-1 dimensions (last to first) lead.
    size_t nx = 0, ny = 0;
    out = x.spatial_order.data() + row;
    for (int k = nd_ - 1; k >= 0; --k) {
      if (pl.spatial[row + k] == 1)
        *out++ = k;
      else if (pl.axis[row + k] == 0)
        sx[nx++] = k;
      else
        sy[ny++] = k;
    }
    d.split[i] = static_cast<int>(nx);
    out = std::copy(sy, sy + ny, out);
    std::copy(sx, sx + nx, out);
    x.keep[i] = r.keep;
  }
  for (size_t j = 0; j < keep_genes_.size(); ++j)
    if (keep.kept(j)) x.keep[keep_genes_[j].first] |= uint64_t{1} << keep_genes_[j].second;
}

MapSpace::Decoded MapSpace::decode(const search::Genome& g) const {
  Decoded d;
  decode(g, d);
  return d;
}

void MapSpace::decode(const search::Genome& g, Decoded& out) const {
  thread_local Placement pl;
  start_placement(&g, pl);
  for (size_t j = 0; j < primes_.size(); ++j) {
    const Prime& pr = primes_[j];
    const auto& slots = slots_[pr.dim];
    const size_t n = slots.size();
    const size_t first = std::min(n - 1, static_cast<size_t>(g[j] * static_cast<double>(n)));
    size_t s = 0;
    while (s < n && !fits(pl, slots[(first + s) % n], pr.dim, pr.value)) ++s;
    if (s == n) {
      pl.feasible = false;  // no slot has room: the first one takes it anyway
      s = 0;
    }
    put(pl, slots[(first + s) % n], pr.dim, pr.value);
  }
  finish(pl, g.data() + order_base_, {g.data() + keep_base_, 0}, out);
}

mapping::LoopNest MapSpace::to_mapping(const Decoded& d) const {
  const cost::LoopNestPoint& x = d.point;
  bool letters = true;
  for (const auto& name : p_.dims) letters = letters && name.size() == 1;
  auto perm = [&](const std::vector<int>& order, int i) {
    std::string s;
    for (int pos = nd_ - 1; pos >= 0; --pos) {  // innermost first
      if (!s.empty() && !letters) s += ' ';
      s += p_.dims[order[i * nd_ + pos]];
    }
    return s;
  };
  mapping::LoopNest m;
  for (int i = 0; i < n_; ++i) {
    const std::string& name = h_.storage[i].name;
    mapping::LoopNestDirective t, s, ds;
    t.target = s.target = ds.target = name;
    t.kind = mapping::LoopNestDirectiveKind::kTemporal;
    s.kind = mapping::LoopNestDirectiveKind::kSpatial;
    ds.kind = mapping::LoopNestDirectiveKind::kDataspace;
    t.permutation = perm(x.temporal_order, i);
    s.permutation = perm(x.spatial_order, i);
    s.split = d.split[i];
    bool spatial = false;
    for (int k = nd_ - 1; k >= 0; --k) {
      const int kt = x.temporal_order[i * nd_ + k], ks = x.spatial_order[i * nd_ + k];
      t.factors.push_back({p_.dims[kt], x.temporal[i * nd_ + kt]});
      s.factors.push_back({p_.dims[ks], x.spatial[i * nd_ + ks]});
      spatial = spatial || x.spatial[i * nd_ + ks] > 1;
    }
    for (int k = 0; k < nds_; ++k)
      (x.keep[i] >> k & 1 ? ds.keep : ds.bypass).push_back(p_.data_spaces[k].name);
    m.directives.push_back(ds);
    if (spatial) m.directives.push_back(s);
    m.directives.push_back(t);
  }
  return m;
}

}  // namespace sparsemap::dse::timeloop
