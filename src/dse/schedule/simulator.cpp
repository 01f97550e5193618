// The event-driven bandwidth-sharing simulator and the lower bound (see simulator.h).
//
// State per core: the job it runs, its remaining no-stall cycles r_c and its demand b_c.
// Each step: B = sum of b_c over running cores; s = bw / B when B > bw, else 1; a core's rate
// is s (1 when b_c = 0); the step lasts dt = min_c r_c / rate_c; then r_c -= dt * rate_c and
// the core that reached 0 first (lowest index on ties) starts its next job. Cores that reach 0
// at the same instant finish in the following zero-length steps, as in MAGMA's post_process,
// whose leftAuc / adjBW is our r_c / s (leftAuc = r_c * b_c, adjBW = b_c * s).
#include "sparsemap/dse/schedule/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "sparsemap/error.h"

namespace sparsemap::dse::schedule {

Simulator::Simulator(const JobTable& table, double dram_bw, const std::string& where)
    : table_(&table), dram_bw_(dram_bw) {
  const size_t n = table.num_jobs, m = table.num_cores;
  order_.resize(n);
  queue_jobs_.resize(n);
  queue_start_.resize(m);
  queue_len_.resize(m);
  head_.resize(m);
  running_.resize(m);
  remaining_.resize(m);
  demand_.resize(m);
  started_.resize(m);
  // Every event lasts at most latency * D / bw cycles, D the largest total demand (the sum over
  // cores of each core's largest job demand), and there are n events: the makespan is at most
  // n * max latency * max(1, D / bw). Past ~1e300 a double overflows (a job time of inf would
  // leave no job to finish first), so such a table is bad input, refused before any search.
  double max_latency = 0, total_demand = 0;
  for (int c = 0; c < table.num_cores; ++c) {
    double core_demand = 0;
    for (int j = 0; j < table.num_jobs; ++j) {
      max_latency = std::max(max_latency, table.latency(j, c));
      core_demand = std::max(core_demand, table.bw(j, c));
    }
    total_demand += core_demand;
  }
  const double worst = double(n) * max_latency * std::max(1.0, total_demand / dram_bw);
  if (!(dram_bw > 0) || !(worst < 1e300)) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "the jobs' DRAM demand (up to %.6g words/cycle at once) against a bandwidth of "
                  "%.6g words/cycle makes the schedule's time overflow",
                  total_demand, dram_bw);
    throw InputError({where, 0, 0}, text);
  }
}

double Simulator::makespan(const Schedule& s) { return simulate(s, nullptr, false); }

SimResult Simulator::run(const Schedule& s, bool detail) {
  SimResult r;
  r.busy_cycles.assign(table_->num_cores, 0.0);
  r.finish_cycles.assign(table_->num_cores, 0.0);
  simulate(s, &r, detail);
  return r;
}

