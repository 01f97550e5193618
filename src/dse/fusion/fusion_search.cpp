// Fusion mappers: no fusion, greedy, DP over boundaries, exhaustive, GA search, and repair
// (contracts and formulas in include/sparsemap/dse/fusion/fusion_search.h).
#include "sparsemap/dse/fusion/fusion_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "sparsemap/error.h"
#include "sparsemap/search/driver.h"

namespace sparsemap::dse::fusion {
namespace {

using cost::FusionCost;
using cost::FusionCostModel;
using cost::FusionMapping;
using cost::GroupCost;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// A group's scalar for the separable methods: latency, energy, or a weighted sum.
struct GroupScore {
  Objective o;
  double wl = 1, we = 0;  // dp's EDP scalarisation: wl L / L0 + we E / E0
  bool weighted = false;
  double operator()(const GroupCost& g) const {
    if (weighted) return wl * g.latency_cycles + we * g.energy_nj;
    switch (o) {
      case Objective::Latency:
        return g.latency_cycles;
      case Objective::Energy:
        return g.energy_nj;
      default:
        return g.latency_cycles * g.energy_nj;
    }
  }
};

FusionResult finish(const FusionCostModel& m, std::string method, FusionMapping f, int64_t samples,
                    Clock::time_point t0) {
  FusionResult r;
  r.method = std::move(method);
  r.cost = m.evaluate(f);
  r.mapping = std::move(f);
  r.samples = samples + 1;
  r.wall_s = seconds_since(t0);
  return r;
}

// Lower bound of a group's request: its fused tensors at micro-batch 1 (one sample each).
int64_t fused_bytes_at_one(const FusionCostModel& m, int a, int b) {
  const auto& g = m.graph();
  int64_t s = 0;
  for (int u = a; u < b; ++u)
    for (int v : g.consumers[u])
      if (v <= b) {
        s += g.nodes[u].out_elems * m.arch().word_bytes;
        break;
      }
  return s;
}

// The DP of fusion_search.h for one group score.
FusionMapping dp_once(const FusionCostModel& m, const GroupScore& score, int64_t* samples) {
  const int n = m.size();
  const auto& mbs = m.micro_batches();
  std::vector<double> best(n + 1, kInf);
  std::vector<int> from(n + 1, -1);
  std::vector<int64_t> pick(n + 1, 0);
  best[0] = 0;
  std::vector<int64_t> mb(n, m.graph().batch);
  for (int j = 0; j < n; ++j) {
    for (int i = j; i >= 0; --i) {
      if (i < j && fused_bytes_at_one(m, i, j) > m.buffer_bytes()) break;
      if (!(best[i] < kInf)) continue;
      for (int64_t x : mbs) {
        std::fill(mb.begin() + i, mb.begin() + j + 1, x);
        const GroupCost g = m.group(i, j, mb);
        ++*samples;
        // A single layer that does not fit is still allowed (nothing else could run it).
        if (!g.meets_buffer && i < j) continue;
        const double v = best[i] + score(g) + (g.meets_buffer ? 0.0 : 1e200);
        if (v < best[j + 1]) best[j + 1] = v, from[j + 1] = i, pick[j + 1] = x;
      }
    }
  }
  FusionMapping f = FusionMapping::no_fusion(n, m.graph().batch);
  for (int j = n; j > 0; j = from[j]) {
    const int i = from[j];
    SPARSEMAP_ASSERT(i >= 0);
    for (int k = i; k < j; ++k) f.micro_batch[k] = pick[j];
    for (int k = i; k < j - 1; ++k) f.cut[k] = 0;
    if (i > 0) f.cut[i - 1] = 1;
  }
  return f;
}

// The best uniform micro-batch of group [a, b] and its score (kInf when none meets the buffer,
// unless a == b).
std::pair<double, int64_t> best_group(const FusionCostModel& m, int a, int b,
                                      const GroupScore& score, int64_t* samples) {
  std::vector<int64_t> mb(m.size(), m.graph().batch);
  double best = kInf;
  int64_t pick = m.graph().batch;
  for (int64_t x : m.micro_batches()) {
    std::fill(mb.begin() + a, mb.begin() + b + 1, x);
    const GroupCost g = m.group(a, b, mb);
    ++*samples;
    if (!g.meets_buffer && a < b) continue;
    const double v = score(g) + (g.meets_buffer ? 0.0 : 1e200);
    if (v < best) best = v, pick = x;
  }
  return {best, pick};
}

}  // namespace

Objective parse_objective(const std::string& text) {
  if (text == "latency") return Objective::Latency;
  if (text == "energy") return Objective::Energy;
  if (text == "edp") return Objective::Edp;
  throw InputError({"<flag --objective>", 0, 0},
                   "unknown objective '" + text + "'; expected one of: latency, energy, edp");
}

std::string objective_name(Objective o) {
  return o == Objective::Latency ? "latency" : o == Objective::Energy ? "energy" : "edp";
}

double objective_value(const FusionCost& c, Objective o) {
  switch (o) {
    case Objective::Latency:
      return c.latency_cycles;
    case Objective::Energy:
      return c.energy_nj;
    default:
      return c.latency_cycles * c.energy_nj;
  }
}

double fitness(const FusionCostModel& m, const FusionMapping& f, Objective o) {
  const FusionCost c = m.evaluate(f);
  if (c.meets_buffer) return objective_value(c, o);
  return 1e200 * static_cast<double>(c.peak_buffer_bytes) /
         static_cast<double>(std::max<int64_t>(1, m.buffer_bytes()));
}

FusionResult no_fusion(const FusionCostModel& m, Objective) {
  const auto t0 = Clock::now();
  return finish(m, "none", FusionMapping::no_fusion(m.size(), m.graph().batch), 0, t0);
}

FusionResult greedy(const FusionCostModel& m, Objective o) {
  const auto t0 = Clock::now();
  const GroupScore score{o};
  const int n = m.size();
  FusionMapping f = FusionMapping::no_fusion(n, m.graph().batch);
  int64_t samples = 0;
  int start = 0;
  auto [open, open_mb] = best_group(m, 0, 0, score, &samples);
  auto assign = [&](int a, int b, int64_t x) {
    for (int k = a; k <= b; ++k) f.micro_batch[k] = x;
  };
  assign(0, 0, open_mb);
  for (int j = 1; j < n; ++j) {
    const auto [ext, ext_mb] = best_group(m, start, j, score, &samples);
    const auto [alone, alone_mb] = best_group(m, j, j, score, &samples);
    if (ext < kInf && ext <= open + alone) {
      f.cut[j - 1] = 0;
      assign(start, j, ext_mb);
      open = ext;
    } else {
      f.cut[j - 1] = 1;
      start = j;
      assign(j, j, alone_mb);
      open = alone;
    }
  }
  return finish(m, "greedy", std::move(f), samples, t0);
}

FusionResult dp(const FusionCostModel& m, Objective o) {
  const auto t0 = Clock::now();
  int64_t samples = 0;
  if (o != Objective::Edp) {
    FusionMapping f = dp_once(m, GroupScore{o}, &samples);
    return finish(m, "dp", std::move(f), samples, t0);
  }
  const FusionCost base = m.evaluate(FusionMapping::no_fusion(m.size(), m.graph().batch));
  ++samples;
  FusionMapping best;
  double best_v = kInf;
  for (double w : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    GroupScore s{o, w / std::max(1e-30, base.latency_cycles),
                 (1 - w) / std::max(1e-30, base.energy_nj), true};
    FusionMapping f = dp_once(m, s, &samples);
    const double v = fitness(m, f, o);
    ++samples;
    if (v < best_v) best_v = v, best = std::move(f);
  }
  return finish(m, "dp", std::move(best), samples, t0);
}

FusionResult exhaustive(const FusionCostModel& m, Objective o, int64_t max_points) {
  const auto t0 = Clock::now();
  const int n = m.size();
  const int64_t d = static_cast<int64_t>(m.micro_batches().size());
  // Points: sum over the 2^(n-1) cut sets of d^(groups).
  double points = 0;
  for (int k = 1; k <= n; ++k)
    points += std::pow(d, k) * std::tgamma(n) / (std::tgamma(k) * std::tgamma(n - k + 1));
  if (n > 40 || points > static_cast<double>(max_points))
    throw InputError({"<fusion exhaustive>", 0, 0},
                     "the space has " + std::to_string(static_cast<int64_t>(points)) +
                         " mappings, more than " + std::to_string(max_points) +
                         "; use dp or search");
  FusionMapping f = FusionMapping::no_fusion(n, m.graph().batch), best = f;
  double best_v = kInf;
  int64_t samples = 0;
  for (uint64_t cuts = 0; cuts < (uint64_t{1} << (n - 1)); ++cuts) {
    for (int i = 0; i + 1 < n; ++i) f.cut[i] = (cuts >> i) & 1;
    const auto groups = f.groups();
    std::vector<int64_t> idx(groups.size(), 0);
    while (true) {
      for (size_t g = 0; g < groups.size(); ++g)
        for (int k = groups[g].first; k <= groups[g].second; ++k)
          f.micro_batch[k] = m.micro_batches()[idx[g]];
      const double v = fitness(m, f, o);
      ++samples;
      if (v < best_v) best_v = v, best = f;
      size_t g = 0;
      while (g < idx.size() && ++idx[g] == d) idx[g++] = 0;
      if (g == idx.size()) break;
    }
  }
  FusionResult r = finish(m, "exhaustive", best, samples, t0);
  r.samples = samples;
  return r;
}

size_t genome_dims(const FusionCostModel& m) { return static_cast<size_t>(2 * m.size() - 1); }

FusionMapping decode(const FusionCostModel& m, const search::Genome& g) {
  const int n = m.size();
  SPARSEMAP_ASSERT(g.size() == genome_dims(m));
  const auto& mbs = m.micro_batches();
  const int64_t d = static_cast<int64_t>(mbs.size());
  FusionMapping f = FusionMapping::no_fusion(n, m.graph().batch);
  for (int i = 0; i < n; ++i)
    f.micro_batch[i] =
        mbs[std::clamp<int64_t>(static_cast<int64_t>(std::floor(g[i] * d)), 0, d - 1)];
  for (int i = 0; i + 1 < n; ++i) f.cut[i] = g[n + i] >= 0.5;
  return f;
}

search::Genome encode(const FusionCostModel& m, const FusionMapping& f) {
  const int n = m.size();
  const auto& mbs = m.micro_batches();
  const double d = static_cast<double>(mbs.size());
  search::Genome g(genome_dims(m));
  for (int i = 0; i < n; ++i) {
    const auto it = std::lower_bound(mbs.begin(), mbs.end(), f.micro_batch[i]);
    g[i] = (static_cast<double>(it - mbs.begin()) + 0.5) / d;
  }
  for (int i = 0; i + 1 < n; ++i) g[n + i] = f.cut[i] ? 0.75 : 0.25;
  return g;
}

std::vector<int64_t> exhaustive_levels(const FusionCostModel& m) {
  std::vector<int64_t> l(genome_dims(m), 2);
  for (int i = 0; i < m.size(); ++i) l[i] = static_cast<int64_t>(m.micro_batches().size());
  return l;
}

FusionResult search(const FusionCostModel& m, Objective o, const SearchOptions& s) {
  const auto t0 = Clock::now();
  search::OptimizerOptions oo;
  oo.seed = s.seed;
  oo.budget = s.budget;
  oo.ga.population = s.population;
  int64_t extra = 0;
  if (s.seed_baselines) {
    for (const FusionResult& r : {no_fusion(m, o), greedy(m, o), dp(m, o)}) {
      oo.seeds.push_back(encode(m, r.mapping));
      extra += r.samples;
    }
  }
  const bool ex = s.algo == "exhaustive";
  auto opt = search::make_optimizer(s.algo, genome_dims(m), oo,
                                    ex ? exhaustive_levels(m) : std::vector<int64_t>{});
  search::SearchOptions so;
  so.budget = s.budget;
  if (ex) {
    const int64_t size = search::space_size(exhaustive_levels(m));
    if (size > 0) so.budget = std::min(so.budget, size + static_cast<int64_t>(oo.seeds.size()));
  }
  so.batch = s.algo == "ga" && s.population > 1
                 ? s.population - std::max<size_t>(1, s.population / 10)
                 : 64;
  so.checkpoint_file = s.checkpoint_file;
  so.checkpoint_every = s.checkpoint_every;
  so.progress = s.progress;
  nlohmann::json state;
  const nlohmann::json* resume = nullptr;
  if (s.resume && !s.checkpoint_file.empty() && std::filesystem::exists(s.checkpoint_file)) {
    state = search::read_checkpoint(s.checkpoint_file);
    resume = &state;
    so.resume_file = s.checkpoint_file;  // errors in the state name the file
  }
  const search::Evaluator eval(s.threads, false);
  const search::SearchResult sr = search::run_search(
      *opt, eval, [&](const search::Genome& g) { return fitness(m, decode(m, g), o); }, so, resume);
  FusionResult r = finish(m, "search", decode(m, sr.best), extra + sr.samples, t0);
  r.samples = extra + sr.samples;
  return r;
}

cost::FusionMapping repair(const FusionCostModel& m, FusionMapping f, Objective o,
                           int64_t* samples) {
  const auto& mbs = m.micro_batches();
  auto excess = [&](const FusionCost& c) {
    int64_t e = 0;
    for (const auto& g : c.groups) e += std::max<int64_t>(0, g.requested_bytes - m.buffer_bytes());
    return e;
  };
  FusionCost c = m.evaluate(f);
  ++*samples;
  while (!c.meets_buffer) {
    // The group most over the buffer.
    const GroupCost* worst = nullptr;
    for (const auto& g : c.groups)
      if (!worst || g.requested_bytes > worst->requested_bytes) worst = &g;
    const int a = worst->first, b = worst->last;
    std::vector<FusionMapping> cands;
    for (int k = a; k < b; ++k) {
      FusionMapping x = f;
      x.cut[k] = 1;
      cands.push_back(std::move(x));
    }
    for (int k = a; k <= b; ++k) {
      const auto it = std::lower_bound(mbs.begin(), mbs.end(), f.micro_batch[k]);
      if (it == mbs.begin()) continue;
      FusionMapping x = f;
      x.micro_batch[k] = *(it - 1);
      cands.push_back(std::move(x));
    }
    if (cands.empty()) break;
    FusionMapping best_f;
    FusionCost best_c;
    int64_t best_e = std::numeric_limits<int64_t>::max();
    double best_v = kInf;
    for (auto& x : cands) {
      FusionCost cx = m.evaluate(x);
      ++*samples;
      const int64_t e = excess(cx);
      const double v = objective_value(cx, o);
      if (e < best_e || (e == best_e && v < best_v)) {
        best_e = e, best_v = v, best_f = std::move(x), best_c = std::move(cx);
      }
    }
    f = std::move(best_f);
    c = std::move(best_c);
  }
  return f;
}

}  // namespace sparsemap::dse::fusion
