// MAESTRO's case-based cost analysis of one cluster level, recursively over the inner levels.
//
// Each directive i of a level (extent D, tile m, offset o over a level with nc sub-clusters)
// iterates through states, each with a number of occurrences:
//   TemporalMap:  Init (1; unrolled when D <= m; an edge when D < m),
//                 Steady ((D - m) / o, when m < D), Edge (1, when the steps leave a remainder);
//   SpatialMap:   coverage w = m + o (nc - 1); Init (1; an edge when D < w),
//                 Steady (((D - m) / o + 1) / nc - 1), Edge (1, when a partial sweep remains;
//                 "edge-edge" when its last sub-cluster holds a partial tile).
// A case is one state per directive; it occurs prod(occurrences) times. For each case the
// level computes, per tensor, the words that enter (ingress) or leave (egress) over the NoC,
// the MACs over its sub-clusters, and the compute time (the slowest sub-cluster's runtime, or
// at the innermost level the partial sums a PE produces). A case then costs
//   all-Init case:  compute + ceil(ingress / bw)                      (nothing to overlap yet)
//   otherwise:      max(ceil(ingress / bw), compute, ceil(egress / bw))  (double buffering)
// and at level 0 also at least (L2 fill)/(2 offchip_bw) and (L2 drain)/(2 offchip_bw).
// Runtime = sum over cases of occurrences x cost.
//
// Grouping (ours): let ch be the innermost directive not in Init. Every quantity above depends
// on the directives before ch only through whether their state is an edge, so cases are
// grouped into classes (ch, state of ch, edge-ness of each earlier directive); a level with n
// directives and no edges has n + 1 classes instead of 2^n cases.
//
// Edge-aware sizes (ours; MAESTRO's differ only where loops have edges): every level is
// analysed with the extents of the tile it actually receives, a tile larger than its extent
// counts as the extent, an edge sweep counts its partial sub-cluster, and edge steps move and
// compute the partial tile.
#include "level_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sparsemap::cost::detail {
namespace la {

SubResult LevelAnalysis::sub(const int64_t* dims, uint64_t hash) {
  const int lvl = li_ + 1;
  for (int k = 0; k < cache_.n[lvl]; ++k) {
    const CacheEntry& e = cache_.e[lvl][k];
    if (e.hash == hash && std::memcmp(e.dims, dims, sizeof(int64_t) * kNumVars) == 0) return e.r;
  }
  SubResult r = kZeroSub;
  LevelAnalysis inner(p_, lvl, dims, cache_);
  inner.run(false, nullptr, r);
  if (cache_.n[lvl] < kCacheSize) {
    CacheEntry& e = cache_.e[lvl][cache_.n[lvl]++];
    e.hash = hash;
    std::memcpy(e.dims, dims, sizeof(int64_t) * kNumVars);
    e.r = r;
  }
  return r;
}

// The innermost level when no step can be communication-bound (every step's NoC time is at
// most the smallest compute time of a step). Then
//   runtime = sum over cases of occ x compute + the ingress time of the all-Init case,
// and a PE's compute (its partial sums) is a product over directives: the spatial ones'
// factor (which depends on their states jointly) times, for every temporal directive,
// f = ME (edge) or M (otherwise) of its variable (Y'/X' for output rows/columns). The sum over
// cases therefore factorizes:
//   sum_cases occ x compute = scale x [sum over spatial states occ_s S_s] x prod_i sum_k occ_ik
//   f_ik
// (cases with a zero factor compute nothing and are left out of every sum, as in run()).
// Returns false when the condition does not hold; run() then enumerates the classes.
bool LevelAnalysis::run_innermost_fast(SubResult& res) {
  auto big = [&](uint8_t v) {
    return static_cast<double>(std::max(std::max(M_[v], ME_[v]), std::max(U_[v], UE_[v])));
  };
  double ub_in = 0;
  for (int t = 0; t < 2; ++t) {
    double prod = static_cast<double>(nc_);
    for (int k = 0; k < L_.ncoupled[t]; ++k) prod *= big(L_.dirs[L_.coupled[t][k]].var);
    ub_in += prod * p_.words_per_elem[t];
  }
  const TensorVars& out = p_.tensors[kOutput];
  double ub_eg = static_cast<double>(nc_) * p_.words_per_elem[kOutput];
  for (int k = 0; k < out.n; ++k) ub_eg *= big(out_var(out.vars[k]));
  const double noc_max = std::max(ceil_div(ub_in, p_.noc_bw), ceil_div(ub_eg, p_.noc_bw));

  double tsum = 1, tmin = 1;
  bool any = true, init_computes = true;
  for (int i = 0; i < n_; ++i) {
    const Dir& d = L_.dirs[i];
    if (d.spatial) continue;
    const uint8_t a = (out.mask >> d.var & 1u) ? out_var(d.var) : d.var;
    double sum = 0, mn = 0;
    for (int k = 0; k < nstates_[i]; ++k) {
      const int64_t f = states_[i][k].edge() ? ME_[a] : M_[a];
      if (k == 0) init_computes &= f > 0;
      if (f <= 0) continue;
      sum += static_cast<double>(states_[i][k].occ) * static_cast<double>(f);
      mn = mn == 0 ? static_cast<double>(f) : std::min(mn, static_cast<double>(f));
    }
    any &= sum > 0;
    tsum *= sum;
    tmin *= mn;
  }
  if (!any) return false;

  int sp[kMaxDirs], nsp = 0, idx[kMaxDirs] = {};
  for (int i = 0; i < n_; ++i) {
    cs_[i] = &states_[i][0];
    if (L_.dirs[i].spatial) sp[nsp++] = i;
  }
  double ssum = 0, scnt = 0, smin = 0, act_sum = 0, act_max = 0;
  while (true) {
    double occ = 1;
    for (int j = 0; j < nsp; ++j) {
      cs_[sp[j]] = &states_[sp[j]][idx[j]];
      occ *= static_cast<double>(cs_[sp[j]]->occ);
    }
    bool spm, spe;
    int sps;
    sp_info(kOutput, false, spm, spe, sps);
    const bool arg = spm && spe && n_edge_ == 1 && cs_[sps]->spee;
    const double S = pe_egress(true, true, arg, true, true);
    bool at_init = true;
    for (int j2 = 0; j2 < nsp; ++j2) at_init &= idx[j2] == 0;
    if (at_init) init_computes &= S > 0;
    if (S > 0) {
      const double nact = static_cast<double>(cs_[L_.first_spatial]->edge() ? n_edge_ : nc_);
      ssum += occ * S;
      scnt += occ;
      smin = smin == 0 ? S : std::min(smin, S);
      act_sum += occ * nact;
      act_max = std::max(act_max, nact);
    }
    int j = 0;
    while (j < nsp && ++idx[j] == nstates_[sp[j]]) idx[j++] = 0;
    if (j == nsp) break;
  }
  if (scnt == 0 || noc_max > p_.compute_scale * tmin * smin) return false;

  // The all-Init case: its ingress is not overlapped; it sizes L1. When even the largest
  // possible ingress fits one NoC cycle, its ingress takes exactly one cycle (it brings whole
  // tiles, so at least one word) unless the case computes nothing.
  for (int i = 0; i < n_; ++i) cs_[i] = &states_[i][0];
  ch_ = -1;
  double ind0 = 0;
  if (init_computes) {
    if (ub_in > 0 && ub_in <= p_.noc_bw) {
      ind0 = 1;
    } else {
      const double w = ingress(kInput) * p_.words_per_elem[kInput] +
                       ingress(kWeight) * p_.words_per_elem[kWeight];
      ind0 = ceil_div(w, p_.noc_bw);
    }
  }
  for (int t = 0; t < kNumTensors; ++t) res.first_l1[t] = L_.l1_words[t];
  res.runtime = p_.compute_scale * ssum * tsum + ind0;
  res.avg_active = act_sum / scnt;
  res.max_active = act_max;
  return true;
}

void LevelAnalysis::run(bool top, TopResult* out, SubResult& res) {
  const bool last = li_ == p_.nlevels - 1;
  if (!top && last && !p_.exhaustive && run_innermost_fast(res)) return;
  mark_inited();
  RunAcc a;
  a.top = top;
  a.last = last;
  for (auto& d : a.dl) d.min = 1e300;
  walk_classes(a, res);

  res.runtime = a.runtime;
  res.avg_active = a.total > 0 ? a.avg_active / a.total : 0;
  res.max_active = a.max_active;
  if (last)
    for (int t = 0; t < kNumTensors; ++t) res.first_l1[t] = a.l1_words[t];
  if (!top) return;
  report_top(a, res, offchip_requirement(a), out);
}

// A tensor is "initialised" after ch when a later directive coupled to it starts a new (not
// unrolled) loop: its whole tile must then be loaded again.
void LevelAnalysis::mark_inited() {
  for (int t = 0; t < kNumTensors; ++t) {
    bool any = false;
    for (int ch = n_ - 1; ch >= -1; --ch) {
      inited_after_[t][ch + 1] = any;
      if (ch >= 0 && coupled(t, ch) && !states_[ch][0].unroll) any = true;
    }
  }
}

// Every class of cases: ch = -1 (every directive in Init), then each ch >= 0 in Steady or Edge
// with the earlier directives grouped by edge-ness (Init and Steady cost the same there) and the
// later ones in Init. Each class is evaluated once, weighted by how many cases it stands for.
void LevelAnalysis::walk_classes(RunAcc& a, SubResult& res) {
  for (int i = 0; i < n_; ++i) cs_[i] = &states_[i][0];
  ch_ = -1;
  eval_case(1, a, res);
  for (int ch = 0; ch < n_; ++ch) {
    ch_ = ch;
    // Groups of each earlier directive: [0] non-edge (Init + Steady), [1] edge.
    const State* grp[kMaxDirs][2];
    int64_t gocc[kMaxDirs][2];
    int ng[kMaxDirs];
    for (int i = 0; i < ch; ++i) {
      ng[i] = 0;
      int64_t ne_occ = 0;
      const State* ne = nullptr;
      for (int k = 0; k < nstates_[i]; ++k) {
        const State& s = states_[i][k];
        if (s.edge()) {
          grp[i][ng[i]] = &s;
          gocc[i][ng[i]] = s.occ;
          ++ng[i];
        } else {
          if (!ne) ne = &s;
          ne_occ += s.occ;
        }
      }
      if (ne) {  // the non-edge group first
        if (ng[i] == 1) {
          grp[i][1] = grp[i][0];
          gocc[i][1] = gocc[i][0];
        }
        grp[i][0] = ne;
        gocc[i][0] = ne_occ;
        ++ng[i];
      }
    }
    for (int i = ch + 1; i < n_; ++i) cs_[i] = &states_[i][0];
    for (int k = 1; k < nstates_[ch]; ++k) {
      cs_[ch] = &states_[ch][k];
      int idx[kMaxDirs] = {};
      while (true) {
        double occ = static_cast<double>(states_[ch][k].occ);
        for (int i = 0; i < ch; ++i) {
          cs_[i] = grp[i][idx[i]];
          occ *= static_cast<double>(gocc[i][idx[i]]);
        }
        eval_case(occ, a, res);
        int i = 0;
        while (i < ch && ++idx[i] == ng[i]) idx[i++] = 0;
        if (i == ch) break;
      }
    }
  }
}

// Case 0 (all Init) sizes the buffers: L2 holds a step's traffic, L1 a PE's tiles, both
// double-buffered; at level 0 also the off-chip fill and drain time of a step.
void LevelAnalysis::size_buffers(RunAcc& a) const {
  for (int t = 0; t < kNumTensors; ++t) {
    if (t == kOutput) {
      double e0, p0, n0;
      out_products(e0, p0, n0);
      a.l2_words[t] = 2 * e0;
    } else {
      a.l2_words[t] = 2 * ingress(t);
    }
    a.l1_words[t] = 2 * mapped_volume(t);
  }
  if (a.top) {
    const double w = p_.words_per_elem[kInput], ww = p_.words_per_elem[kWeight];
    a.in_off = floor_div(std::ceil(a.l2_words[kInput] * w + a.l2_words[kWeight] * ww - 1e-9),
                         p_.offchip_bw);
    a.out_off = floor_div(std::ceil(a.l2_words[kOutput] * p_.words_per_elem[kOutput] - 1e-9),
                          p_.offchip_bw);
  }
}

// Compute time of the current case below the innermost level: the slowest sub-cluster (the
// edge sub-cluster and the others when the sweep ends in a partial tile), and the active PEs.
void LevelAnalysis::sub_compute(RunAcc& a, SubResult& res, double nact, double& comp,
                                double& act_avg, double& act_max) {
  const State& sp = *cs_[L_.first_spatial];
  int64_t d[kNumVars];
  auto use = [&](const SubResult& r, double spocc, bool first_sub) {
    comp = std::max(comp, r.runtime);
    act_avg += r.avg_active * spocc;
    act_max += r.max_active * spocc;
    if (first_sub && ch_ < 0 && !a.first_chain_done) {
      for (int t = 0; t < kNumTensors; ++t) res.first_l1[t] = r.first_l1[t];
      a.first_chain_done = true;
    }
  };
  if (sp.edge() && sp.spee) {
    uint64_t h = sub_dims(true, d);
    use(sub(d, h), 1, true);
    if (n_edge_ - 1 > 0) {
      h = sub_dims(false, d);
      use(sub(d, h), static_cast<double>(n_edge_ - 1), false);
    }
  } else {
    const uint64_t h = sub_dims(false, d);
    use(sub(d, h), nact, true);
  }
}

// One class of cases, standing for `occ` cases: its step time (NoC in and out, compute, and at
// level 0 the off-chip fill and drain), and at level 0 its accesses, MACs, NoC bandwidth,
// delays and compute (for the off-chip requirement).
void LevelAnalysis::eval_case(double occ, RunAcc& a, SubResult& res) {
  for (int t = 0; t < kNumTensors; ++t) inited_[t] = inited_after_[t][ch_ + 1];
  if (ch_ < 0) size_buffers(a);
  double eg, psz, nps;
  out_products(eg, psz, nps);
  // A step whose tiles hold no complete window (the input rows a stride leaves over at the
  // end) computes and moves nothing.
  if (nps <= 0 || psz <= 0) return;
  double ing[2] = {ingress(kInput), ingress(kWeight)};
  if (a.top) {
    a.counts[kOutput][3] += occ * eg;   // L2 writes
    a.counts[kOutput][1] += occ * psz;  // L1 writes
    a.counts[kOutput][0] += occ * psz;  // L1 reads
    for (int t = 0; t < 2; ++t) {
      a.counts[t][2] += occ * ing[t];   // L2 reads
      a.counts[t][1] = a.counts[t][2];  // L1 writes: what arrived
      a.counts[t][0] += occ * psz;      // L1 reads: one per MAC
    }
  }
  // Compute time: the slowest sub-cluster, or the partial sums of one PE.
  const State& sp = *cs_[L_.first_spatial];
  const double nact = static_cast<double>(sp.edge() ? n_edge_ : nc_);
  double comp = 0, act_avg = 0, act_max = 0;
  if (!a.last)
    sub_compute(a, res, nact, comp, act_avg, act_max);
  else
    comp = nps * p_.compute_scale;
  if (act_avg == 0) act_avg = nact;
  if (act_max == 0) act_max = nact;
  const double ing_words = ing[0] * p_.words_per_elem[kInput] + ing[1] * p_.words_per_elem[kWeight];
  const double eg_words = eg * p_.words_per_elem[kOutput];
  const double ind = ceil_div(ing_words, p_.noc_bw), egd = ceil_div(eg_words, p_.noc_bw);
  double step = ch_ < 0 ? comp + ind : std::max(egd, std::max(comp, ind));
  if (a.top) step = std::max(std::floor(a.in_off / 2), std::max(step, std::floor(a.out_off / 2)));
  a.runtime += occ * step;
  a.total += occ;
  a.avg_active += occ * act_avg;
  a.max_active = std::max(a.max_active, act_max);
  if (!a.top) return;
  a.macs += occ * psz;
  a.comp_sum += occ * comp;
  const double c1 = comp == 0 ? 1 : comp;
  const double bw = std::max(ing_words, eg_words);
  a.noc_peak = std::max(a.noc_peak, std::floor(bw / c1 + 1e-9));
  a.noc_avg += occ * bw / c1;
  const double v[3] = {ind, egd, c1};
  for (int k = 0; k < 3; ++k) {
    a.dl[k].min = std::min(a.dl[k].min, v[k]);
    a.dl[k].max = std::max(a.dl[k].max, v[k]);
    a.dl[k].avg += occ * v[k];
  }
  if (a.nclasses < RunAcc::kMaxClasses) {
    uint32_t edges = 0;
    for (int i = 0; i < ch_; ++i)
      if (cs_[i]->edge()) edges |= 1u << i;
    a.classes[a.nclasses++] =
        RunAcc::ClassComp{ch_, ch_ >= 0 ? cs_[ch_]->pos : static_cast<uint8_t>(kInit), edges, comp};
  }
}

// MAESTRO's off-chip requirement: after each case (in its order) v = max(v, fill / comp,
// drain / comp) / 2; only the last 63 cases can matter. MAESTRO's case c has, for directive
// i with n_i states advancing every f_i = prod_{j > i} n_j cases, the state
// ((c - 1) / f_i + 1) mod n_i (state 0 for c = 0); walked here without divisions.
double LevelAnalysis::offchip_requirement(const RunAcc& a) const {
  int64_t ncases = 1;
  int64_t freq[kMaxDirs], rem[kMaxDirs];
  int cur[kMaxDirs];
  for (int i = n_ - 1; i >= 0; --i) {
    freq[i] = ncases;
    ncases *= nstates_[i];
  }
  const int64_t c0 = std::max<int64_t>(0, ncases - 63);
  for (int i = 0; i < n_; ++i) {
    cur[i] = c0 == 0 ? 0 : static_cast<int>(((c0 - 1) / freq[i] + 1) % nstates_[i]);
    rem[i] = c0 % freq[i];
  }
  const double fill = a.l2_words[kInput] * p_.words_per_elem[kInput] +
                      a.l2_words[kWeight] * p_.words_per_elem[kWeight];
  const double drain = a.l2_words[kOutput] * p_.words_per_elem[kOutput];
  double v = 0;
  for (int64_t c = c0; c < ncases; ++c) {
    int ch = -1;
    for (int i = 0; i < n_; ++i)
      if (states_[i][cur[i]].pos != kInit) ch = i;
    const uint8_t pos = ch >= 0 ? states_[ch][cur[ch]].pos : static_cast<uint8_t>(kInit);
    uint32_t edges = 0;
    for (int i = 0; i < ch; ++i)
      if (states_[i][cur[i]].edge()) edges |= 1u << i;
    double comp = -1;  // cases that compute nothing are skipped (no update), as in MAESTRO
    for (int k = 0; k < a.nclasses; ++k)
      if (a.classes[k].ch == ch && a.classes[k].pos == pos && a.classes[k].edges == edges) {
        comp = a.classes[k].comp == 0 ? 1 : a.classes[k].comp;
        break;
      }
    if (comp > 0) {
      v = std::max(v, std::max(std::floor(drain / comp + 1e-9), std::floor(fill / comp + 1e-9)));
      v = std::floor(v / 2);
    }
    for (int i = 0; i < n_; ++i) {  // advance to case c + 1
      if (rem[i] == 0) cur[i] = cur[i] + 1 == nstates_[i] ? 0 : cur[i] + 1;
      rem[i] = rem[i] + 1 == freq[i] ? 0 : rem[i] + 1;
    }
  }
  return v;
}

// What level 0 reports: runtime, compute, MACs, accesses (inputs and weights fill L2 once with
// the whole tensor; the output drains once), buffer needs, NoC and off-chip bandwidth, delays.
void LevelAnalysis::report_top(const RunAcc& a, const SubResult& res, double offchip_req,
                               TopResult* out) const {
  out->runtime = a.runtime;
  out->compute_cycles = a.comp_sum;
  out->mapped_macs = a.macs;
  out->avg_active = res.avg_active;
  out->max_active = a.max_active;
  const TensorVars* tv = p_.tensors;
  for (int t = 0; t < kNumTensors; ++t) {
    double size = 1;
    for (int k = 0; k < tv[t].n; ++k) {
      const uint8_t var = tv[t].vars[k];
      if (t == kOutput && p_.sliding && (var == vY || var == vX))
        size *= static_cast<double>(dims_[var] - dims_[var == vY ? vR : vS] + 1);
      else
        size *= static_cast<double>(dims_[var]);
    }
    for (int k = 0; k < 4; ++k) out->counts[t][k] = a.counts[t][k];
    out->counts[t][t == kOutput ? 2 : 3] = size;
    out->l2_words[t] = a.l2_words[t];
    out->l1_words[t] = p_.nlevels == 1 ? a.l1_words[t] : res.first_l1[t];
  }
  out->noc_peak = a.noc_peak;
  out->noc_avg = a.total > 0 ? a.noc_avg / a.total : 0;
  out->offchip_req = offchip_req;
  DelayStats dl[3] = {a.dl[0], a.dl[1], a.dl[2]};
  for (int k = 0; k < 3; ++k)
    if (a.total > 0) dl[k].avg /= a.total;
  out->ingress = dl[0];
  out->egress = dl[1];
  out->compute = dl[2];
}

}  // namespace la

void analyze(const Problem& p, TopResult& out) {
  la::Cache cache;
  la::SubResult res = la::kZeroSub;
  la::LevelAnalysis top(p, 0, p.top_dims, cache);
  top.run(true, &out, res);
}

}  // namespace sparsemap::cost::detail
