// The loop-nest model (Timeloop's semantics, dense): formulas in include/sparsemap/cost/loopnest.h.
#include "sparsemap/cost/loopnest.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace sparsemap::cost {
namespace {

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

void LoopNestPoint::resize(int num_levels, int num_dims, int num_data_spaces) {
  levels = num_levels;
  dims = num_dims;
  temporal.assign(static_cast<size_t>(levels) * dims, 1);
  spatial.assign(temporal.size(), 1);
  temporal_order.resize(temporal.size());
  for (int i = 0; i < levels; ++i)
    for (int k = 0; k < dims; ++k) temporal_order[i * dims + k] = k;
  spatial_order = temporal_order;
  const uint64_t all = num_data_spaces >= 64 ? ~uint64_t{0} : (uint64_t{1} << num_data_spaces) - 1;
  keep.assign(levels, all);
}

LoopNestEvaluator::LoopNestEvaluator(const workload::Einsum& p, const arch::Hierarchy& h,
                                     const arch::EnergyTable* ert)
    : p_(p), h_(h) {
  n_ = static_cast<int>(h.storage.size());
  nd_ = static_cast<int>(p.dims.size());
  nds_ = static_cast<int>(p.data_spaces.size());
  // Counts are int64: problems over 2^50 operations are refused rather than overflowed.
  double ops = 1;
  for (const auto& d : p.dims) ops *= static_cast<double>(p.bound(d));
  too_many_operations_ = ops > 1125899906842624.0;
  macs_ = p.operations();
  if (nd_ > 64 || nds_ > 64) bad_projection_ = "over 64 dimensions or data spaces";
  for (const auto& d : p.dims) bounds_.push_back(p.bound(d));
  // Projections by dimension index and coefficient value, looked up once.
  for (const auto& ds : p.data_spaces) {
    axis_begin_.push_back(static_cast<int>(term_begin_.size()));
    uint64_t rel = 0;
    for (const auto& axis : ds.projection) {
      term_begin_.push_back(static_cast<int>(terms_.size()));
      for (const auto& t : axis) {
        const int k = p.dim_index(t.dim);
        if (k < 0 || k >= 64) {
          bad_projection_ = ds.name + " projects '" + t.dim + "', not a dimension of " + p.name;
          continue;
        }
        terms_.push_back({k, p.coefficient(t)});
        rel |= uint64_t{1} << k;
      }
    }
    relevant_.push_back(rel);
  }
  axis_begin_.push_back(static_cast<int>(term_begin_.size()));
  term_begin_.push_back(static_cast<int>(terms_.size()));
  // Action energies (a missing update costs a write) and fan-outs, per level.
  auto action = [](const arch::ComponentEnergy* c, const char* name, const char* fallback) {
    if (!c) return 0.0;
    if (auto e = c->energy_pj(name)) return *e;
    if (fallback)
      if (auto e = c->energy_pj(fallback)) return *e;
    return 0.0;
  };
  const arch::ComponentEnergy* ce = ert ? ert->find(h.compute.name) : nullptr;
  compute_pj_ = action(ce, "compute", nullptr);
  for (int i = 0; i < n_; ++i) {
    const auto& s = h.storage[i];
    const arch::ComponentEnergy* c = ert ? ert->find(s.name) : nullptr;
    level_energy_.push_back({action(c, "read", nullptr), action(c, "write", nullptr),
                             action(c, "update", "write"), action(c, "leak", nullptr)});
    // The spatial factors of level i spread over the instances of level i + 1.
    const int64_t below = i + 1 < n_ ? h.storage[i + 1].instances : h.compute.instances;
    fanout_.push_back(std::max<int64_t>(1, below / std::max<int64_t>(1, s.instances)));
    clusters_max_.push_back(
        std::max<int64_t>(1, s.instances / std::max<int64_t>(1, s.cluster_size)));
  }
}

std::string LoopNestEvaluator::problem_error() const {
  if (too_many_operations_) return "problem: over 2^50 operations";
  if (n_ == 0) return "architecture: no storage level";
  if (!bad_projection_.empty()) return "problem: " + bad_projection_;
  return "";
}

std::string LoopNestEvaluator::resolve(const mapping::LoopNest& m, LoopNestPoint* out) const {
  LoopNestPoint& x = *out;
  x.resize(n_, nd_, nds_);
  for (int i = 0; i < n_; ++i)
    if (h_.storage[i].dummy) x.keep[i] = 0;
  for (const auto& d : m.directives) {
    int level = h_.find(d.target);
    if (level < 0) level = h_.find("inter_" + d.target + "_spatial");
    if (level < 0) return "mapping: no storage level named '" + d.target + "'";
    if (d.kind == mapping::LoopNestDirectiveKind::kDataspace) {
      for (const auto& name : d.keep) {
        const int k = p_.data_space_index(name);
        if (k < 0) return "mapping: " + d.target + " keeps '" + name + "', not a data space";
        x.keep[level] |= uint64_t{1} << k;
      }
      for (const auto& name : d.bypass) {
        const int k = p_.data_space_index(name);
        if (k < 0) return "mapping: " + d.target + " bypasses '" + name + "', not a data space";
        x.keep[level] &= ~(uint64_t{1} << k);
      }
      continue;
    }
    const bool sp = d.kind == mapping::LoopNestDirectiveKind::kSpatial;
    int64_t* f = (sp ? x.spatial : x.temporal).data() + level * nd_;
    for (const auto& fac : d.factors) {
      const int k = p_.dim_index(fac.dim);
      if (k < 0)
        return "mapping: " + d.target + " has a factor of '" + fac.dim + "', not a dimension of " +
               p_.name;
      f[k] = fac.value;
    }
    // Timeloop lists a permutation innermost first; dimensions it omits are outermost.
    std::vector<int> perm;
    for (const auto& name : permutation_dims(d.permutation)) {
      const int k = p_.dim_index(name);
      if (k < 0)
        return "mapping: " + d.target + "'s permutation names '" + name + "', not a dimension of " +
               p_.name;
      if (std::find(perm.begin(), perm.end(), k) != perm.end())
        return "mapping: " + d.target + "'s permutation names '" + name + "' twice";
      perm.push_back(k);
    }
    int* order = (sp ? x.spatial_order : x.temporal_order).data() + level * nd_;
    int pos = 0;
    for (int k = 0; k < nd_; ++k)
      if (std::find(perm.begin(), perm.end(), k) == perm.end()) order[pos++] = k;
    for (auto it = perm.rbegin(); it != perm.rend(); ++it) order[pos++] = *it;
  }
  return "";
}

int64_t LoopNestEvaluator::footprint(int ds, const int64_t* ext) const {
  int64_t size = 1;
  for (int a = axis_begin_[ds]; a < axis_begin_[ds + 1]; ++a) {
    int64_t len = 1;
    for (int t = term_begin_[a]; t < term_begin_[a + 1]; ++t)
      len += terms_[t].coef * (ext[terms_[t].dim] - 1);
    size *= len;
  }
  return size;
}

// R(c, ext_c): words a child at level c takes in over the run (see the header).
int64_t LoopNestEvaluator::received(int ds, int c, const LoopNestWorkspace& ws) const {
  const int64_t* e = ws.ext.data() + c * nd_;
  const int64_t tile = footprint(ds, e);
  const auto& loops = ws.loops;
  if (c == n_) {
    int64_t steps = 1;
    for (int k = 0; k < nd_; ++k) steps *= ws.above[n_ * nd_ + k];
    return steps * tile;
  }
  // j: the innermost temporal loop above c relevant to ds; loops above c are [0, end).
  const int end = ws.first_loop[c];
  int j = end - 1;
  while (j >= 0 && (loops[j].spatial || !(relevant_[ds] >> loops[j].dim & 1))) --j;
  if (j < 0) return tile;
  int64_t sweeps = 1;
  for (int g = 0; g < j; ++g)
    if (!loops[g].spatial) sweeps *= loops[g].bound;
  int64_t stride = 1;
  for (int g = j + 1; g < static_cast<int>(loops.size()); ++g)
    if (loops[g].dim == loops[j].dim) stride *= loops[g].bound;
  int64_t overlap = 1;
  for (int a = axis_begin_[ds]; a < axis_begin_[ds + 1]; ++a) {
    int64_t len = 1, shift = 0;
    for (int t = term_begin_[a]; t < term_begin_[a + 1]; ++t) {
      len += terms_[t].coef * (e[terms_[t].dim] - 1);
      if (terms_[t].dim == loops[j].dim) shift += terms_[t].coef * stride;
    }
    overlap *= std::max<int64_t>(0, len - shift);
  }
  // Sliding-window reuse only between back-to-back iterations of j: when a loop iterates
  // inside j (above the child), each step of j brings a whole new tile.
  bool inner = false;
  for (int g = j + 1; g < end; ++g) inner |= !loops[g].spatial;
  const int64_t delta = inner ? tile : tile - overlap;
  return sweeps * (tile + (loops[j].bound - 1) * delta);
}

// Loops outermost first (per level its temporal loops, then its spatial loops), ext_i and the
// temporal bounds above each level.
void LoopNestEvaluator::build_loops(const LoopNestPoint& x, LoopNestWorkspace& ws) const {
  ws.loops.clear();
  ws.first_loop.resize(n_ + 1);
  for (int i = 0; i < n_; ++i) {
    ws.first_loop[i] = static_cast<int>(ws.loops.size());
    for (int s = 0; s < 2; ++s) {
      const int64_t* f = (s ? x.spatial : x.temporal).data() + i * nd_;
      const int* order = (s ? x.spatial_order : x.temporal_order).data() + i * nd_;
      for (int pos = 0; pos < nd_; ++pos)
        if (f[order[pos]] > 1) ws.loops.push_back({order[pos], f[order[pos]], i, s == 1});
    }
  }
  ws.first_loop[n_] = static_cast<int>(ws.loops.size());
  ws.ext.assign(static_cast<size_t>(n_ + 1) * nd_, 1);
  ws.above.assign(ws.ext.size(), 1);
  for (int i = n_ - 1; i >= 0; --i)
    for (int k = 0; k < nd_; ++k)
      ws.ext[i * nd_ + k] =
          ws.ext[(i + 1) * nd_ + k] * x.temporal[i * nd_ + k] * x.spatial[i * nd_ + k];
  for (int i = 0; i < n_; ++i)
    for (int k = 0; k < nd_; ++k)
      ws.above[(i + 1) * nd_ + k] = ws.above[i * nd_ + k] * x.temporal[i * nd_ + k];
}

// Factors multiply to the bounds, orders are permutations, the outermost level keeps every
// data space, spatial factors fit the fan-outs (builds the loops on the way).
LoopNestStatus LoopNestEvaluator::check_form(const LoopNestPoint& x, LoopNestWorkspace& ws) const {
  if (x.levels != n_ || x.dims != nd_) return LoopNestStatus::kInvalidMapping;
  for (int k = 0; k < nd_; ++k) {
    // The product of the factors, -1 once it passes the bound (checked without overflow and
    // without a division: this runs for every point a search tries), 0 for a factor below 1.
    int64_t prod = 1;
    for (int i = 0; i < n_ && prod > 0; ++i)
      for (const int64_t f : {x.temporal[i * nd_ + k], x.spatial[i * nd_ + k]}) {
        int64_t next = 0;
        if (f < 1)
          prod = 0;
        else
          prod = __builtin_mul_overflow(prod, f, &next) || next > bounds_[k] ? -1 : next;
        if (prod <= 0) break;
      }
    if (prod != bounds_[k]) {
      ws.fault_dim = k;
      ws.fault_value = prod;
      return LoopNestStatus::kInvalidMapping;
    }
  }
  for (int i = 0; i < n_; ++i)
    for (int s = 0; s < 2; ++s) {
      const int* order = (s ? x.spatial_order : x.temporal_order).data() + i * nd_;
      uint64_t seen = 0;
      for (int pos = 0; pos < nd_; ++pos)
        if (order[pos] >= 0 && order[pos] < nd_) seen |= uint64_t{1} << order[pos];
      if (seen != (nd_ >= 64 ? ~uint64_t{0} : (uint64_t{1} << nd_) - 1)) {
        ws.fault_level = i;
        return LoopNestStatus::kInvalidMapping;
      }
    }
  for (int k = 0; k < nds_; ++k)
    if (!(x.keep[0] >> k & 1)) {
      ws.fault_ds = k;
      return LoopNestStatus::kInvalidMapping;
    }
  return LoopNestStatus::kOk;
}

LoopNestStatus LoopNestEvaluator::check_fanout(const LoopNestPoint& x,
                                               LoopNestWorkspace& ws) const {
  build_loops(x, ws);
  for (int i = 0; i < n_; ++i) {
    int64_t used = 1;
    for (int g = ws.first_loop[i]; g < ws.first_loop[i + 1]; ++g)
      if (ws.loops[g].spatial) used *= ws.loops[g].bound;
    if (used > fanout_[i]) {
      ws.fault_level = i;
      ws.fault_value = used;
      ws.fault_limit = fanout_[i];
      return LoopNestStatus::kOverFanout;
    }
  }
  return LoopNestStatus::kOk;
}

// Reads, fills and updates of every kept data space at every level (per utilized instance).
void LoopNestEvaluator::count_accesses(const LoopNestPoint& x, LoopNestWorkspace& ws) const {
  const size_t cells = static_cast<size_t>(n_) * nds_;
  ws.reads.assign(cells, 0);
  ws.fills.assign(cells, 0);
  ws.updates.assign(cells, 0);
  int64_t distinct_ext[64];
  for (int ds = 0; ds < nds_; ++ds) {
    const bool rw = p_.data_spaces[ds].read_write;
    int par = 0;  // the outermost level keeps every data space (check)
    while (par < n_) {
      int child = par + 1;
      while (child < n_ && !(x.keep[child] >> ds & 1)) ++child;
      const int64_t rc = received(ds, child, ws);
      int64_t dc = 0;  // D(c, ext_c): the distinct words the child sees
      if (rw) {
        for (int k = 0; k < nd_; ++k)
          distinct_ext[k] = ws.ext[child * nd_ + k] * ws.above[child * nd_ + k];
        dc = footprint(ds, distinct_ext);
      }
      int64_t copies = 1;  // spatial loops of levels par..child-1 that index ds
      for (int g = ws.first_loop[par]; g < ws.first_loop[child]; ++g)
        if (ws.loops[g].spatial && (relevant_[ds] >> ws.loops[g].dim & 1))
          copies *= ws.loops[g].bound;
      ws.reads[par * nds_ + ds] += (rc - dc) * copies;
      if (rw) ws.updates[par * nds_ + ds] += rc * copies;
      if (child < n_) ws.fills[child * nds_ + ds] += rc - dc;
      par = child;
    }
  }
}

LoopNestSummary LoopNestEvaluator::evaluate(const LoopNestPoint& x, LoopNestWorkspace& ws) const {
  ws.fault_level = ws.fault_dim = ws.fault_ds = -1;
  LoopNestSummary r;
  r.status = usable() ? check_form(x, ws) : LoopNestStatus::kInvalidMapping;
  return r.status == LoopNestStatus::kOk ? evaluate_formed(x, ws, true) : r;
}

LoopNestSummary LoopNestEvaluator::evaluate_well_formed(const LoopNestPoint& x,
                                                        LoopNestWorkspace& ws) const {
  ws.fault_level = ws.fault_dim = ws.fault_ds = -1;
  if (usable()) return evaluate_formed(x, ws, false);
  LoopNestSummary r;
  r.status = LoopNestStatus::kInvalidMapping;
  return r;
}

LoopNestSummary LoopNestEvaluator::evaluate_formed(const LoopNestPoint& x, LoopNestWorkspace& ws,
                                                   bool figures_when_over_capacity) const {
  LoopNestSummary r;
  r.status = check_fanout(x, ws);
  if (r.status != LoopNestStatus::kOk) return r;
  // Capacity: the last level over its capacity is the one reported.
  for (int i = 0; i < n_; ++i) {
    const int64_t cap = h_.storage[i].capacity_words();
    int64_t used = 0;
    for (int ds = 0; ds < nds_; ++ds)
      if (x.keep[i] >> ds & 1) used += footprint(ds, ws.ext.data() + i * nd_);
    if (cap > 0 && used > cap) {
      r.status = LoopNestStatus::kOverCapacity;
      ws.fault_level = i;
      ws.fault_value = used;
      ws.fault_limit = cap;
    }
  }
  if (r.status != LoopNestStatus::kOk && !figures_when_over_capacity) return r;
  count_accesses(x, ws);
  // Cycles: compute (all temporal steps) or the slowest level's bandwidth-limited time.
  int64_t compute = 1;
  for (int k = 0; k < nd_; ++k) compute *= ws.above[n_ * nd_ + k];
  r.cycles = compute;
  ws.level_cycles.assign(n_, 0);
  for (int i = 0; i < n_; ++i) {
    const auto& s = h_.storage[i];
    int64_t rd = 0, wr = 0;
    for (int ds = 0; ds < nds_; ++ds) {
      rd += ws.reads[i * nds_ + ds];
      wr += ws.fills[i * nds_ + ds] + ws.updates[i * nds_ + ds];
    }
    double t = 0;
    if (s.read_bandwidth > 0) t = std::max(t, rd / s.read_bandwidth);
    if (s.write_bandwidth > 0) t = std::max(t, wr / s.write_bandwidth);
    if (s.shared_bandwidth > 0) t = std::max(t, (rd + wr) / s.shared_bandwidth);
    ws.level_cycles[i] = static_cast<int64_t>(std::ceil(t - 1e-9));
    if (ws.level_cycles[i] > compute) ws.level_cycles[i] = throttled_cycles(s, i, compute, ws);
    r.cycles = std::max(r.cycles, ws.level_cycles[i]);
  }
  r.utilization = r.cycles > 0 ? static_cast<double>(macs_) /
                                     (static_cast<double>(r.cycles) * h_.compute.instances)
                               : 0;
  r.energy_pj = energy(x, ws, r.cycles, nullptr);
  return r;
}

// A level whose traffic outlasts the compute (C cycles) takes ceil(C / slowdown) cycles,
// computed as Timeloop 3.0.3 does, in doubles: demand_r = sum over data spaces (problem order)
// of reads / C words/cycle, demand_w likewise of fills + updates, slowdown = min(1, read_bw /
// demand_r, write_bw / demand_w, shared_bw / (demand_r + demand_w)). In exact arithmetic this
// is ceil(words / bw); the doubles' rounding can add one cycle (15,604,736 reads at 16 words/
// cycle over C = 602,112: 975,297 cycles, not 975,296), and Timeloop reports that one.
int64_t LoopNestEvaluator::throttled_cycles(const arch::StorageLevel& s, int i, int64_t compute,
                                            const LoopNestWorkspace& ws) const {
  const double c = static_cast<double>(compute);
  double demand_r = 0, demand_w = 0, slowdown = 1;
  for (int ds = 0; ds < nds_; ++ds) {
    demand_r += static_cast<double>(ws.reads[i * nds_ + ds]) / c;
    demand_w += static_cast<double>(ws.fills[i * nds_ + ds] + ws.updates[i * nds_ + ds]) / c;
  }
  if (s.read_bandwidth > 0 && s.read_bandwidth < demand_r)
    slowdown = std::min(slowdown, s.read_bandwidth / demand_r);
  if (s.write_bandwidth > 0 && s.write_bandwidth < demand_w)
    slowdown = std::min(slowdown, s.write_bandwidth / demand_w);
  if (s.shared_bandwidth > 0 && s.shared_bandwidth < demand_r + demand_w)
    slowdown = std::min(slowdown, s.shared_bandwidth / (demand_r + demand_w));
  return static_cast<int64_t>(std::ceil(c / slowdown));
}

// Energy in pJ: compute, then each level's accesses (one access serves a cluster; the utilized
// instances are taken as spread over every cluster) and leakage. With `out`, also its tables.
double LoopNestEvaluator::energy(const LoopNestPoint& x, const LoopNestWorkspace& ws,
                                 int64_t cycles, LoopNestResult* out) const {
  const double compute = static_cast<double>(macs_) * compute_pj_;
  double total = compute;
  int64_t utilized = 1;  // product of the spatial bounds of the levels above
  for (int i = 0; i < n_; ++i) {
    const auto& s = h_.storage[i];
    const LevelEnergy& e = level_energy_[i];
    const int64_t clusters = std::min(utilized, clusters_max_[i]);
    LoopNestLevel lv;
    double level_pj = 0;
    for (int ds = 0; ds < nds_; ++ds) {
      if (!(x.keep[i] >> ds & 1)) continue;
      const int64_t rd = ws.reads[i * nds_ + ds], fl = ws.fills[i * nds_ + ds],
                    up = ws.updates[i * nds_ + ds];
      const double pj = static_cast<double>(clusters) * (ceil_div(rd, s.block_size) * e.read +
                                                         ceil_div(fl, s.block_size) * e.write +
                                                         ceil_div(up, s.block_size) * e.update);
      level_pj += pj;
      if (out)
        lv.dataspaces.push_back(
            {p_.data_spaces[ds].name, footprint(ds, ws.ext.data() + i * nd_), rd, fl, up, pj});
    }
    const double leak = e.leak * static_cast<double>(cycles) * static_cast<double>(utilized);
    level_pj += leak;
    total += level_pj;
    if (out) {
      lv.name = s.name;
      lv.instances = s.instances;
      lv.utilized_instances = utilized;
      lv.dummy = s.dummy;
      lv.cycles = ws.level_cycles[i];
      lv.leak_energy_pj = leak;
      lv.energy_pj = level_pj;
      out->levels.push_back(std::move(lv));
    }
    for (int g = ws.first_loop[i]; g < ws.first_loop[i + 1]; ++g)
      if (ws.loops[g].spatial) utilized *= ws.loops[g].bound;
  }
  if (out) {
    out->compute_energy_pj = compute;
    out->utilized_compute_instances = utilized;
  }
  return total;
}

// The reason text of a failed status, from what check / evaluate left in the workspace.
std::string LoopNestEvaluator::fault_reason(LoopNestStatus status, const LoopNestPoint& x,
                                            const LoopNestWorkspace& ws) const {
  if (const std::string why = problem_error(); !why.empty()) return why;
  const auto num = [](int64_t v) { return std::to_string(v); };
  if (status == LoopNestStatus::kOverFanout)
    return h_.storage[ws.fault_level].name + ": spatial factors " + num(ws.fault_value) +
           " over a fan-out of " + num(ws.fault_limit);
  if (status == LoopNestStatus::kOverCapacity)
    return h_.storage[ws.fault_level].name + ": tiles need " + num(ws.fault_value) +
           " words, capacity " + num(ws.fault_limit);
  if (x.levels != n_ || x.dims != nd_)
    return "mapping: a point of " + num(x.levels) + " levels x " + num(x.dims) +
           " dimensions, the model has " + num(n_) + " x " + num(nd_);
  if (ws.fault_dim >= 0) {
    const std::string& dim = p_.dims[ws.fault_dim];
    const std::string bound = num(bounds_[ws.fault_dim]);
    if (ws.fault_value < 0)
      return "mapping: the factors of " + dim + " multiply to more than the problem's bound " +
             bound;
    return "mapping: the factors of " + dim + " multiply to " + num(ws.fault_value) +
           ", the problem's bound is " + bound;
  }
  if (ws.fault_ds >= 0)
    return "mapping: the outermost level " + h_.storage[0].name + " bypasses " +
           p_.data_spaces[ws.fault_ds].name;
  return "mapping: a loop order of " + h_.storage[ws.fault_level].name +
         " is not a permutation of the dimensions";
}

LoopNestResult LoopNestEvaluator::evaluate_full(const LoopNestPoint& x) const {
  LoopNestResult r;
  r.compute_name = h_.compute.name;
  r.compute_instances = h_.compute.instances;
  r.macs = macs();
  LoopNestWorkspace ws;
  const LoopNestSummary s = evaluate(x, ws);
  r.status = s.status;
  if (!s.ok()) r.reason = fault_reason(s.status, x, ws);
  if (s.status == LoopNestStatus::kOk || s.status == LoopNestStatus::kOverCapacity) {
    r.cycles = s.cycles;
    r.utilization = s.utilization;
    r.compute_cycles = 1;
    for (int k = 0; k < nd_; ++k) r.compute_cycles *= ws.above[n_ * nd_ + k];
    r.energy_pj = energy(x, ws, s.cycles, &r);
  }
  return r;
}

LoopNestResult evaluate_loopnest(const workload::Einsum& p, const arch::Hierarchy& h,
                                 const mapping::LoopNest& m, const arch::EnergyTable* ert) {
  const LoopNestEvaluator model(p, h, ert);
  LoopNestPoint x;
  std::string why = model.problem_error();
  if (why.empty()) why = model.resolve(m, &x);
  if (why.empty()) return model.evaluate_full(x);
  LoopNestResult r;
  r.compute_name = h.compute.name;
  r.compute_instances = h.compute.instances;
  r.macs = model.macs();
  r.status = LoopNestStatus::kInvalidMapping;
  r.reason = why;
  return r;
}

}  // namespace sparsemap::cost
