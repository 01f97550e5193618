// The Sparseloop model: formulas in include/sparsemap/cost/sparseloop.h. The dense loop-nest
// model gives the algorithmic counts; this file splits them into actual, gated and skipped
// actions, adds the metadata and prices the result.
#include "sparsemap/cost/sparseloop.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sparseloop_internal.h"

namespace sparsemap::cost {

using sparseloop_detail::Nest;

namespace {

// Per (level, data space) working state, Timeloop's "fine-grained accesses".
struct Work {
  bool kept = false, has_metadata = false, compressed = false, rw = false;
  int64_t tile = 0;
  double density = 1;  // expected nonzeros / tile points
  // Fraction of the utilized instances that hold a nonempty tile when the next outer keeper has
  // metadata (empty tiles are not sent: 1 - P(tile, 0)); 1 otherwise.
  double nonempty = 1;
  // [0] reads, [1] fills, [2] updates
  int64_t algorithmic[3] = {0, 0, 0}, random[3] = {0, 0, 0}, gated[3] = {0, 0, 0},
          skipped[3] = {0, 0, 0};
  sparseloop_detail::FormatOccupancy occ;
  std::string format = "none";
  // [action][rank] {metadata, payload}: random, gated, skipped
  std::vector<RankUnits> fmt_random[3], fmt_gated[3], fmt_skipped[3];
  int opt = 0;  // 0 none, 1 gated, 2 skipped
  double p = 0;
  // Words decompressed on their way in from a compressed parent, and compressed on their way
  // back (read_write): the parent's actual updates.
  int64_t decompressions = 0, compressions = 0;
};

int64_t floor_times(int64_t x, double p) {
  return static_cast<int64_t>(std::floor(static_cast<double>(x) * p));
}

// The local effect of a gating / skipping probability p on a level's own reads and updates
// (and their metadata): Timeloop rounds read_write reads up, the rest down.
void apply_local(Work& w, double p) {
  int64_t* into = w.opt == 1 ? w.gated : w.skipped;
  auto* fmt_into = w.opt == 1 ? w.fmt_gated : w.fmt_skipped;
  const int64_t dr = w.rw ? static_cast<int64_t>(std::ceil(static_cast<double>(w.random[0]) * p))
                          : floor_times(w.random[0], p);
  into[0] += dr;
  w.random[0] -= dr;
  const int64_t du = floor_times(w.random[2], p);
  into[2] += du;
  w.random[2] -= du;
  for (int a : {0, 2})
    for (size_t r = 0; r < w.fmt_random[a].size(); ++r) {
      auto& u = w.fmt_random[a][r];
      const RankUnits d{floor_times(u.metadata, p), floor_times(u.payload, p)};
      u.metadata -= d.metadata;
      u.payload -= d.payload;
      fmt_into[a][r].metadata += d.metadata;
      fmt_into[a][r].payload += d.payload;
    }
}

void scale_down(std::vector<RankUnits>& v, double p) {
  for (auto& u : v) {
    u.metadata -= floor_times(u.metadata, p);
    u.payload -= floor_times(u.payload, p);
  }
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The first ERT entry of `names` for the component, or `fallback`.
double ert_pj(const arch::ComponentEnergy* c, std::initializer_list<const char*> names,
              double fallback = 0) {
  if (!c) return fallback;
  for (const char* n : names)
    if (auto e = c->energy_pj(n)) return *e;
  return fallback;
}

}  // namespace

namespace {

// The names of the sparse spec against the problem and architecture; "" when they fit.
std::string check_names(const workload::Einsum& p, const arch::Hierarchy& h,
                        const arch::SparseOptimizations& sparse) {
  for (const auto& l : sparse.levels) {
    const bool compute = l.level == h.compute.name;
    if (!compute && h.find(l.level) < 0)
      return "sparse_optimizations: no storage level or compute named '" + l.level + "'";
    for (const auto& f : l.formats)
      if (p.data_space_index(f.data_space) < 0)
        return "sparse_optimizations: " + l.level + " formats '" + f.data_space +
               "', not a data space of the problem";
    for (const auto& a : l.actions) {
      if (p.data_space_index(a.target) < 0)
        return "sparse_optimizations: " + l.level + " targets '" + a.target +
               "', not a data space of the problem";
      for (const auto& c : a.condition_on)
        if (p.data_space_index(c) < 0)
          return "sparse_optimizations: " + l.level + " conditions on '" + c +
                 "', not a data space of the problem";
    }
  }
  return "";
}

bool attribute_true(const arch::StorageLevel& s, const char* key) {
  const auto it = s.attributes.find(key);
  return it != s.attributes.end() &&
         (it->second == "true" || it->second == "True" || it->second == "1");
}

// Steps 1-3 of the storage analysis: formats, gating / skipping choices, their propagation.
struct Analysis {
  const Nest& n;
  const arch::Hierarchy& h;
  const arch::EnergyTable* ert;
  std::vector<Work> w;  // [level * nds + ds]
  int64_t computes = 0;
  std::vector<bool> storage_saf;        // [ds]
  std::vector<double> empty_cond_prob;  // [ds]
  std::string error;                    // a tile its format cannot represent

