// G#'s genetic algorithm, warm start and the black-box optimisers on its encoding (gsharp.h).
//
// Genome (MAGMA's 2 x N array): for gene p (jobs in magma_sort_order), core[p] and prio[p].
// One generation, with P individuals sorted by makespan (lower is better):
//   parents  the best max(2, parent_ratio P) (MAGMA's first generation: all P), drawn in pairs
//            without replacement with weights w_i = max_k(m_k) - m_i + 1, normalised;
//   crossover(rate 0.9, per pair): one row (core or priority, 50/50) and a point q uniform in
//            0..N-1; the children swap the prefix [0, q) if q < N/2, else the suffix [q, N);
//   range crossover(0.1, per pair): fresh parents, one point, both rows swapped;
//   accelerator crossover(0.1, per child): fresh parents; pick a core k; every job that the
//            mother runs on k is copied (core and priority) into the father; jobs the father
//            alone ran on k get a uniform random core;
//   mutation(0.05, per gene): a core gene becomes a uniform core, a priority a uniform number;
//   elitism: the best max(1, 0.05 P) join the children; the best P of both go on.
// G# (ours) differs from MAGMA's code in four ways, each an option: the first generation is
// evaluated, elites keep their fitness (no re-evaluation), crossovers produce both children,
// and kLocalSearchFraction of the budget hill-climbs from the best (Ga::local_search), which
// starts from the better of the GA's best and the 12 heuristics' schedules (12 evaluations).
#include "sparsemap/dse/schedule/gsharp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "sparsemap/dse/schedule/heuristics.h"
#include "sparsemap/error.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::dse::schedule {
namespace {

using Rng = std::mt19937_64;

struct Genome {
  std::vector<int> core;
  std::vector<double> prio;
};

class Ga {
 public:
  Ga(Simulator& sim, const GsharpOptions& o)
      : sim_(sim),
        o_(o),
        rng_(o.seed),
        n_(sim.table().num_jobs),
        m_(sim.table().num_cores),
        perm_(magma_sort_order(sim.table())) {
    scratch_.core.resize(n_);
    scratch_.priority.resize(n_);
    // Per gene, the cumulative weights of its cores: 1 / L (speed) with o.speed_weighted_cores,
    // else equal. On a platform of identical cores every weight is equal and draws stay uniform.
    const JobTable& t = sim.table();
    uniform_ = true;
    if (o.speed_weighted_cores) {
      core_cum_.resize(static_cast<size_t>(n_) * m_);
      for (int p = 0; p < n_; ++p) {
        double acc = 0;
        for (int c = 0; c < m_; ++c) {
          acc += 1.0 / t.latency(perm_[p], c);
          core_cum_[static_cast<size_t>(p) * m_ + c] = acc;
          if (t.latency(perm_[p], c) != t.latency(perm_[p], 0)) uniform_ = false;
        }
      }
    }
  }

  SearchResult run();

