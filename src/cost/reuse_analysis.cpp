// Per-case quantities of one cluster level (MAESTRO's reuse analysis, our implementation):
// tile sizes and iteration states per directive, and for a case the words each tensor brings
// in, the words and partial sums the output produces, and the extents of a sub-cluster.
#include <algorithm>

#include "level_analysis.h"

namespace sparsemap::cost::detail::la {

// Everything about directive i that depends on its extent D.
void LevelAnalysis::profile(int i, int64_t D, DirProfile& pr) const {
  const Dir& d = L_.dirs[i];
  const int64_t m = d.size, o = d.ofs;
  pr.D = D;
  pr.n_edge = 1;
  const int64_t q = tdiv(D - m, o);  // steps after the first (C++ division, as MAESTRO's)
  // Tile sizes (input-centric):
  //   steady tile m, unique per step min(m, o) (0 when a temporal map covers D at once);
  //   edge tile D - (s + 1) o after s = max(0, (D - m) / o) steady steps (D when m > D),
  //   unique at the edge o - (m - edge).
  const int64_t nst = std::max<int64_t>(0, q);
  const bool has_edge = nst * o + m < D || m > D;
  int64_t em = D - (nst + 1) * o;
  if (em < 0 || m > D) em = D;
  pr.M = m;
  pr.U = (!d.spatial && D <= m) ? 0 : std::min(m, o);
  pr.ME = has_edge ? em : m;
  pr.UE = std::max<int64_t>(o - (m - em), 0);
  // Iteration states, in MAESTRO's order (Init, Steady, Edge).
  State* st = pr.st;
  int k = 0;
  if (!d.spatial) {
    st[k++] = State{1, kInit, D <= m, D < m, false};
    if (m < D && q > 0) st[k++] = State{q, kSteady, false, false, false};
    if (!(D < m) && q * o + m < D) st[k++] = State{1, kEdge, false, false, false};
  } else {
    const int64_t cov = m + o * (nc_ - 1);
    const bool unroll = D <= cov, ie = D < cov;
    st[k++] = State{1, kInit, unroll, ie, ie};
    const int64_t sweeps = tdiv(q + 1, nc_);  // full sweeps of the sub-clusters
    const int64_t sst = sweeps - 1;
    const bool has_sp_edge =
        !unroll && sst * (o * nc_) + cov + o * nc_ > D && sst * (o * nc_) + cov != D;
    if (cov < D && sst > 0) st[k++] = State{sst, kSteady, false, false, false};
    // Sub-clusters active in the last, partial sweep (a partial tile counts).
    const int64_t rem = D - sweeps * o * nc_;
    int64_t act = rem < m ? 1 : tdiv(rem - m, o) + 1;
    const bool spee = (act - 1) * o + m < rem;
    if (!ie && has_sp_edge) st[k++] = State{1, kEdge, false, false, spee};
    // MAESTRO's count of active sub-clusters at a spatial edge, with the partial one.
    const int64_t r = D > cov ? rem : D;
    act = r < m ? 1 : tdiv(r - m, o) + 1;
    if ((act - 1) * o + m < r) ++act;
    pr.n_edge = std::max<int64_t>(1, act);
  }
  pr.nst = k;
}

void LevelAnalysis::setup() {
  for (int i = 0; i < n_; ++i) {
    const Dir& d = L_.dirs[i];
    const int64_t D = dims_[d.var];
    const DirProfile* pr = nullptr;
    int& np = cache_.nprof[li_][i];
    for (int k = 0; k < np; ++k)
      if (cache_.prof[li_][i][k].D == D) pr = &cache_.prof[li_][i][k];
    DirProfile local;
    if (!pr) {
      profile(i, D, local);
      if (np < kProfileSlots) cache_.prof[li_][i][np++] = local;
      pr = &local;
    }
    M_[d.var] = pr->M;
    ME_[d.var] = pr->ME;
    U_[d.var] = pr->U;
    UE_[d.var] = pr->UE;
    for (int k = 0; k < pr->nst; ++k) states_[i][k] = pr->st[k];
    nstates_[i] = pr->nst;
    if (i == L_.first_spatial) n_edge_ = pr->n_edge;
  }
  // Output rows/columns of a sliding window: Y' = Y - R + 1, unique min(o, m).
  if (p_.sliding)
    for (int i = 0; i < n_; ++i) {
      const Dir& d = L_.dirs[i];
      if (d.var != vY && d.var != vX) continue;
      const uint8_t f = d.var == vY ? vR : vS, ov = d.var == vY ? vYo : vXo;
      // A tile with fewer rows than the filter holds no complete window: no outputs.
      M_[ov] = std::max<int64_t>(M_[d.var] - M_[f] + 1, 0);
      U_[ov] = std::min(d.ofs, d.size);
      ME_[ov] = std::max<int64_t>(ME_[d.var] - ME_[f] + 1, 0);
      UE_[ov] = std::min(d.ofs, ME_[ov]);
    }
}

// Factor of directive i in the words of tensor t a PE receives in this case. Only the
// innermost changing directive (ch) brings new data: along it a temporal map brings its unique
// part, a spatial map shares all but the first PE's tile with the neighbours (multicast or
// forwarding); every other coupled dimension contributes its full tile. In the all-Init case
// (ch < 0) a PE receives its whole tile.
inline int64_t LevelAnalysis::ingress_factor(int t, int i, bool first, bool spee) const {
  const Dir& d = L_.dirs[i];
  const uint8_t v = d.var;
  const State& x = *cs_[i];
  if (ch_ < 0) {  // the mapped volume
    if (!d.spatial) return x.edge() ? ME_[v] : M_[v];
    if (!x.edge()) return M_[v];
    if (n_edge_ == 1) return (first || spee) ? ME_[v] : 1;
    return spee ? ME_[v] : M_[v];
  }
  const bool inited = inited_[t];
  if (!d.spatial) {
    if (x.pos == kInit) return x.edge() ? ME_[v] : M_[v];
    if (x.pos == kEdge) return (i == ch_ && !inited) ? std::max<int64_t>(UE_[v], 1) : ME_[v];
    return (i == ch_ && !inited) ? std::max<int64_t>(U_[v], 1) : M_[v];
  }
  if (x.pos == kInit) {
    if (first || i <= ch_) return spee ? ME_[v] : M_[v];
    return spee ? UE_[v] : U_[v];
  }
  if (first) return spee ? ME_[v] : M_[v];
  if (!inited && i == ch_) return spee ? UE_[v] : U_[v];
  return spee ? ME_[v] : M_[v];
}

// Factor of a spatial directive i outside the output's variables (a reduction dimension) in
// a PE's partial sums; 1 when it does not count.
inline int64_t LevelAnalysis::psum_factor(int i, bool first, bool spee) const {
  const uint8_t v = L_.dirs[i].var;
  const State& x = *cs_[i];
  if (x.pos == kInit && x.edge() && spee) return ME_[v];
  if (x.pos != kEdge) return first ? M_[v] : (U_[v] != 0 ? U_[v] : 1);
  if (n_edge_ == 1) return (first || spee) ? ME_[v] : 1;
  if (spee) return UE_[v];
  return first ? M_[v] : (U_[v] != 0 ? U_[v] : 1);
}

// Factor of a spatial directive i over an output variable (a: Y'/X' for Y/X) in a PE's output
// words.
inline int64_t LevelAnalysis::out_factor(int i, uint8_t a, bool first, bool spee,
                                         bool reuse_edge) const {
  const State& x = *cs_[i];
  if (x.pos == kInit && x.edge() && spee)
    return n_edge_ == 1 ? ME_[a] : (reuse_edge ? UE_[a] : ME_[a]);
  if (x.pos != kEdge) return first ? M_[a] : (U_[a] != 0 ? U_[a] : 1);
  if (n_edge_ == 1) return (first || spee) ? ME_[a] : 1;
  if (spee) return UE_[a];
  return first ? M_[a] : (U_[a] != 0 ? U_[a] : 1);
}

// Per-PE output words (psum = false) or partial sums (psum = true: times the reduction tiles);
// spatial_only leaves the temporal directives out.
double LevelAnalysis::pe_egress(bool psum, bool first, bool spee, bool reuse_edge,
                                bool spatial_only) const {
  const TensorVars& tv = p_.tensors[kOutput];
  double r = 1;
  if (psum)
    for (int i = 0; i < n_; ++i) {
      const Dir& d = L_.dirs[i];
      if (tv.mask >> d.var & 1u) continue;
      if (!d.spatial) {
        if (!spatial_only) r *= static_cast<double>(cs_[i]->edge() ? ME_[d.var] : M_[d.var]);
      } else {
        r *= static_cast<double>(psum_factor(i, first, spee));
      }
    }
  for (int k = 0; k < tv.n; ++k) {
    const int i = L_.out_dir[k];
    const uint8_t a = out_var(tv.vars[k]);
    if (!L_.dirs[i].spatial) {
      if (!spatial_only) r *= static_cast<double>(cs_[i]->edge() ? ME_[a] : M_[a]);
    } else {
      r *= static_cast<double>(out_factor(i, a, first, spee, reuse_edge));
    }
  }
  return r;
}

// Spatial facts of a tensor's coupled dimensions (all = every spatial directive of the level):
// spm: some is spatial; spe: some spatial one is at an edge; sps: the last one (its state).
void LevelAnalysis::sp_info(int t, bool all, bool& spm, bool& spe, int& sps) const {
  spm = spe = false;
  sps = -1;
  const int nc = L_.ncoupled_sp[t];
  for (int k = 0; k < nc; ++k) {
    const int i = L_.coupled_sp[t][k];
    spm = true;
    sps = i;
    spe |= cs_[i]->edge();
  }
  if (all)
    for (int k = 0; k < L_.nspatial; ++k) {
      const int i = L_.spatial[k];
      spm = true;
      sps = i;
      spe |= cs_[i]->edge();
    }
}

// Words of tensor t sent over the NoC in this case: the first sub-cluster's ingress plus the
// others' (which only need what their neighbours do not share). At a spatial edge only
// n_edge sub-clusters are active, the last one possibly with a partial tile.
double LevelAnalysis::ingress(int t) const {
  if (ch_ >= 0 && !coupled(t, ch_)) return 0;  // stationary: nothing new
  // The four PE variants (first or not) x (partial tile or not), in one pass.
  double tf = 1, ff = 1, tt = 1, ft = 1;
  for (int k = 0; k < L_.ncoupled[t]; ++k) {
    const int i = L_.coupled[t][k];
    if (!L_.dirs[i].spatial) {
      const double f = static_cast<double>(ingress_factor(t, i, true, false));
      tf *= f;
      ff *= f;
      tt *= f;
      ft *= f;
    } else {
      tf *= static_cast<double>(ingress_factor(t, i, true, false));
      ff *= static_cast<double>(ingress_factor(t, i, false, false));
      tt *= static_cast<double>(ingress_factor(t, i, true, true));
      ft *= static_cast<double>(ingress_factor(t, i, false, true));
    }
  }
  bool spm, spe;
  int sps;
  sp_info(t, false, spm, spe, sps);
  if (!spm) return tf;
  if (!spe) return tf + static_cast<double>(nc_ - 1) * ff;
  const bool hee = cs_[sps]->spee;
  double r = (n_edge_ == 1 && hee) ? tt : tf;
  if (n_edge_ > 1) {
    const int64_t nee = hee ? 1 : 0, nf = std::max<int64_t>(n_edge_ - nee - 1, 0);
    r += static_cast<double>(nf) * ff + static_cast<double>(nee) * ft;
  }
  return r;
}

// eg: output words the sub-clusters send back (first + others, or the edge sweep's);
// nps: partial sums of the first (or the edge) PE, the critical path;
// psz: MACs over all active sub-clusters.
void LevelAnalysis::out_products(double& eg, double& psz, double& nps) const {
  const TensorVars& tv = p_.tensors[kOutput];
  // Reduction part for (first, spee) = (T,F), (T,T), (F,T).
  double p_tf = 1, p_tt = 1, p_ft = 1;
  for (int k = 0; k < L_.nreduction; ++k) {
    const int i = L_.reduction[k];
    const Dir& d = L_.dirs[i];
    if (!d.spatial) {
      const double f = static_cast<double>(cs_[i]->edge() ? ME_[d.var] : M_[d.var]);
      p_tf *= f;
      p_tt *= f;
      p_ft *= f;
    } else {
      p_tf *= static_cast<double>(psum_factor(i, true, false));
      p_tt *= static_cast<double>(psum_factor(i, true, true));
      p_ft *= static_cast<double>(psum_factor(i, false, true));
    }
  }
  // Output part for (first, spee, reuse) = (T,F,r), (T,T,r), (F,F,r), (F,T,r), (F,T,-).
  double o_tf = 1, o_tt = 1, o_ff = 1, o_ft = 1, o_ftn = 1;
  for (int k = 0; k < tv.n; ++k) {
    const int i = L_.out_dir[k];
    const uint8_t a = out_var(tv.vars[k]);
    if (!L_.dirs[i].spatial) {
      const double f = static_cast<double>(cs_[i]->edge() ? ME_[a] : M_[a]);
      o_tf *= f;
      o_tt *= f;
      o_ff *= f;
      o_ft *= f;
      o_ftn *= f;
    } else {
      o_tf *= static_cast<double>(out_factor(i, a, true, false, true));
      o_tt *= static_cast<double>(out_factor(i, a, true, true, true));
      o_ff *= static_cast<double>(out_factor(i, a, false, false, true));
      o_ft *= static_cast<double>(out_factor(i, a, false, true, true));
      o_ftn *= static_cast<double>(out_factor(i, a, false, true, false));
    }
  }
  const double nc = static_cast<double>(nc_);
  bool spm, spe;
  int sps;
  sp_info(kOutput, false, spm, spe, sps);
  const bool h1 = spm && spe && n_edge_ == 1 && cs_[sps]->spee;
  if (!spm) {
    eg = o_tf;
  } else if (!spe) {
    eg = o_tf + (nc - 1) * o_ff;
  } else {
    const int64_t nee = cs_[sps]->spee ? 1 : 0, nf = std::max<int64_t>(n_edge_ - nee - 1, 0);
    eg = h1 ? o_tt : o_tf;
    if (n_edge_ > 1) eg += static_cast<double>(nf) * o_ff + static_cast<double>(nee) * o_ft;
  }
  nps = h1 ? p_tt * o_tt : p_tf * o_tf;
  sp_info(kOutput, true, spm, spe, sps);
  if (!spe) {
    psz = nc * p_tf * o_tf;
  } else {
    const bool hee = cs_[sps]->spee;
    psz = (n_edge_ == 1 && hee) ? p_tt * o_tt : p_tf * o_tf;
    if (n_edge_ > 1) {
      const int64_t nee = hee ? 1 : 0, nf = std::max<int64_t>(n_edge_ - nee - 1, 0);
      psz += static_cast<double>(nf) * p_tf * o_tf + static_cast<double>(nee) * p_ft * o_ftn;
    }
  }
}

// The extents one sub-cluster receives in this case (ee: the sweep's partial sub-cluster).
uint64_t LevelAnalysis::sub_dims(bool ee, int64_t* out) const {
  for (int v = 0; v < kNumVars; ++v) out[v] = 0;
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < n_; ++i) {
    const Dir& d = L_.dirs[i];
    const State& x = *cs_[i];
    const uint8_t v = d.var;
    if (!d.spatial)
      out[v] = x.edge() ? ME_[v] : M_[v];
    else if (x.pos == kSteady || !x.edge())
      out[v] = M_[v];
    else
      out[v] = (n_edge_ == 1 || ee) ? ME_[v] : M_[v];
    h = (h ^ static_cast<uint64_t>(out[v])) * 1099511628211ull;
  }
  return h;
}

}  // namespace sparsemap::cost::detail::la