  Work& at(int i, int ds) { return w[i * n.nds + ds]; }

  void formats(const LoopNestResult& dense, const arch::SparseOptimizations& sparse) {
    for (int i = 0; i < n.levels; ++i) {
      const auto* lv = sparse.find(h.storage[i].name);
      for (int ds = 0; ds < n.nds; ++ds) {
        Work& x = at(i, ds);
        x.kept = n.kept(i, ds);
        x.rw = n.p->data_spaces[ds].read_write;
        if (!x.kept) continue;
        const LoopNestDataspace* d = nullptr;
        for (const auto& e : dense.levels[i].dataspaces)
          if (e.name == n.p->data_spaces[ds].name) d = &e;
        if (!d) {
          x.kept = false;
          continue;
        }
        x.tile = d->tile_words;
        x.algorithmic[0] = d->reads;
        x.algorithmic[1] = d->fills;
        x.algorithmic[2] = d->updates;
        const auto* f = lv ? lv->format(n.p->data_spaces[ds].name) : nullptr;
        x.density = n.has_density[ds] ? n.density[ds].density : 1;
        for (int a = 0; a < 3; ++a) x.random[a] = x.algorithmic[a];
        int parent = i - 1;
        while (parent >= 0 && !n.kept(parent, ds)) --parent;
        const bool parent_md = parent >= 0 && at(parent, ds).has_metadata;
        if (parent_md && x.tile > 0) x.nonempty = 1 - n.prob(ds, x.tile, 0);
        if (!f) continue;
        x.has_metadata = true;
        x.compressed = f->compressed();
        std::vector<const arch::DataSpaceFormat*> fv(n.levels, nullptr);
        for (int j = 0; j < n.levels; ++j)
          if (const auto* lj = sparse.find(h.storage[j].name); lj && n.kept(j, ds))
            fv[j] = lj->format(n.p->data_spaces[ds].name);
        x.occ = sparseloop_detail::format_occupancy(n, i, ds, fv, parent_md);
        if (!x.occ.error.empty() && error.empty()) error = x.occ.error;
        x.format.clear();
        for (const auto& rank : f->ranks)  // outermost first, as Timeloop prints them
          x.format += (x.format.empty() ? "" : " ") + lower(arch::rank_format_name(rank.format));
        if (x.tile > 0) x.density = x.occ.expected_nonzeros / static_cast<double>(x.tile);
        const double sparsity = 1 - x.density;
        for (int a = 0; a < 3; ++a) {
          if (a == 2 && !x.rw) continue;
          x.random[a] = x.algorithmic[a] - floor_times(x.algorithmic[a], sparsity);
        }
        for (int a = 0; a < 3; ++a) {
          const double ratio =
              x.tile > 0 ? static_cast<double>(x.algorithmic[a]) / static_cast<double>(x.tile) : 0;
          for (size_t r = 0; r < x.occ.metadata.size(); ++r)
            x.fmt_random[a].push_back({static_cast<int64_t>(std::ceil(x.occ.metadata[r] * ratio)),
                                       static_cast<int64_t>(std::ceil(x.occ.payload[r] * ratio))});
          x.fmt_gated[a].assign(x.occ.metadata.size(), {});
          x.fmt_skipped[a].assign(x.occ.metadata.size(), {});
        }
      }
    }
  }