 private:
  double u01() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); }
  int rand_core() { return std::uniform_int_distribution<int>(0, m_ - 1)(rng_); }
  // A core for gene p: uniform, or with probability proportional to its speed on the job.
  int rand_core(int p) {
    if (uniform_) return rand_core();
    const double* cum = &core_cum_[static_cast<size_t>(p) * m_];
    const double r = u01() * cum[m_ - 1];
    return static_cast<int>(std::min<ptrdiff_t>(m_ - 1, std::upper_bound(cum, cum + m_, r) - cum));
  }
  int rand_point() { return std::uniform_int_distribution<int>(0, n_ - 1)(rng_); }
  Genome random_genome() {
    Genome g{std::vector<int>(n_), std::vector<double>(n_)};
    for (int p = 0; p < n_; ++p) g.core[p] = rand_core(p);
    for (int p = 0; p < n_; ++p) g.prio[p] = u01();
    return g;
  }
  Genome encode(const Schedule& s) const {
    Genome g{std::vector<int>(n_), std::vector<double>(n_)};
    for (int p = 0; p < n_; ++p) {
      g.core[p] = s.core[perm_[p]];
      g.prio[p] = s.priority[perm_[p]];
    }
    return g;
  }
  const Schedule& decode(const Genome& g) {
    for (int p = 0; p < n_; ++p) {
      scratch_.core[perm_[p]] = g.core[p];
      scratch_.priority[perm_[p]] = g.prio[p];
    }
    return scratch_;
  }
  double evaluate(const Genome& g) {
    ++evals_;
    const double ms = sim_.makespan(decode(g));
    if (ms < best_) {
      best_ = ms;
      best_genome_ = g;
    }
    return ms;
  }
  void mutate(Genome& g, double rate) {
    for (int p = 0; p < n_; ++p)
      if (u01() < rate) g.core[p] = rand_core(p);
    for (int p = 0; p < n_; ++p)
      if (u01() < rate) g.prio[p] = u01();
  }
  std::pair<int, int> draw_parents();
  std::vector<Genome> breed(size_t count);
  std::vector<Genome> initial_population();
  // The deterministic list heuristics and the Herald-, PREMA- and AI-MT-like schedules.
  std::vector<Genome> heuristic_genomes() {
    std::vector<Genome> out;
    std::mt19937_64 hrng(o_.seed);
    const JobTable& t = sim_.table();
    for (JobOrder jo : {JobOrder::Fcfs, JobOrder::Sjf, JobOrder::Heft})
      for (CoreSelect cs : {CoreSelect::Greedy, CoreSelect::RoundRobin, CoreSelect::Heft})
        out.push_back(encode(list_heuristic(t, jo, cs, hrng)));
    out.push_back(encode(herald_like(t, sim_.dram_bw())));
    out.push_back(encode(prema_like(t, sim_.dram_bw())));
    out.push_back(encode(aimt_like(t, sim_.dram_bw())));
    return out;
  }
  void local_search(int64_t budget);
  double climb_score(const SimResult& r) const;

  Simulator& sim_;
  const GsharpOptions& o_;
  Rng rng_;
  int n_, m_;
  std::vector<int> perm_;
  Schedule scratch_;
  int64_t evals_ = 0;
  double best_ = std::numeric_limits<double>::infinity();
  Genome best_genome_;
  std::vector<Genome> parents_;
  std::vector<double> cum_weight_;
  bool uniform_ = true;
  std::vector<double> core_cum_;  // [p * m + c]
};

std::pair<int, int> Ga::draw_parents() {
  const size_t k = parents_.size();
  const double total = cum_weight_.back();
  auto pick = [&](double r) {
    return static_cast<int>(std::min<size_t>(
        k - 1, std::upper_bound(cum_weight_.begin(), cum_weight_.end(), r) - cum_weight_.begin()));
  };
  const int a = pick(u01() * total);
  // Second draw without replacement: the weights of the others, renormalised.
  const double wa = cum_weight_[a] - (a > 0 ? cum_weight_[a - 1] : 0.0);
  double r = u01() * (total - wa);
  if (r >= (a > 0 ? cum_weight_[a - 1] : 0.0)) r += wa;
  int b = pick(r);
  if (b == a) b = (a + 1) % static_cast<int>(k);
  return {a, b};
}

std::vector<Genome> Ga::breed(size_t count) {
  std::vector<Genome> kids(count);
  const bool exact = o_.magma_exact || o_.magma_crossover;
  for (size_t i = 0; i < count; i += 2) {  // one-row crossover, per pair
    auto [a, b] = draw_parents();
    Genome dad = parents_[a], mom = parents_[b];
    if (u01() < o_.crossover_rate) {
      const bool row_core = u01() < 0.5;
      const int q = rand_point();
      const int lo = q < n_ / 2 ? 0 : q, hi = q < n_ / 2 ? q : n_;
      for (int p = lo; p < hi; ++p) {
        if (row_core) {
          if (exact)
            dad.core[p] = mom.core[p];
          else
            std::swap(dad.core[p], mom.core[p]);
        } else {
          if (exact)
            dad.prio[p] = mom.prio[p];
          else
            std::swap(dad.prio[p], mom.prio[p]);
        }
      }
    }
    kids[i] = std::move(dad);
    if (i + 1 < count) kids[i + 1] = std::move(mom);
  }
  for (size_t i = 0; i < count; i += 2) {  // range crossover, per pair
    if (!(u01() < o_.range_crossover_rate)) continue;
    auto [a, b] = draw_parents();
    Genome dad = parents_[a], mom = parents_[b];
    const int q = rand_point();
    for (int p = 0; p < q; ++p) {
      std::swap(dad.core[p], mom.core[p]);
      std::swap(dad.prio[p], mom.prio[p]);
    }
    if (exact) mom = dad;  // numpy aliasing: both children are mother-prefix + father-suffix
    kids[i] = std::move(dad);
    if (i + 1 < count) kids[i + 1] = std::move(mom);
  }
  for (size_t i = 0; i < count; ++i) {  // accelerator crossover, per child
    if (!(u01() < o_.accel_crossover_rate)) continue;
    auto [a, b] = draw_parents();
    Genome dad = parents_[a];
    const Genome& mom = parents_[b];
    const int k = rand_core();
    for (int p = 0; p < n_; ++p) {
      if (mom.core[p] == k && dad.core[p] == k) continue;
      if (mom.core[p] == k) {
        dad.core[p] = k;
        dad.prio[p] = mom.prio[p];
      } else if (dad.core[p] == k) {
        dad.core[p] = rand_core(p);
      }
    }
    kids[i] = std::move(dad);
  }
  for (auto& g : kids) mutate(g, o_.mutation_rate);
  return kids;
}

