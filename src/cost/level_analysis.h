// Internal: the per-level analysis of the cost model (MAESTRO's case-based analysis, with
// classes of cases and edge-aware sizes; see level_analysis.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "model_internal.h"

namespace sparsemap::cost::detail::la {

enum Pos : uint8_t { kInit, kSteady, kEdge };

// Plain (trivially constructible) so that the fixed arrays below cost nothing to create.
struct State {
  int64_t occ;
  uint8_t pos;
  bool unroll;
  bool init_edge;
  bool spee;  // the sweep's last active sub-cluster holds a partial tile
  bool edge() const { return pos == kEdge || init_edge; }
};

struct SubResult {
  double runtime;
  double avg_active;
  double max_active;
  double first_l1[kNumTensors];  // L1 need of the innermost level along the first cases
};
constexpr SubResult kZeroSub = {0, 0, 0, {0, 0, 0}};

constexpr int kCacheSize = 16;
struct CacheEntry {
  uint64_t hash;
  int64_t dims[kNumVars];
  SubResult r;
};
// What setup() derives for one directive from its extent D (the rest of the directive is
// fixed per level), memoised within one evaluation: inner levels see few distinct extents.
struct DirProfile {
  int64_t D;
  int64_t M, ME, U, UE, n_edge;
  State st[3];
  int nst;
};
constexpr int kProfileSlots = 4;
struct Cache {
  CacheEntry e[kMaxLevels][kCacheSize];
  int n[kMaxLevels] = {};
  DirProfile prof[kMaxLevels][kMaxDirs][kProfileSlots];
  int nprof[kMaxLevels][kMaxDirs] = {};
};

// ceil(a / b) for word counts and bandwidths; exact integer arithmetic for integral operands
// (b >= 1: a zero bandwidth gives +inf, which evaluate() reports as infeasible, never a
// division by zero).
inline double ceil_div(double a, double b) {
  if (a <= 0) return 0;
  if (a < 9e15 && b < 9e15 && a == std::floor(a) && b == std::floor(b) && b >= 1) {
    const int64_t x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
    return static_cast<double>((x + y - 1) / y);
  }
  return std::ceil(a / b - 1e-9);
}
inline double floor_div(double a, double b) {
  if (a < 9e15 && b < 9e15 && a == std::floor(a) && b == std::floor(b) && b >= 1) {
    return static_cast<double>(static_cast<int64_t>(a) / static_cast<int64_t>(b));
  }
  return std::floor(a / b + 1e-9);
}

// a / b truncated toward zero (C++'s and MAESTRO's), without a division in the common cases.
inline int64_t tdiv(int64_t a, int64_t b) {
  if (b == 1) return a;
  if (a >= 0 && a < b) return 0;
  return a / b;
}

// What LevelAnalysis::run accumulates over the classes of cases of one level (the level-0
// fields only when `top`).
struct RunAcc {
  bool top = false, last = false;
  double runtime = 0, total = 0, avg_active = 0, max_active = 0;
  double l2_words[kNumTensors] = {}, l1_words[kNumTensors] = {};
  double in_off = 0, out_off = 0;  // level 0: off-chip fill/drain time per step
  double counts[kNumTensors][4] = {};
  double macs = 0, comp_sum = 0, noc_peak = 0, noc_avg = 0;
  DelayStats dl[3];
  // Compute delay per class, for MAESTRO's order-dependent off-chip requirement.
  struct ClassComp {
    int ch;
    uint8_t pos;
    uint32_t edges;
    double comp;
  };
  static constexpr int kMaxClasses = 128;
  ClassComp classes[kMaxClasses];
  int nclasses = 0;
  bool first_chain_done = false;
};

class LevelAnalysis {
 public:
  LevelAnalysis(const Problem& p, int li, const int64_t* dims, Cache& cache)
      : p_(p), li_(li), L_(p.levels[li]), n_(L_.n), nc_(L_.cluster_size), cache_(cache) {
    std::memcpy(dims_, dims, sizeof(dims_));
    setup();
  }

  // Runs every class of cases. `top` also accumulates what only level 0 reports.
  void run(bool top, TopResult* out, SubResult& res);

 private:
  // ---- setup: reuse sizes, spatial edge, iteration states ----
  void setup();
  void profile(int i, int64_t D, DirProfile& pr) const;

  // ---- per-case quantities (MAESTRO's reuse analysis) ----
  // Factors of directive i for the first PE / another PE, with or without a partial tile.
  int64_t ingress_factor(int t, int i, bool first, bool spee) const;
  int64_t psum_factor(int i, bool first, bool spee) const;
  int64_t out_factor(int i, uint8_t a, bool first, bool spee, bool reuse_edge) const;
  double pe_egress(bool psum, bool first, bool spee, bool reuse_edge,
                   bool spatial_only = false) const;
  bool run_innermost_fast(SubResult& res);
  // ---- run()'s steps ----
  void mark_inited();
  void walk_classes(RunAcc& a, SubResult& res);
  void eval_case(double occ, RunAcc& a, SubResult& res);
  void size_buffers(RunAcc& a) const;
  void sub_compute(RunAcc& a, SubResult& res, double nact, double& comp, double& act_avg,
                   double& act_max);
  double offchip_requirement(const RunAcc& a) const;
  void report_top(const RunAcc& a, const SubResult& res, double offchip_req, TopResult* out) const;
  void sp_info(int t, bool all, bool& spm, bool& spe, int& sps) const;
  double ingress(int t) const;
  // Output side of a case: words out (eg), MACs over the sub-clusters (psz), partial sums of
  // the first PE (nps).
  void out_products(double& eg, double& psz, double& nps) const;
  double mapped_volume(int t) const {
    double r = 1;
    const TensorVars& tv = p_.tensors[t];
    for (int k = 0; k < tv.n; ++k) r *= static_cast<double>(M_[tv.vars[k]]);
    return r;
  }
  uint64_t sub_dims(bool ee, int64_t* out) const;  // returns a hash of the extents
  SubResult sub(const int64_t* dims, uint64_t hash);
  bool coupled(int t, int i) const { return p_.tensors[t].mask >> L_.dirs[i].var & 1u; }
  uint8_t out_var(uint8_t v) const {
    if (!p_.sliding) return v;
    if (v == vY) return vYo;
    return v == vX ? static_cast<uint8_t>(vXo) : v;
  }

  const Problem& p_;
  int li_;
  const Level& L_;
  int n_;
  int64_t nc_;
  Cache& cache_;
  int64_t dims_[kNumVars];
  // Tile sizes by variable (only variables with a directive, and Y'/X', are ever read).
  int64_t M_[kNumVars], ME_[kNumVars], U_[kNumVars], UE_[kNumVars];
  int64_t n_edge_ = 1;
  State states_[kMaxDirs][3];
  int nstates_[kMaxDirs];
  bool inited_after_[kNumTensors][kMaxDirs + 1];  // [t][ch + 1], set by run()
  // The case being evaluated.
  const State* cs_[kMaxDirs];
  int ch_ = -1;
  bool inited_[kNumTensors];
};

}  // namespace sparsemap::cost::detail::la