  // One action_optimization entry (its options a group): the option saving the most read
  // energy wins; a level keeps the stronger of two optimisations of one data space.
  void choose(const arch::SparseOptimizations& sparse) {
    for (arch::ActionKind kind : {arch::ActionKind::kGating, arch::ActionKind::kSkipping}) {
      for (int i = n.levels - 1; i >= 0; --i) {
        const auto* lv = sparse.find(h.storage[i].name);
        if (!lv) continue;
        std::map<int, std::vector<const arch::ActionOptimization*>> groups;
        for (const auto& a : lv->actions)
          if (a.kind == kind) groups[a.group].push_back(&a);
        for (const auto& [g, options] : groups) {
          double best = -1;
          int best_level = -1, best_ds = -1;
          double best_p = 0;
          for (const auto* a : options) {
            const int target = n.p->data_space_index(a->target);
            std::vector<int> leaders;
            for (const auto& c : a->condition_on) leaders.push_back(n.p->data_space_index(c));
            const auto imp = sparseloop_detail::ineffectual_probability(n, i, target, leaders);
            if (imp.level < 0) continue;
            const auto* ce = ert ? ert->find(h.storage[imp.level].name) : nullptr;
            const Work& x = at(imp.level, target);
            const double saving =
                ert_pj(ce, {"random_read", "read"}) /
                static_cast<double>(std::max<int64_t>(1, h.storage[imp.level].block_size)) *
                x.density * static_cast<double>(x.tile) * imp.p;
            if (saving >= best) {
              best = saving;
              best_level = imp.level;
              best_ds = target;
              best_p = imp.p;
            }
          }
          if (best_level < 0) continue;
          Work& x = at(best_level, best_ds);
          if (x.opt == 0 || x.p < best_p) {
            x.opt = kind == arch::ActionKind::kGating ? 1 : 2;
            x.p = best_p;
          }
        }
      }
    }
  }

  // An uncompressed tile under a compressed parent decompresses what it takes in (its actual
  // fills) and, read_write, compresses what goes back (the parent's actual updates).
  void compression_counts() {
    for (int i = 0; i < n.levels; ++i)
      for (int ds = 0; ds < n.nds; ++ds) {
        Work& x = at(i, ds);
        if (!x.kept || x.compressed) continue;
        int parent = i - 1;
        while (parent >= 0 && !n.kept(parent, ds)) --parent;
        if (parent < 0 || !at(parent, ds).compressed) continue;
        if (x.rw) x.compressions += at(parent, ds).random[2];
        x.decompressions += x.random[1];
        // Timeloop refuses a level that must (de)compress without saying it can.
        const auto& s = h.storage[i];
        const std::string name = n.p->data_spaces[ds].name;
        if (error.empty() && !attribute_true(s, "decompression_supported"))
          error = s.name + ": decompression of " + name + " from " + h.storage[parent].name +
                  " needed but not supported (decompression_supported)";
        if (error.empty() && x.rw && !attribute_true(s, "compression_supported"))
          error = s.name + ": compression of " + name + " to " + h.storage[parent].name +
                  " needed but not supported (compression_supported)";
      }
  }