std::vector<Genome> Ga::initial_population() {
  std::vector<Genome> pop;
  const size_t size = static_cast<size_t>(o_.population);
  if (!o_.magma_exact) {
    const bool warm_pop = o_.warm_in_population && !o_.warm_start.empty();
    if (warm_pop)
      for (const auto& s : o_.warm_start) {
        SPARSEMAP_ASSERT(static_cast<int>(s.core.size()) == n_);
        pop.push_back(encode(s));
      }
    if (o_.seed_heuristics || warm_pop)
      for (auto& g : heuristic_genomes()) pop.push_back(std::move(g));
    if (pop.size() > size) pop.resize(size);
    // With the warm schedules in it, warm_copies_share of it are mutated copies of them.
    const size_t warm = warm_pop ? std::min(o_.warm_start.size(), pop.size()) : 0;
    const size_t copies_until =
        pop.size() + static_cast<size_t>(std::floor(o_.warm_copies_share * size));
    for (size_t i = 0; warm > 0 && pop.size() < std::min(size, copies_until); ++i) {
      Genome g = pop[i % warm];
      mutate(g, o_.warm_mutation_rate);
      pop.push_back(std::move(g));
    }
  }
  while (pop.size() < size) pop.push_back(random_genome());
  return pop;
}

// Hill climbing on the best schedule (G#'s finishing phase). Each trial makes one move, 1/4
// each: a job of the core that finishes last goes to the core that finishes first; or to a
// random core; two jobs of one core swap priorities; two jobs swap cores (keeping their
// priorities). A trial that is no worse is kept. Every trial is one simulator call.
double Ga::climb_score(const SimResult& r) const {
  if (o_.climb_work_weight == 0) return r.makespan_cycles;
  double busy = 0;
  for (double b : r.busy_cycles) busy += b;
  return r.makespan_cycles + o_.climb_work_weight * busy / m_;
}

void Ga::local_search(int64_t budget) {
  Genome cur = best_genome_;
  SimResult r = sim_.run(decode(cur), false);
  ++evals_;
  std::vector<int> on_last;
  while (evals_ < budget) {
    const int last = static_cast<int>(
        std::max_element(r.finish_cycles.begin(), r.finish_cycles.end()) - r.finish_cycles.begin());
    const int first = static_cast<int>(
        std::min_element(r.finish_cycles.begin(), r.finish_cycles.end()) - r.finish_cycles.begin());
    on_last.clear();
    for (int p = 0; p < n_; ++p)
      if (cur.core[p] == last) on_last.push_back(p);
    if (on_last.empty()) break;
    Genome g = cur;
    const int p = on_last[std::uniform_int_distribution<size_t>(0, on_last.size() - 1)(rng_)];
    const double u = u01();
    if (u < 0.25) {
      // Off the critical core: to the first-finishing core, or (speed-weighted) to the core
      // where it would end first, argmin_c finish_c + L[j][c] (the same core when all are alike).
      int to = first;
      if (!uniform_) {
        const int j = perm_[p];
        double best_end = std::numeric_limits<double>::infinity();
        for (int c = 0; c < m_; ++c) {
          const double end = r.finish_cycles[c] + sim_.table().latency(j, c);
          if (c != last && end < best_end) {
            best_end = end;
            to = c;
          }
        }
      }
      g.core[p] = to;
    } else if (u < 0.5) {
      g.core[p] = rand_core(p);
    } else if (u < 0.75) {
      // Swap the priorities of two jobs of one core (any core).
      const int q = rand_point();
      int r2 = rand_point();
      for (int tries = 0; tries < 8 && g.core[r2] != g.core[q]; ++tries) r2 = rand_point();
      std::swap(g.prio[q], g.prio[r2]);
    } else {
      // Exchange the cores of two jobs, keeping their priorities.
      const int q = rand_point();
      std::swap(g.core[p], g.core[q]);
    }
    ++evals_;
    SimResult t = sim_.run(decode(g), false);
    if (climb_score(t) <= climb_score(r)) {
      cur = std::move(g);
      r = std::move(t);
      if (r.makespan_cycles < best_) {
        best_ = r.makespan_cycles;
        best_genome_ = cur;
      }
    }
  }
}