double Simulator::simulate(const Schedule& s, SimResult* out, bool detail) {
  const JobTable& t = *table_;
  const int n = t.num_jobs, m = t.num_cores;
  SPARSEMAP_ASSERT(static_cast<int>(s.core.size()) == n &&
                   static_cast<int>(s.priority.size()) == n);
  ++evaluations_;
  // Per-core queues in priority order (stable on the job index).
  std::iota(order_.begin(), order_.end(), 0);
  std::sort(order_.begin(), order_.end(), [&](int a, int b) {
    return s.priority[a] < s.priority[b] || (s.priority[a] == s.priority[b] && a < b);
  });
  std::fill(queue_len_.begin(), queue_len_.end(), 0);
  for (int j = 0; j < n; ++j) ++queue_len_[s.core[j]];
  int acc = 0;
  for (int c = 0; c < m; ++c) {
    queue_start_[c] = acc;
    acc += queue_len_[c];
    head_[c] = 0;
  }
  for (int j : order_) {
    const int c = s.core[j];
    queue_jobs_[queue_start_[c] + head_[c]++] = j;
  }
  auto load = [&](int c, double now) {
    if (head_[c] < queue_len_[c]) {
      const int j = queue_jobs_[queue_start_[c] + head_[c]++];
      running_[c] = j;
      remaining_[c] = t.latency(j, c);
      demand_[c] = t.bw(j, c);
      started_[c] = now;
    } else {
      running_[c] = -1;
      remaining_[c] = 0;
      demand_[c] = 0;
    }
  };
  for (int c = 0; c < m; ++c) {
    head_[c] = 0;
    load(c, 0.0);
  }
  double now = 0, moved = 0;
  const double bw = dram_bw_;
  while (true) {
    double demand = 0;
    int active = 0;
    for (int c = 0; c < m; ++c)
      if (running_[c] >= 0) {
        demand += demand_[c];
        ++active;
      }
    if (active == 0) break;
    const double share = demand > bw ? bw / demand : 1.0;
    double dt = std::numeric_limits<double>::infinity();
    int first = -1;
    for (int c = 0; c < m; ++c) {
      if (running_[c] < 0) continue;
      const double rate = demand_[c] > 0 ? share : 1.0;
      const double d = remaining_[c] / rate;
      if (d < dt) {
        dt = d;
        first = c;
      }
    }
    SPARSEMAP_ASSERT(first >= 0);  // the constructor keeps every time finite
    if (detail && dt > 0) {
      BwSegment seg{now, now + dt, std::vector<double>(m, 0.0)};
      for (int c = 0; c < m; ++c)
        if (running_[c] >= 0) seg.bw_by_core[c] = demand_[c] * (demand_[c] > 0 ? share : 1.0);
      out->bw_trace.push_back(std::move(seg));
    }
    now += dt;
    for (int c = 0; c < m; ++c) {
      if (running_[c] < 0) continue;
      const double rate = demand_[c] > 0 ? share : 1.0;
      moved += dt * demand_[c] * rate;
      remaining_[c] = c == first ? 0.0 : std::max(0.0, remaining_[c] - dt * rate);
    }
    const int j = running_[first];
    if (out) {
      out->busy_cycles[first] += now - started_[first];
      out->finish_cycles[first] = now;
      if (detail) out->jobs.push_back({j, first, started_[first], now});
    }
    load(first, now);
  }
  if (out) {
    out->makespan_cycles = now;
    out->bw_utilisation = now > 0 && bw > 0 ? moved / (bw * now) : 0;
    double sum_finish = std::accumulate(out->finish_cycles.begin(), out->finish_cycles.end(), 0.0);
    out->core_utilisation = now > 0 ? sum_finish / (m * now) : 0;
    std::stable_sort(
        out->jobs.begin(), out->jobs.end(),
        [](const JobTiming& a, const JobTiming& b) { return a.start_cycles < b.start_cycles; });
  }
  return now;
}

double lower_bound_cycles(const JobTable& t, double dram_bw) {
  double longest = 0, work = 0, area = 0;
  for (int j = 0; j < t.num_jobs; ++j) {
    double lat = std::numeric_limits<double>::infinity(), a = lat;
    for (int c = 0; c < t.num_cores; ++c) {
      lat = std::min(lat, t.latency(j, c));
      a = std::min(a, t.latency(j, c) * t.bw(j, c));
    }
    longest = std::max(longest, lat);
    work += lat;
    area += a;
  }
  return std::max({longest, work / t.num_cores, dram_bw > 0 ? area / dram_bw : 0.0});
}

void validate(const JobTable& t, const std::string& where) {
  if (t.num_jobs < 1 || t.num_cores < 1)
    throw InputError({where, 0, 0}, "expected at least one job and one core");
  const size_t cells = static_cast<size_t>(t.num_jobs) * t.num_cores;
  SPARSEMAP_ASSERT(t.latency_cycles.size() == cells && t.req_bw.size() == cells);
  for (size_t i = 0; i < cells; ++i) {
    if (!(t.latency_cycles[i] > 0) || !std::isfinite(t.latency_cycles[i]) || !(t.req_bw[i] >= 0) ||
        !std::isfinite(t.req_bw[i]))
      throw InputError({where, 0, 0}, "job " + std::to_string(i / t.num_cores) + " on core " +
                                          std::to_string(i % t.num_cores) +
                                          ": expected latency > 0 and bandwidth >= 0");
  }
}

}  // namespace sparsemap::dse::schedule