  void propagate() {
    std::vector<bool> finalized(w.size(), false);
    for (int ds = 0; ds < n.nds; ++ds) {
      for (int i = 0; i < n.levels; ++i) {
        Work& x = at(i, ds);
        if (x.opt == 0) continue;
        const double p = x.p;
        int j = i + 1;
        for (; j < n.levels; ++j) {
          Work& y = at(j, ds);
          for (int a = 0; a < 3; ++a) y.random[a] -= floor_times(y.random[a], p);
          if (y.has_metadata)
            for (auto& v : y.fmt_random) scale_down(v, p);
          if (y.opt != 0) {
            // Timeloop carries the metadata updates over as the reads here (kept as it does).
            y.fmt_random[0] = y.fmt_random[2];
            apply_local(y, p < 1 ? std::clamp(1 - (1 - y.p) / (1 - p), 0.0, 1.0) : 0.0);
            finalized[j * n.nds + ds] = true;
            break;
          }
        }
        if (!finalized[i * n.nds + ds]) {
          apply_local(x, p);
          finalized[i * n.nds + ds] = true;
        }
        if (j == n.levels && !n.p->data_spaces[ds].read_write) {
          computes -= floor_times(computes, p);
          storage_saf[ds] = true;
          empty_cond_prob[ds] = std::round(p * 1e6) / 1e6;
        }
      }
    }
  }
};

// Operand states at the compute units: exists and nonzero, exists and zero, does not exist.
struct OperandState {
  double enz = 1, ez = 0, ne = 0;
};

void classify_computes(const Analysis& an, const arch::LevelSparseOptimizations* cl,
                       SparseLoopResult& r) {
  const Nest& n = an.n;
  std::vector<int> ops;
  for (int ds = 0; ds < n.nds; ++ds)
    if (!n.p->data_spaces[ds].read_write) ops.push_back(ds);
  const double total = static_cast<double>(an.computes);
  r.actual_computes = an.computes;
  if (ops.size() != 2) return;
  OperandState st[2];
  double d[2];
  bool md[2];
  for (int k = 0; k < 2; ++k) {
    const int ds = ops[k];
    int inner = -1;
    for (int i = 0; i < n.levels; ++i)
      if (n.kept(i, ds)) inner = i;
    md[k] = inner >= 0 && an.w[inner * n.nds + ds].has_metadata;
    d[k] = std::round((n.has_density[ds] ? n.density[ds].density : 1.0) * 1e6) / 1e6;
  }
  for (int k = 0; k < 2; ++k) {
    const int other = 1 - k;
    // An operand is conditioned on the other's being nonempty when the other is gated or
    // skipped on it at its innermost level.
    const double ratio = an.storage_saf[ops[other]] ? 1 - an.empty_cond_prob[ops[other]] : 1;
    const double dk = ratio > 0 ? d[k] / ratio : d[k];
    st[k].enz = std::clamp(dk, 0.0, 1.0);
    st[k].ez = md[k] ? 0 : std::clamp(1 - dk, 0.0, 1.0);
    st[k].ne = md[k] ? std::clamp(1 - dk, 0.0, 1.0) : 0;
  }
  const bool gate = cl && cl->gate_on_zero_operand;
  const bool skip = cl && cl->skip_on_not_aligned_operands;
  const OperandState& a = st[0];
  const OperandState& b = st[1];
  double random = total * a.enz * b.enz, gated = 0, skipped = 0, none = 0;
  const double zero = total * (a.enz * b.ez + a.ez * b.enz + a.ez * b.ez);
  (gate ? gated : random) += zero;
  const double missing = total * (a.enz * b.ne + a.ne * b.enz + a.ez * b.ne + a.ne * b.ez);
  (skip ? skipped : gate ? gated : random) += missing;
  none = total * a.ne * b.ne;
  r.skipped_computes = static_cast<int64_t>(std::floor(skipped));
  r.gated_computes = static_cast<int64_t>(std::floor(gated));
  r.actual_computes =
      an.computes - r.skipped_computes - r.gated_computes - static_cast<int64_t>(std::floor(none));
}

// Metadata bits of the random + gated accesses of one action (0 reads, 1 fills, 2 updates).
int64_t format_bits(const Work& x, int a, bool with_gated) {
  int64_t bits = 0;
  for (size_t r = 0; r < x.fmt_random[a].size(); ++r) {
    int64_t md = x.fmt_random[a][r].metadata, pl = x.fmt_random[a][r].payload;
    if (with_gated) {
      md += x.fmt_gated[a][r].metadata;
      pl += x.fmt_gated[a][r].payload;
    }
    bits += md * x.occ.metadata_bits[r] + pl * x.occ.payload_bits[r];
  }
  return bits;
}

int64_t units_bits(const Work& x, const std::vector<RankUnits>& v) {
  int64_t bits = 0;
  for (size_t r = 0; r < v.size(); ++r)
    bits += v[r].metadata * x.occ.metadata_bits[r] + v[r].payload * x.occ.payload_bits[r];
  return bits;
}

int64_t ceil_div(int64_t a, int64_t b) { return b <= 1 ? a : (a + b - 1) / b; }

// Timeloop's throttling of a level (see LoopNestEvaluator::throttled_cycles) on the actual and
// gated accesses and the metadata bits in data words.
int64_t level_cycles(const Nest& n, const std::vector<Work>& w, int i, int64_t compute) {
  const auto& s = n.h->storage[i];
  const int64_t word_bits = std::max<int64_t>(1, s.datawidth_bits);
  double rd = 0, wr = 0;
  for (int ds = 0; ds < n.nds; ++ds) {
    const Work& x = w[i * n.nds + ds];
    if (!x.kept) continue;
    rd += static_cast<double>(x.random[0] + x.gated[0] + format_bits(x, 0, true) / word_bits);
    wr += static_cast<double>(x.random[1] + x.gated[1] + x.random[2] + x.gated[2] +
                              (format_bits(x, 1, true) + format_bits(x, 2, true)) / word_bits);
  }
  if (compute <= 0) {
    double c = 0;
    if (s.read_bandwidth > 0) c = std::max(c, rd / s.read_bandwidth);
    if (s.write_bandwidth > 0) c = std::max(c, wr / s.write_bandwidth);
    if (s.shared_bandwidth > 0) c = std::max(c, (rd + wr) / s.shared_bandwidth);
    return static_cast<int64_t>(std::ceil(c));
  }
  const double c = static_cast<double>(compute);
  const double demand_r = rd / c, demand_w = wr / c;
  double slowdown = 1;
  if (s.read_bandwidth > 0 && s.read_bandwidth < demand_r)
    slowdown = std::min(slowdown, s.read_bandwidth / demand_r);
  if (s.write_bandwidth > 0 && s.write_bandwidth < demand_w)
    slowdown = std::min(slowdown, s.write_bandwidth / demand_w);
  if (s.shared_bandwidth > 0 && s.shared_bandwidth < demand_r + demand_w)
    slowdown = std::min(slowdown, s.shared_bandwidth / (demand_r + demand_w));
  return static_cast<int64_t>(std::ceil(c / slowdown));
}

// Energy of one kept data space at one level, all its clusters (pJ).
// Vector accesses of a compressed tile in blocks of several words: Timeloop counts
// E[ceil(nonzeros / block)] blocks per tile instead of nonzeros / block when the tile is small
// for its density (under a threshold in tile blocks per block size and density decile, the
// table below), i.e. multiplies the naive vector accesses by
//   ratio = sum over k >= 1 of ceil(k / block) P(k) / (tile x density / block).
double block_ratio(const Nest& n, const Work& x, int ds, int level, int64_t block) {
  static const std::map<int64_t, std::vector<int>> kThreshold = {
      {2, {251, 125, 84, 63, 51, 42, 36, 32, 28, 1}},
      {4, {375, 188, 125, 94, 75, 63, 54, 47, 42, 1}},
      {8, {438, 219, 146, 110, 88, 73, 63, 55, 49, 1}},
      {16, {469, 235, 157, 118, 94, 79, 67, 59, 52, 1}},
      {32, {485, 243, 162, 122, 97, 81, 70, 61, 52, 1}}};
  if (!x.compressed || x.tile == 0 || block <= 1 || x.density >= 1 || x.density <= 0) return 1;
  const auto it = kThreshold.find(block);
  if (it == kThreshold.end()) return 1;
  const int idx = x.density >= 0.1 ? static_cast<int>(std::floor(x.density / 0.1)) - 1 : 0;
  if (idx < 0 || idx >= static_cast<int>(it->second.size())) return 1;
  if (it->second[idx] <= x.tile / block) return 1;  // Timeloop divides integers here
  double total = 0;
  const std::vector<int64_t> axes = n.axis_extents(ds, n.level_extents(level));
  for (int64_t k = 1; k <= x.tile; ++k)
    total += static_cast<double>(ceil_div(k, block)) *
             (n.actual(ds) ? n.prob(ds, axes, k) : n.prob(ds, x.tile, k));
  return total / (static_cast<double>(x.tile) * x.density / static_cast<double>(block));
}

using Names = std::initializer_list<const char*>;

// ERT names per action kind, [0] reads, [1] fills, [2] updates, in the order looked up.
struct ActionNames {
  Names random[3], gated[3], skipped[3], md_random[3], md_gated[3], md_skipped[3];
  Names compute, gated_compute, skipped_compute;
  bool leakage;                 // leakage x cycles priced
  bool gated_utilization;       // utilisation counts gated computes (v3.0.3's IdealCycles)
  bool zero_bit_words_counted;  // a rank's words of 0 bits are reported (else as 0 accesses)
};

const ActionNames& action_names(SparseloopPricing pricing) {
  static const ActionNames kV4 = {
      {{"random_read", "read"},
       {"random_fill", "random_write", "fill", "write"},
       {"random_update", "random_write", "update", "write"}},
      {{"gated_read"}, {"gated_fill", "gated_write"}, {"gated_update", "gated_write"}},
      {{"skipped_read", "gated_read"},
       {"skipped_fill", "skipped_write", "gated_fill", "gated_write"},
       {"skipped_update", "skipped_write", "gated_update", "gated_write"}},
      {{"random_metadata_read", "metadata_read"},
       {"random_metadata_fill", "random_metadata_write", "metadata_fill", "metadata_write"},
       {"random_metadata_update", "random_metadata_write", "metadata_update", "metadata_write"}},
      {{"gated_metadata_read"},
       {"gated_metadata_fill", "gated_metadata_write"},
       {"gated_metadata_update", "gated_metadata_write"}},
      {{"skipped_metadata_read", "gated_metadata_read"},
       {"skipped_metadata_fill", "skipped_metadata_write", "gated_metadata_fill",
        "gated_metadata_write"},
       {"skipped_metadata_update", "skipped_metadata_write", "gated_metadata_update",
        "gated_metadata_write"}},
      {"random_compute", "compute"},
      {"gated_compute"},
      {"skipped_compute", "gated_compute"},
      true,
      false,
      true};
  // timeloop v3.0.3, include/model/topology.hpp (storage and arithmetic operation mappings).
  static const ActionNames kV303 = {
      {{"random_read", "read"},
       {"random_fill", "write"},
       {"random_update", "random_fill", "write"}},
      {{"gated_read", "idle", "read"},
       {"gated_fill", "gated_write", "idle", "write"},
       {"gated_update", "gated_write", "idle", "write"}},
      {{"skipped_read", "gated_read", "idle", "read"},
       {"skipped_fill", "skipped_write", "gated_write", "idle", "write"},
       {"skipped_update", "skipped_write", "gated_write", "idle", "write"}},
      {{"random_metadata_read", "metadata_read", "metadata_idle", "idle"},
       {"random_metadata_fill", "metadata_write", "metadata_idle", "idle"},
       {"random_metadata_update", "metadata_write", "metadata_idle", "idle"}},
      {{"gated_metadata_read", "metadata_idle", "metadata_read"},
       {"gated_metadata_fill", "gated_metadata_write", "metadata_idle", "metadata_write"},
       {"gated_metadata_update", "gated_metadata_write", "metadata_idle", "metadata_write"}},
      {{"skipped_metadata_read", "metadata_idle", "metadata_read"},
       {"skipped_metadata_fill", "skipped_metadata_write", "metadata_idle", "metadata_write"},
       {"skipped_metadata_update", "skipped_metadata_write", "metadata_idle", "metadata_write"}},
      {"mac_random", "mult_random", "mac", "mult", "compute"},
      {"mac_gated", "mult_gated", "compute_gated", "mac", "mult", "compute"},
      {"mac_skipped", "mult_skipped", "compute_skipped", "mac_gated", "mult_gated", "compute_gated",
       "mac", "mult", "compute"},
      false,
      true,
      false};
  return pricing == SparseloopPricing::kTimeloop303 ? kV303 : kV4;
}

double dataspace_pj(const Nest& n, const Work& x, int ds, int i, const arch::ComponentEnergy* c,
                    int64_t clusters, const ActionNames& names) {
  const auto& s = n.h->storage[i];
  const int64_t block = std::max<int64_t>(1, s.block_size);
  const int64_t md_width = sparseloop_detail::metadata_storage_width(s);
  auto md_accesses = [&](const std::vector<RankUnits>& v) {
    return md_width > 0 ? static_cast<double>(ceil_div(units_bits(x, v), md_width)) : 0.0;
  };
  const double ratio = block_ratio(n, x, ds, i, block);
  double pj = 0;
  for (int a = 0; a < 3; ++a) {
    pj += static_cast<double>(ceil_div(x.random[a], block)) * ratio * ert_pj(c, names.random[a]);
    pj += static_cast<double>(ceil_div(x.gated[a], block)) * ratio * ert_pj(c, names.gated[a]);
    pj += static_cast<double>(ceil_div(x.skipped[a], block)) * ratio * ert_pj(c, names.skipped[a]);
    pj += md_accesses(x.fmt_random[a]) * ert_pj(c, names.md_random[a]);
    pj += md_accesses(x.fmt_gated[a]) * ert_pj(c, names.md_gated[a]);
    pj += md_accesses(x.fmt_skipped[a]) * ert_pj(c, names.md_skipped[a]);
  }
  pj += static_cast<double>(x.decompressions) * ert_pj(c, {"decompression_count"});
  pj += static_cast<double>(x.compressions) * ert_pj(c, {"compression_count"});
  return pj * static_cast<double>(clusters);
}

// Without zero_bit_words_counted (v3.0.3), the metadata and payload accesses of a format whose
// every word has 0 bits are reported as 0 (they move no bits); a format with some nonzero
// word bits reports all its ranks.
void drop_zero_bit_words(const Work& x, std::vector<RankUnits>& v) {
  for (int b : x.occ.metadata_bits)
    if (b != 0) return;
  for (int b : x.occ.payload_bits)
    if (b != 0) return;
  for (auto& u : v) u = {};
}

SparseDataspace report(const Nest& n, const Work& x, int ds, const ActionNames& names) {
  SparseDataspace d;
  d.name = n.p->data_spaces[ds].name;
  d.tile_words = x.tile;
  d.expected_occupancy = x.density * static_cast<double>(x.tile);
  d.format = x.format;
  for (size_t r = 0; r < x.occ.metadata.size(); ++r)
    d.format_occupancy.push_back({static_cast<int64_t>(std::ceil(x.occ.metadata[r])),
                                  static_cast<int64_t>(std::ceil(x.occ.payload[r]))});
  SparseCounts* counts[3] = {&d.reads, &d.fills, &d.updates};
  for (int a = 0; a < 3; ++a)
    *counts[a] = {x.algorithmic[a], x.random[a], x.gated[a], x.skipped[a]};
  d.decompressions = x.decompressions;
  d.compressions = x.compressions;
  d.format_reads = x.fmt_random[0];
  d.gated_format_reads = x.fmt_gated[0];
  d.skipped_format_reads = x.fmt_skipped[0];
  d.format_fills = x.fmt_random[1];
  d.gated_format_fills = x.fmt_gated[1];
  d.skipped_format_fills = x.fmt_skipped[1];
  d.format_updates = x.fmt_random[2];
  d.gated_format_updates = x.fmt_gated[2];
  d.skipped_format_updates = x.fmt_skipped[2];
  if (!names.zero_bit_words_counted)
    for (auto* v : {&d.format_reads, &d.gated_format_reads, &d.skipped_format_reads,
                    &d.format_fills, &d.gated_format_fills, &d.skipped_format_fills,
                    &d.format_updates, &d.gated_format_updates, &d.skipped_format_updates})
      drop_zero_bit_words(x, *v);
  return d;
}

// Cycles and energy of the classified actions, into `r`.
void price(const Nest& n, const std::vector<Work>& w, const arch::EnergyTable* ert,
           const ActionNames& names, SparseLoopResult& r) {
  const auto& h = *n.h;
  const int64_t units = std::max<int64_t>(1, r.dense.utilized_compute_instances);
  r.compute_cycles = ceil_div(r.actual_computes + r.gated_computes, units);
  r.cycles = r.compute_cycles;
  std::vector<int64_t> cyc(n.levels, 0);
  for (int i = 0; i < n.levels; ++i) {
    cyc[i] = level_cycles(n, w, i, r.compute_cycles);
    r.cycles = std::max(r.cycles, cyc[i]);
  }
  const auto* ce = ert ? ert->find(h.compute.name) : nullptr;
  r.compute_energy_pj = static_cast<double>(r.actual_computes) * ert_pj(ce, names.compute) +
                        static_cast<double>(r.gated_computes) * ert_pj(ce, names.gated_compute) +
                        static_cast<double>(r.skipped_computes) * ert_pj(ce, names.skipped_compute);
  r.energy_pj = r.compute_energy_pj;
  for (int i = 0; i < n.levels; ++i) {
    const auto& s = h.storage[i];
    const LoopNestLevel& dl = r.dense.levels[i];
    SparseLevel lv;
    lv.name = s.name;
    lv.instances = s.instances;
    lv.utilized_instances = dl.utilized_instances;
    lv.dummy = s.dummy;
    lv.cycles = cyc[i];
    const auto* c = ert ? ert->find(s.name) : nullptr;
    const int64_t clusters =
        std::min(dl.utilized_instances,
                 std::max<int64_t>(1, s.instances / std::max<int64_t>(1, s.cluster_size)));
    for (int ds = 0; ds < n.nds; ++ds) {
      const Work& x = w[i * n.nds + ds];
      if (!x.kept) continue;
      SparseDataspace d = report(n, x, ds, names);
      // Instances holding empty tiles of a data space whose parent has metadata receive
      // nothing: the energy is over the nonempty ones (Timeloop's average utilized instances).
      d.energy_pj = dataspace_pj(n, x, ds, i, c, clusters, names) * x.nonempty;
      lv.energy_pj += d.energy_pj;
      lv.dataspaces.push_back(std::move(d));
    }
    lv.leak_energy_pj = (names.leakage ? ert_pj(c, {"leak"}) : 0.0) *
                        static_cast<double>(r.cycles) * static_cast<double>(dl.utilized_instances);
    lv.energy_pj += lv.leak_energy_pj;
    r.energy_pj += lv.energy_pj;
    r.levels.push_back(std::move(lv));
  }
  r.utilization = r.cycles > 0
                      ? static_cast<double>(r.actual_computes +
                                            (names.gated_utilization ? r.gated_computes : 0)) /
                            (static_cast<double>(r.cycles) *
                             static_cast<double>(std::max<int64_t>(1, h.compute.instances)))
                      : 0;
}

}  // namespace

SparseLoopResult evaluate_sparseloop(const workload::Einsum& p, const arch::Hierarchy& h,
                                     const mapping::LoopNest& m, const arch::EnergyTable* ert,
                                     const arch::SparseOptimizations& sparse,
                                     const std::map<std::string, workload::DensityModel>& densities,
                                     SparseloopPricing pricing) {
  SparseLoopResult r;
  r.dense = evaluate_loopnest(p, h, m, ert);
  r.compute_name = h.compute.name;
  r.status = r.dense.status;
  r.reason = r.dense.reason;
  if (!r.dense.ok()) return r;
  if (std::string why = check_names(p, h, sparse); !why.empty()) {
    r.status = LoopNestStatus::kInvalidMapping;
    r.reason = why;
    return r;
  }
  const LoopNestEvaluator model(p, h, ert);
  LoopNestPoint x;
  if (std::string why = model.resolve(m, &x); !why.empty()) {
    r.status = LoopNestStatus::kInvalidMapping;
    r.reason = why;
    return r;
  }
  const Nest n = sparseloop_detail::build_nest(p, h, x, densities);
  Analysis an{n,
              h,
              ert,
              std::vector<Work>(static_cast<size_t>(n.levels) * n.nds),
              r.dense.macs,
              std::vector<bool>(n.nds, false),
              std::vector<double>(n.nds, 0),
              ""};
  an.formats(r.dense, sparse);
  if (!an.error.empty()) {
    r.status = LoopNestStatus::kInvalidMapping;
    r.reason = an.error;
    return r;
  }
  an.choose(sparse);
  an.propagate();
  an.compression_counts();
  if (!an.error.empty()) {
    r.status = LoopNestStatus::kInvalidMapping;
    r.reason = an.error;
    return r;
  }
  r.algorithmic_computes = r.dense.macs;
  classify_computes(an, sparse.find(h.compute.name), r);
  price(n, an.w, ert, action_names(pricing), r);
  return r;
}

}  // namespace sparsemap::cost
