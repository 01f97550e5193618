// Baseline schedulers (see heuristics.h for each rule).
#include "sparsemap/dse/schedule/heuristics.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "sparsemap/error.h"

namespace sparsemap::dse::schedule {
namespace {

int argmin(const std::vector<double>& v) {
  return static_cast<int>(std::min_element(v.begin(), v.end()) - v.begin());
}

// Tenants (thread ids) in first-appearance order, each with its jobs by (layer, index).
std::vector<std::vector<int>> tenants_of(const JobTable& t) {
  std::map<int64_t, size_t> slot;
  std::vector<std::vector<int>> out;
  for (int j = 0; j < t.num_jobs; ++j) {
    auto it = slot.find(t.jobs[j].thread);
    if (it == slot.end()) {
      it = slot.emplace(t.jobs[j].thread, out.size()).first;
      out.emplace_back();
    }
    out[it->second].push_back(j);
  }
  for (auto& v : out)
    std::stable_sort(v.begin(), v.end(),
                     [&](int a, int b) { return t.jobs[a].layer < t.jobs[b].layer; });
  return out;
}

// Dispatches jobs at run time: whenever a core is free, pick(core, now, demand_of_others)
// returns a job not yet dispatched (or -1 to leave the core idle for good). Runs the same
// bandwidth-sharing dynamics as Simulator; the returned schedule replays them exactly.
template <typename Pick>
Schedule dispatch(const JobTable& t, double bw, Pick pick) {
  const int n = t.num_jobs, m = t.num_cores;
  Schedule s{std::vector<int>(n, 0), std::vector<double>(n, 0.0)};
  std::vector<int> running(m, -1);
  std::vector<double> remaining(m, 0), demand(m, 0);
  int sequence = 0;
  auto start = [&](int c, double now) {
    double others = 0;
    for (int k = 0; k < m; ++k)
      if (k != c && running[k] >= 0) others += demand[k];
    const int j = pick(c, now, others);
    running[c] = j;
    if (j < 0) return;
    s.core[j] = c;
    s.priority[j] = static_cast<double>(sequence++) / n;
    remaining[c] = t.latency(j, c);
    demand[c] = t.bw(j, c);
  };
  for (int c = 0; c < m; ++c) start(c, 0.0);
  double now = 0;
  while (true) {
    double total = 0;
    int first = -1;
    for (int c = 0; c < m; ++c)
      if (running[c] >= 0) total += demand[c];
    const double share = total > bw ? bw / total : 1.0;
    double dt = std::numeric_limits<double>::infinity();
    for (int c = 0; c < m; ++c) {
      if (running[c] < 0) continue;
      const double d = remaining[c] / (demand[c] > 0 ? share : 1.0);
      if (d < dt) {
        dt = d;
        first = c;
      }
    }
    if (first < 0) break;
    now += dt;
    for (int c = 0; c < m; ++c)
      if (running[c] >= 0)
        remaining[c] =
            c == first ? 0.0 : std::max(0.0, remaining[c] - dt * (demand[c] > 0 ? share : 1.0));
    start(first, now);
  }
  SPARSEMAP_ASSERT(sequence == n);
  return s;
}

}  // namespace

std::string job_order_name(JobOrder o) {
  switch (o) {
    case JobOrder::Fcfs:
      return "FCFS";
    case JobOrder::Sjf:
      return "SJF";
    case JobOrder::Heft:
      return "HEFT";
    default:
      return "RANDOM";
  }
}

std::string core_select_name(CoreSelect c) {
  switch (c) {
    case CoreSelect::Greedy:
      return "GREEDY";
    case CoreSelect::RoundRobin:
      return "RR";
    case CoreSelect::Met:
      return "MET";
    case CoreSelect::Heft:
      return "HEFT";
    default:
      return "RANDOM";
  }
}

std::vector<int> magma_sort_order(const JobTable& t) {
  std::vector<int> idx(t.num_jobs);
  std::iota(idx.begin(), idx.end(), 0);
  const int m = t.num_cores;
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    for (int c = m - 1; c >= 2; --c) {
      if (t.latency(a, c) != t.latency(b, c)) return t.latency(a, c) < t.latency(b, c);
    }
    return false;
  });
  return idx;
}

Schedule list_heuristic(const JobTable& t, JobOrder order, CoreSelect select,
                        std::mt19937_64& rng) {
  const int n = t.num_jobs, m = t.num_cores;
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  // walk[i]: the job handled i-th; prio[i]: the priority it gets.
  std::vector<int> walk(n);
  std::iota(walk.begin(), walk.end(), 0);
  std::vector<double> prio(n);
  for (int i = 0; i < n; ++i) prio[i] = static_cast<double>(i) / n;
  if (order == JobOrder::Sjf) {
    walk = magma_sort_order(t);
  } else if (order == JobOrder::Heft) {
    std::vector<double> avg(n, 0.0);
    for (int j = 0; j < n; ++j) {
      for (int c = 0; c < m; ++c) avg[j] += t.latency(j, c);
      avg[j] /= m;
    }
    std::vector<int> rank(n);
    std::iota(rank.begin(), rank.end(), 0);
    std::stable_sort(rank.begin(), rank.end(), [&](int a, int b) { return avg[a] < avg[b]; });
    std::vector<double> p(n);
    for (int d = 0; d < n; ++d) p[rank[d]] = static_cast<double>(d) / n;
    prio = p;
  } else if (order == JobOrder::Random) {
    for (auto& p : prio) p = u01(rng);
  }
  Schedule s{std::vector<int>(n, 0), std::vector<double>(n, 0.0)};
  std::vector<double> track(m, 0.0), cand(m);
  for (int i = 0; i < n; ++i) {
    const int j = walk[i];
    int c = 0;
    switch (select) {
      case CoreSelect::Greedy:
        c = argmin(track);
        break;
      case CoreSelect::RoundRobin:
        c = i % m;
        break;
      case CoreSelect::Met: {
        double best = std::numeric_limits<double>::infinity();
        for (int k = 0; k < m; ++k) best = std::min(best, t.latency(j, k));
        std::vector<int> ties;
        for (int k = 0; k < m; ++k)
          if (t.latency(j, k) == best) ties.push_back(k);
        c = ties[std::uniform_int_distribution<size_t>(0, ties.size() - 1)(rng)];
        break;
      }
      case CoreSelect::Heft:
        for (int k = 0; k < m; ++k) cand[k] = track[k] + t.latency(j, k);
        c = argmin(cand);
        break;
      default:
        c = std::uniform_int_distribution<int>(0, m - 1)(rng);
    }
    track[c] += t.latency(j, c);
    s.core[j] = c;
    // SJF walks the sorted table and gives priorities in walk order; the others keep the
    // priority of the job's own position.
    s.priority[j] = order == JobOrder::Sjf ? prio[i] : prio[j];
  }
  return s;
}