SearchResult Ga::run() {
  SearchResult res;
  res.algo = o_.magma_exact ? "magma-ga" : "gsharp";
  const size_t P = static_cast<size_t>(std::max(2, o_.population));
  const size_t elites = std::max<size_t>(1, static_cast<size_t>(P * o_.elite_ratio));
  const size_t later_parents = std::max<size_t>(2, static_cast<size_t>(P * o_.parent_ratio));
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Genome> pop = initial_population();
  std::vector<double> fit(pop.size(), inf);
  bool evaluated = false;
  if (!o_.magma_exact) {
    for (size_t i = 0; i < pop.size() && evals_ < o_.budget; ++i) fit[i] = evaluate(pop[i]);
    evaluated = true;
    res.convergence.push_back({evals_, best_});
  }
  std::vector<size_t> idx;
  const int64_t ga_budget =
      o_.magma_exact
          ? o_.budget
          : o_.budget - static_cast<int64_t>(std::floor(
                            o_.budget * (o_.warm_start.empty() ? o_.local_search_fraction
                                                               : o_.warm_local_search_fraction)));
  while (evals_ < ga_budget) {
    // Sort (stable) and keep the best P.
    idx.resize(pop.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return fit[a] < fit[b]; });
    idx.resize(std::min(idx.size(), P));
    const size_t np = evaluated ? std::min(later_parents, idx.size()) : idx.size();
    parents_.clear();
    cum_weight_.clear();
    double worst = 0;
    for (size_t i = 0; i < np; ++i) worst = std::max(worst, evaluated ? fit[idx[i]] : 0.0);
    double acc = 0;
    for (size_t i = 0; i < np; ++i) {
      parents_.push_back(pop[idx[i]]);
      acc += evaluated ? worst - fit[idx[i]] + 1.0 : 1.0;
      cum_weight_.push_back(acc);
    }
    std::vector<Genome> next;
    std::vector<double> next_fit;
    for (size_t i = 0; i < std::min(elites, idx.size()); ++i) {
      next.push_back(pop[idx[i]]);
      next_fit.push_back(fit[idx[i]]);
    }
    std::vector<Genome> kids = breed(P);
    if (o_.magma_exact)  // MAGMA evaluates its elites again with the children
      for (size_t i = 0; i < next.size(); ++i)
        next_fit[i] = evals_ < ga_budget ? evaluate(next[i]) : inf;
    for (auto& k : kids) {
      next_fit.push_back(evals_ < ga_budget ? evaluate(k) : inf);
      next.push_back(std::move(k));
    }
    pop = std::move(next);
    fit = std::move(next_fit);
    evaluated = true;
    res.convergence.push_back({evals_, best_});
    if (o_.progress) o_.progress(evals_, best_);
  }
  if (evals_ < o_.budget && !best_genome_.core.empty()) {
    // The heuristics' schedules compete with the GA's best as the climb's start.
    if (o_.heuristics_in_finish && !o_.seed_heuristics &&
        (o_.warm_start.empty() || !o_.warm_in_population))
      for (const auto& g : heuristic_genomes())
        if (evals_ < o_.budget - 1) evaluate(g);
    if (!o_.warm_in_population)  // the carried schedules compete as the climb's start too
      for (const auto& s : o_.warm_start)
        if (evals_ < o_.budget - 1) evaluate(encode(s));
    local_search(o_.budget);
    res.convergence.push_back({evals_, best_});
  }
  res.evaluations = evals_;
  res.makespan_cycles = best_;
  if (!best_genome_.core.empty()) res.best = decode(best_genome_);
  return res;
}

}  // namespace

