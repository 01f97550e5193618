// The loop-nest model (Timeloop's semantics, dense): formulas in include/sparsemap/cost/loopnest.h.
#include "sparsemap/cost/loopnest.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace sparsemap::cost {
namespace {

struct Loop {
  int dim = 0;
  int64_t bound = 1;
  int level = 0;
  bool spatial = false;
};

// Splits a permutation into dimension names: on spaces/commas when it has any, else per
// character (Timeloop's "RPK").
std::vector<std::string> permutation_dims(const std::string& s) {
  std::vector<std::string> out;
  if (s.find_first_of(" ,") != std::string::npos) {
    std::string cur;
    for (char c : s) {
      if (c == ' ' || c == ',') {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) out.push_back(cur);
  } else {
    for (char c : s) out.emplace_back(1, c);
  }
  return out;
}

class Model {
 public:
  Model(const workload::Einsum& p, const arch::Hierarchy& h) : p_(p), h_(h) {
    n_ = static_cast<int>(h.storage.size());
    nd_ = static_cast<int>(p.dims.size());
    // Projections by dimension index and coefficient value, looked up once.
    for (const auto& ds : p.data_spaces) {
      std::vector<std::vector<Term>> axes;
      std::vector<bool> rel(nd_, false);
      for (const auto& axis : ds.projection) {
        std::vector<Term> terms;
        for (const auto& t : axis) {
          const int k = p.dim_index(t.dim);
          if (k < 0) {
            bad_projection_ = ds.name + " projects '" + t.dim + "', not a dimension of " + p.name;
            continue;
          }
          terms.push_back({k, p.coefficient(t)});
          rel[k] = true;
        }
        axes.push_back(terms);
      }
      axes_.push_back(axes);
      relevant_.push_back(rel);
    }
  }

  // Builds the loop list and keep table from the mapping; returns an error text or "".
  std::string resolve(const mapping::LoopNest& m) {
    if (!bad_projection_.empty()) return "problem: " + bad_projection_;
    const int nds = static_cast<int>(p_.data_spaces.size());
    std::vector<std::vector<int64_t>> temporal(n_, std::vector<int64_t>(nd_, 1));
    std::vector<std::vector<int64_t>> spatial(n_, std::vector<int64_t>(nd_, 1));
    std::vector<std::vector<std::string>> tperm(n_), sperm(n_);
    keep_.assign(n_, std::vector<bool>(nds, true));
    for (int i = 0; i < n_; ++i)
      if (h_.storage[i].dummy) keep_[i].assign(nds, false);
    for (const auto& d : m.directives) {
      int level = h_.find(d.target);
      if (level < 0) level = h_.find("inter_" + d.target + "_spatial");
      if (level < 0) return "mapping: no storage level named '" + d.target + "'";
      if (d.kind == mapping::DirectiveKind::kDataspace) {
        for (const auto& name : d.keep) {
          const int k = p_.data_space_index(name);
          if (k < 0) return "mapping: " + d.target + " keeps '" + name + "', not a data space";
          keep_[level][k] = true;
        }
        for (const auto& name : d.bypass) {
          const int k = p_.data_space_index(name);
          if (k < 0) return "mapping: " + d.target + " bypasses '" + name + "', not a data space";
          keep_[level][k] = false;
        }
        continue;
      }
      const bool sp = d.kind == mapping::DirectiveKind::kSpatial;
      auto& f = sp ? spatial[level] : temporal[level];
      for (const auto& x : d.factors) {
        const int k = p_.dim_index(x.dim);
        if (k < 0)
          return "mapping: " + d.target + " has a factor of '" + x.dim + "', not a dimension of " +
                 p_.name;
        f[k] = x.value;
      }
      auto& perm = sp ? sperm[level] : tperm[level];
      perm = permutation_dims(d.permutation);
      for (const auto& name : perm)
        if (p_.dim_index(name) < 0)
          return "mapping: " + d.target + "'s permutation names '" + name +
                 "', not a dimension of " + p_.name;
    }
    for (int k = 0; k < nd_; ++k) {
      int64_t prod = 1;
      bool over = false;
      for (int i = 0; i < n_ && !over; ++i) {
        prod *= temporal[i][k];  // factors <= 2^40 (reader), bounds <= 2^30: check each step
        if (prod <= p_.bound(p_.dims[k])) prod *= spatial[i][k];
        over = prod > p_.bound(p_.dims[k]);
      }
      if (over)
        return "mapping: the factors of " + p_.dims[k] +
               " multiply to more than the problem's bound " + std::to_string(p_.bound(p_.dims[k]));
      if (prod != p_.bound(p_.dims[k]))
        return "mapping: the factors of " + p_.dims[k] + " multiply to " + std::to_string(prod) +
               ", the problem's bound is " + std::to_string(p_.bound(p_.dims[k]));
    }
    for (int k = 0; k < nds; ++k)
      if (!keep_[0][k])
        return "mapping: the outermost level " + h_.storage[0].name + " bypasses " +
               p_.data_spaces[k].name;
    // Loops, outermost first: per level, its temporal loops then its spatial loops; within a
    // group, dimensions missing from the permutation first, then the permutation reversed.
    loops_.clear();
    for (int i = 0; i < n_; ++i) {
      for (int s = 0; s < 2; ++s) {
        const auto& f = s ? spatial[i] : temporal[i];
        const auto& perm = s ? sperm[i] : tperm[i];
        std::vector<int> order;
        for (int k = 0; k < nd_; ++k)
          if (std::find(perm.begin(), perm.end(), p_.dims[k]) == perm.end()) order.push_back(k);
        for (auto it = perm.rbegin(); it != perm.rend(); ++it) order.push_back(p_.dim_index(*it));
        for (int k : order)
          if (f[k] > 1) loops_.push_back({k, f[k], i, s == 1});
      }
    }
    return "";
  }

  // ext_i: product of the bounds of loops at levels >= i.
  std::vector<int64_t> ext(int level) const {
    std::vector<int64_t> e(nd_, 1);
    for (const auto& l : loops_)
      if (l.level >= level) e[l.dim] *= l.bound;
    return e;
  }

  bool relevant(int ds, int dim) const { return relevant_[ds][dim]; }

  int64_t footprint(int ds, const std::vector<int64_t>& e) const {
    int64_t size = 1;
    for (const auto& axis : axes_[ds]) {
      int64_t len = 1;
      for (const auto& t : axis) len += t.coef * (e[t.dim] - 1);
      size *= len;
    }
    return size;
  }

  // R(c, ext): words a child at level c takes in over the run (see the header).
  int64_t received(int ds, int c, const std::vector<int64_t>& e) const {
    const int64_t tile = footprint(ds, e);
    if (c == n_) {
      int64_t steps = 1;
      for (const auto& l : loops_)
        if (!l.spatial) steps *= l.bound;
      return steps * tile;
    }
    int j = -1;
    for (int g = 0; g < static_cast<int>(loops_.size()); ++g)
      if (loops_[g].level < c && !loops_[g].spatial && relevant(ds, loops_[g].dim)) j = g;
    if (j < 0) return tile;
    int64_t sweeps = 1;
    for (int g = 0; g < j; ++g)
      if (loops_[g].level < c && !loops_[g].spatial) sweeps *= loops_[g].bound;
    int64_t stride = 1;
    for (int g = j + 1; g < static_cast<int>(loops_.size()); ++g)
      if (loops_[g].dim == loops_[j].dim) stride *= loops_[g].bound;
    int64_t overlap = 1;
    for (const auto& axis : axes_[ds]) {
      int64_t len = 1, shift = 0;
      for (const auto& t : axis) {
        len += t.coef * (e[t.dim] - 1);
        if (t.dim == loops_[j].dim) shift += t.coef * stride;
      }
      overlap *= std::max<int64_t>(0, len - shift);
    }
    // Sliding-window reuse only between back-to-back iterations of j: when a loop iterates
    // inside j (above the child), each step of j brings a whole new tile.
    bool inner = false;
    for (int g = j + 1; g < static_cast<int>(loops_.size()); ++g)
      inner |= loops_[g].level < c && !loops_[g].spatial;
    const int64_t delta = inner ? tile : tile - overlap;
    return sweeps * (tile + (loops_[j].bound - 1) * delta);
  }

  // D(c, ext): distinct words a child sees over the run.
  int64_t distinct(int ds, int c, std::vector<int64_t> e) const {
    for (const auto& l : loops_)
      if (l.level < c && !l.spatial) e[l.dim] *= l.bound;
    return footprint(ds, e);
  }

  // Distinct copies a parent at level p serves per child word: the product of the spatial
  // bounds of levels p..c-1 on dimensions relevant to ds (multicast for the others).
  int64_t copies(int p, int c, int ds) const {
    int64_t n = 1;
    for (const auto& l : loops_)
      if (l.spatial && l.level >= p && l.level < c && relevant(ds, l.dim)) n *= l.bound;
    return n;
  }

  int64_t utilized(int level) const {
    int64_t u = 1;
    for (const auto& l : loops_)
      if (l.spatial && l.level < level) u *= l.bound;
    return u;
  }
  int64_t fanout_used(int level) const {
    int64_t u = 1;
    for (const auto& l : loops_)
      if (l.spatial && l.level == level) u *= l.bound;
    return u;
  }
  int64_t steps() const {
    int64_t s = 1;
    for (const auto& l : loops_)
      if (!l.spatial) s *= l.bound;
    return s;
  }

  const workload::Einsum& p_;
  const arch::Hierarchy& h_;
  int n_ = 0, nd_ = 0;
  std::vector<Loop> loops_;
  std::vector<std::vector<bool>> keep_;
  struct Term {
    int dim;
    int64_t coef;
  };
  std::vector<std::vector<std::vector<Term>>> axes_;  // [data space][axis][term]
  std::vector<std::vector<bool>> relevant_;           // [data space][dim]
  std::string bad_projection_;
};

int64_t ceil_div(int64_t a, int64_t b) { return b <= 1 ? a : (a + b - 1) / b; }

}  // namespace

const LoopNestLevel* LoopNestResult::level(const std::string& name) const {
  for (const auto& l : levels)
    if (l.name == name) return &l;
  return nullptr;
}

double LoopNestResult::fj_per_compute(const std::string& component) const {
  if (macs <= 0) return 0;
  if (component == "Total") return energy_pj * 1000.0 / static_cast<double>(macs);
  if (component == compute_name) return compute_energy_pj * 1000.0 / static_cast<double>(macs);
  if (const auto* l = level(component)) return l->energy_pj * 1000.0 / static_cast<double>(macs);
  return 0;
}

LoopNestResult evaluate_loopnest(const workload::Einsum& p, const arch::Hierarchy& h,
                                 const mapping::LoopNest& m, const arch::EnergyTable* ert) {
  LoopNestResult r;
  r.compute_name = h.compute.name;
  r.compute_instances = h.compute.instances;
  Model model(p, h);
  const int n = model.n_;
  const int nds = static_cast<int>(p.data_spaces.size());
  // Counts are int64: problems over 2^50 operations are refused rather than overflowed.
  double ops = 1;
  for (const auto& d : p.dims) ops *= static_cast<double>(p.bound(d));
  if (ops > 1125899906842624.0) {
    r.status = LoopNestStatus::kInvalidMapping;
    r.reason = "problem: over 2^50 operations";
    return r;
  }
  r.macs = p.operations();
  if (n == 0) {
    r.status = LoopNestStatus::kInvalidMapping;
    r.reason = "architecture: no storage level";
    return r;
  }
  if (std::string why = model.resolve(m); !why.empty()) {
    r.status = LoopNestStatus::kInvalidMapping;
    r.reason = why;
    return r;
  }
  // Fan-outs: the spatial factors of level i spread over the instances of level i + 1.
  for (int i = 0; i < n; ++i) {
    const int64_t below = i + 1 < n ? h.storage[i + 1].instances : h.compute.instances;
    const int64_t fanout =
        std::max<int64_t>(1, below / std::max<int64_t>(1, h.storage[i].instances));
    if (model.fanout_used(i) > fanout) {
      r.status = LoopNestStatus::kOverFanout;
      r.reason = h.storage[i].name + ": spatial factors " + std::to_string(model.fanout_used(i)) +
                 " over a fan-out of " + std::to_string(fanout);
      return r;
    }
  }
  r.utilized_compute_instances = model.utilized(n);
  r.compute_cycles = model.steps();

  struct Counts {
    int64_t reads = 0, fills = 0, updates = 0;
  };
  std::vector<std::vector<Counts>> counts(n, std::vector<Counts>(nds));
  for (int ds = 0; ds < nds; ++ds) {
    const bool rw = p.data_spaces[ds].read_write;
    std::vector<int> keepers;
    for (int i = 0; i < n; ++i)
      if (model.keep_[i][ds]) keepers.push_back(i);
    for (size_t k = 0; k < keepers.size(); ++k) {
      const int par = keepers[k];
      const int child = k + 1 < keepers.size() ? keepers[k + 1] : n;
      const auto ec = model.ext(child);
      const int64_t rc = model.received(ds, child, ec);
      const int64_t dc = rw ? model.distinct(ds, child, ec) : 0;
      const int64_t copies = model.copies(par, child, ds);
      auto& pc = counts[par][ds];
      pc.reads += (rc - dc) * copies;
      if (rw) pc.updates += rc * copies;
      if (child < n) counts[child][ds].fills += rc - dc;
    }
  }

  // Capacity.
  for (int i = 0; i < n; ++i) {
    const auto& s = h.storage[i];
    const auto e = model.ext(i);
    int64_t used = 0;
    for (int ds = 0; ds < nds; ++ds)
      if (model.keep_[i][ds]) used += model.footprint(ds, e);
    if (s.capacity_words() > 0 && used > s.capacity_words()) {
      r.status = LoopNestStatus::kOverCapacity;
      r.reason = s.name + ": tiles need " + std::to_string(used) + " words, capacity " +
                 std::to_string(s.capacity_words());
    }
  }

  // Cycles.
  r.cycles = r.compute_cycles;
  std::vector<int64_t> level_cycles(n, 0);
  for (int i = 0; i < n; ++i) {
    const auto& s = h.storage[i];
    int64_t rd = 0, wr = 0;
    for (int ds = 0; ds < nds; ++ds) {
      rd += counts[i][ds].reads;
      wr += counts[i][ds].fills + counts[i][ds].updates;
    }
    double t = 0;
    if (s.read_bandwidth > 0) t = std::max(t, rd / s.read_bandwidth);
    if (s.write_bandwidth > 0) t = std::max(t, wr / s.write_bandwidth);
    if (s.shared_bandwidth > 0) t = std::max(t, (rd + wr) / s.shared_bandwidth);
    level_cycles[i] = static_cast<int64_t>(std::ceil(t - 1e-9));
    // A level that throttles the run takes ceil(C / slowdown) cycles, computed as Timeloop
    // does, in doubles: demand_r = sum over data spaces of reads / C (words/cycle, in the
    // problem's order), demand_w likewise with fills + updates, slowdown = min(1, read_bw /
    // demand_r, write_bw / demand_w, shared_bw / (demand_r + demand_w)). Mathematically this is
    // ceil(t); the rounding of the doubles can add one cycle (15604736 reads at 16 words/cycle
    // over C = 602112: 975297 cycles, not 975296), and Timeloop reports that one.
    const double c = static_cast<double>(r.compute_cycles);
    double demand_r = 0, demand_w = 0, slowdown = 1;
    for (int ds = 0; ds < nds && c > 0; ++ds) {
      demand_r += static_cast<double>(counts[i][ds].reads) / c;
      demand_w += static_cast<double>(counts[i][ds].fills + counts[i][ds].updates) / c;
    }
    if (s.read_bandwidth > 0 && s.read_bandwidth < demand_r)
      slowdown = std::min(slowdown, s.read_bandwidth / demand_r);
    if (s.write_bandwidth > 0 && s.write_bandwidth < demand_w)
      slowdown = std::min(slowdown, s.write_bandwidth / demand_w);
    if (s.shared_bandwidth > 0 && s.shared_bandwidth < demand_r + demand_w)
      slowdown = std::min(slowdown, s.shared_bandwidth / (demand_r + demand_w));
    if (slowdown < 1) level_cycles[i] = static_cast<int64_t>(std::ceil(c / slowdown));
    r.cycles = std::max(r.cycles, level_cycles[i]);
  }
  r.utilization = r.cycles > 0 ? static_cast<double>(r.macs) /
                                     (static_cast<double>(r.cycles) * h.compute.instances)
                               : 0;

  // Energy.
  auto action = [&](const arch::ComponentEnergy* c, const char* name, const char* fallback) {
    if (!c) return 0.0;
    if (auto e = c->energy_pj(name)) return *e;
    if (fallback)
      if (auto e = c->energy_pj(fallback)) return *e;
    return 0.0;
  };
  const arch::ComponentEnergy* ce = ert ? ert->find(h.compute.name) : nullptr;
  r.compute_energy_pj = static_cast<double>(r.macs) * action(ce, "compute", nullptr);
  r.energy_pj = r.compute_energy_pj;
  for (int i = 0; i < n; ++i) {
    const auto& s = h.storage[i];
    LoopNestLevel lv;
    lv.name = s.name;
    lv.instances = s.instances;
    lv.utilized_instances = model.utilized(i);
    lv.dummy = s.dummy;
    lv.cycles = level_cycles[i];
    const arch::ComponentEnergy* c = ert ? ert->find(s.name) : nullptr;
    const double e_read = action(c, "read", nullptr), e_write = action(c, "write", nullptr),
                 e_update = action(c, "update", "write"), e_leak = action(c, "leak", nullptr);
    const auto e = model.ext(i);
    // One access serves a cluster; the utilized instances are taken as spread over every cluster.
    const int64_t clusters =
        std::min(lv.utilized_instances, std::max<int64_t>(1, s.instances / s.cluster_size));
    for (int ds = 0; ds < nds; ++ds) {
      if (!model.keep_[i][ds]) continue;
      LoopNestDataspace d;
      d.name = p.data_spaces[ds].name;
      d.tile_words = model.footprint(ds, e);
      d.reads = counts[i][ds].reads;
      d.fills = counts[i][ds].fills;
      d.updates = counts[i][ds].updates;
      d.energy_pj = static_cast<double>(clusters) * (ceil_div(d.reads, s.block_size) * e_read +
                                                     ceil_div(d.fills, s.block_size) * e_write +
                                                     ceil_div(d.updates, s.block_size) * e_update);
      lv.energy_pj += d.energy_pj;
      lv.dataspaces.push_back(d);
    }
    lv.leak_energy_pj =
        e_leak * static_cast<double>(r.cycles) * static_cast<double>(lv.utilized_instances);
    lv.energy_pj += lv.leak_energy_pj;
    r.energy_pj += lv.energy_pj;
    r.levels.push_back(lv);
  }
  return r;
}

}  // namespace sparsemap::cost