Schedule herald_like(const JobTable& t, double dram_bw) {
  const int m = t.num_cores;
  auto tenants = tenants_of(t);
  Schedule s{std::vector<int>(t.num_jobs, 0), std::vector<double>(t.num_jobs, 0.0)};
  std::vector<double> ready(m, 0.0), cand(m);
  std::vector<size_t> next(tenants.size(), 0);
  int sequence = 0;
  for (bool any = true; any;) {
    any = false;
    for (size_t k = 0; k < tenants.size(); ++k) {
      if (next[k] >= tenants[k].size()) continue;
      any = true;
      const int j = tenants[k][next[k]++];
      for (int c = 0; c < m; ++c) {
        const double slow = dram_bw > 0 ? std::max(1.0, t.bw(j, c) * m / dram_bw) : 1.0;
        cand[c] = ready[c] + t.latency(j, c) * slow;
      }
      const int c = argmin(cand);
      ready[c] = cand[c];
      s.core[j] = c;
      s.priority[j] = static_cast<double>(sequence++) / t.num_jobs;
    }
  }
  return s;
}

Schedule prema_like(const JobTable& t, double dram_bw) {
  auto tenants = tenants_of(t);
  std::vector<size_t> next(tenants.size(), 0);
  std::vector<double> last(tenants.size(), 0.0);
  return dispatch(t, dram_bw, [&](int c, double now, double) {
    double most = -1;
    for (size_t k = 0; k < tenants.size(); ++k)
      if (next[k] < tenants[k].size()) most = std::max(most, now - last[k]);
    if (most < 0) return -1;
    int pick = -1;
    size_t tenant = 0;
    for (size_t k = 0; k < tenants.size(); ++k) {
      if (next[k] >= tenants[k].size() || now - last[k] < 0.9 * most) continue;
      const int j = tenants[k][next[k]];
      if (pick < 0 || t.latency(j, c) < t.latency(pick, c)) {
        pick = j;
        tenant = k;
      }
    }
    ++next[tenant];
    last[tenant] = now;
    return pick;
  });
}

Schedule aimt_like(const JobTable& t, double dram_bw) {
  std::vector<char> done(t.num_jobs, 0);
  return dispatch(t, dram_bw, [&](int c, double, double others) {
    int fit = -1, lean = -1;
    for (int j = 0; j < t.num_jobs; ++j) {
      if (done[j]) continue;
      const double b = t.bw(j, c), l = t.latency(j, c);
      if (others + b <= dram_bw &&
          (fit < 0 || b > t.bw(fit, c) || (b == t.bw(fit, c) && l > t.latency(fit, c))))
        fit = j;
      if (lean < 0 || b < t.bw(lean, c) || (b == t.bw(lean, c) && l > t.latency(lean, c))) lean = j;
    }
    const int pick = fit >= 0 ? fit : lean;
    if (pick >= 0) done[pick] = 1;
    return pick;
  });
}

std::vector<HeuristicResult> run_heuristics(Simulator& sim, uint64_t seed) {
  std::vector<HeuristicResult> out;
  std::mt19937_64 rng(seed);
  const JobTable& t = sim.table();
  for (JobOrder o : {JobOrder::Fcfs, JobOrder::Sjf, JobOrder::Heft, JobOrder::Random})
    for (CoreSelect c : {CoreSelect::Greedy, CoreSelect::RoundRobin, CoreSelect::Met,
                         CoreSelect::Heft, CoreSelect::Random}) {
      HeuristicResult r;
      r.name = job_order_name(o) + "-" + core_select_name(c);
      r.schedule = list_heuristic(t, o, c, rng);
      bool met_ties = false;
      if (c == CoreSelect::Met)
        for (int j = 0; j < t.num_jobs && !met_ties; ++j)
          for (int k = 1; k < t.num_cores; ++k)
            if (t.latency(j, k) == t.latency(j, 0)) met_ties = true;
      r.deterministic = o != JobOrder::Random && c != CoreSelect::Random && !met_ties;
      r.makespan_cycles = sim.makespan(r.schedule);
      out.push_back(std::move(r));
    }
  const double bw = sim.dram_bw();
  for (auto [name, s] : {std::pair<const char*, Schedule>{"herald", herald_like(t, bw)},
                         {"prema", prema_like(t, bw)},
                         {"ai-mt", aimt_like(t, bw)}}) {
    HeuristicResult r{name, true, sim.makespan(s), s};
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace sparsemap::dse::schedule