SearchResult run_gsharp(Simulator& sim, const GsharpOptions& o) {
  Ga ga(sim, o);
  return ga.run();
}

Schedule transfer_schedule(const JobTable& from, const Schedule& s, const JobTable& to) {
  const int nf = from.num_jobs, nt = to.num_jobs, mf = from.num_cores, mt = to.num_cores;
  const int mc = std::min(mf, mt);
  // Relative position of each earlier job on its core: rank / count, in [0, 1).
  std::vector<int> order(nf);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return s.core[x] != s.core[y] ? s.core[x] < s.core[y] : s.priority[x] < s.priority[y];
  });
  std::vector<double> rel(nf, 0.0);
  for (size_t i = 0; i < order.size();) {
    size_t e = i;
    while (e < order.size() && s.core[order[e]] == s.core[order[i]]) ++e;
    for (size_t r = i; r < e; ++r)
      rel[order[r]] = static_cast<double>(r - i) / static_cast<double>(e - i);
    i = e;
  }
  Schedule out{std::vector<int>(nt, 0), std::vector<double>(nt, 0.0)};
  for (int k = 0; k < nt; ++k) {
    // The most similar earlier job (repeats allowed; job k itself on a tie): least sum over
    // shared cores of |ln L_to - ln L_from|, 0 for a job of the same shape.
    int best = 0;
    double best_d = std::numeric_limits<double>::infinity();
    for (int j = 0; j < nf; ++j) {
      double d = 0;
      for (int c = 0; c < mc; ++c) d += std::fabs(std::log(to.latency(k, c) / from.latency(j, c)));
      if (d < best_d || (d == best_d && j == k)) {
        best_d = d;
        best = j;
      }
    }
    out.core[k] = s.core[best] % mt;
    out.priority[k] = rel[best];
  }
  return out;
}

Schedule repair_schedule(const JobTable& t, double dram_bw, const Schedule& carried) {
  const int n = t.num_jobs, m = t.num_cores;
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return carried.priority[x] < carried.priority[y]; });
  Schedule out{std::vector<int>(n, 0), std::vector<double>(n, 0.0)};
  std::vector<double> ready(m, 0.0);
  for (int i = 0; i < n; ++i) {
    const int j = order[i];
    int pick = 0;
    double pick_end = std::numeric_limits<double>::infinity();
    for (int c = 0; c < m; ++c) {
      const double slow = dram_bw > 0 ? std::max(1.0, t.bw(j, c) * m / dram_bw) : 1.0;
      const double end = ready[c] + t.latency(j, c) * slow;
      if (end < pick_end) {
        pick_end = end;
        pick = c;
      }
    }
    ready[pick] = pick_end;
    out.core[j] = pick;
    out.priority[j] = static_cast<double>(i) / n;
  }
  return out;
}

SearchResult run_blackbox(Simulator& sim, const std::string& optimizer, int64_t budget,
                          uint64_t seed) {
  const JobTable& t = sim.table();
  const int n = t.num_jobs, m = t.num_cores;
  const auto perm = magma_sort_order(t);
  search::OptimizerOptions oo;
  oo.seed = seed;
  oo.budget = budget;
  auto opt = search::make_optimizer(optimizer, 2 * static_cast<size_t>(n), oo);
  SearchResult res;
  res.algo = optimizer;
  res.makespan_cycles = std::numeric_limits<double>::infinity();
  Schedule s{std::vector<int>(n), std::vector<double>(n)};
  while (res.evaluations < budget) {
    const size_t batch = static_cast<size_t>(std::min<int64_t>(50, budget - res.evaluations));
    auto xs = opt->ask(batch);
    std::vector<double> fit(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      for (int p = 0; p < n; ++p) {
        s.core[perm[p]] = std::min(m - 1, static_cast<int>(xs[i][p] * m));
        s.priority[perm[p]] = xs[i][n + p];
      }
      fit[i] = sim.makespan(s);
      ++res.evaluations;
      if (fit[i] < res.makespan_cycles) {
        res.makespan_cycles = fit[i];
        res.best = s;
      }
    }
    opt->tell(xs, fit);
    res.convergence.push_back({res.evaluations, res.makespan_cycles});
  }
  return res;
}

}  // namespace sparsemap::dse::schedule
