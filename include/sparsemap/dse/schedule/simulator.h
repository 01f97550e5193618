// Multi-tenant scheduling (G# / MAGMA): the job-analysis table, a schedule, and the
// event-driven simulator of sub-accelerators that share one DRAM bandwidth.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sparsemap::dse::schedule {

// One job: a layer of some tenant's model, independent of every other job (MAGMA's model).
struct JobInfo {
  std::string name;    // "resnet18/conv1" or "t1/l3"
  int64_t thread = 0;  // tenant (model instance) id
  int64_t layer = 0;   // layer id within the tenant
  std::string shape;   // "K=64 C=3 ..." (display only)
  int type = 1;        // MAGMA's T: 0 FFN, 1 CONV, 2 DSCONV, 3 GEMM (display only)
};

// The job-analysis table: for job j on core c, the no-stall latency (cycles, alone on the
// core with all the bandwidth it wants) and the DRAM bandwidth it needs to run at that speed
// (bytes per cycle, or MAGMA's unit for MAGMA's tables: the same unit as the platform's BW).
// Its "area" latency x req_bw is the data the job moves to and from DRAM.
struct JobTable {
  int num_jobs = 0;
  int num_cores = 0;
  std::vector<std::string> core_names;  // num_cores
  std::vector<JobInfo> jobs;            // num_jobs
  std::vector<double> latency_cycles;   // [j * num_cores + c], > 0
  std::vector<double> req_bw;           // [j * num_cores + c], >= 0
  std::string bw_unit = "bytes/cycle";

  double latency(int j, int c) const {
    return latency_cycles[static_cast<size_t>(j) * num_cores + c];
  }
  double bw(int j, int c) const { return req_bw[static_cast<size_t>(j) * num_cores + c]; }
};

// A schedule in G#'s encoding: for each job, the core that runs it and a priority; each core
// runs its jobs back to back in increasing priority (ties: lower job index first).
struct Schedule {
  std::vector<int> core;         // num_jobs, each in [0, num_cores)
  std::vector<double> priority;  // num_jobs
};

// One interval of the simulation during which the set of running jobs does not change.
struct BwSegment {
  double start_cycles = 0;
  double end_cycles = 0;
  std::vector<double> bw_by_core;  // bandwidth each core receives (its job's share), same unit
};

struct JobTiming {
  int job = 0;
  int core = 0;
  double start_cycles = 0;
  double end_cycles = 0;
};

struct SimResult {
  double makespan_cycles = 0;
  std::vector<double> busy_cycles;    // per core: time its jobs run (cores never idle between)
  std::vector<double> finish_cycles;  // per core: end of its last job (0 when it has none)
  std::vector<JobTiming> jobs;        // in start order (only with detail)
  std::vector<BwSegment> bw_trace;    // only with detail
  double bw_utilisation = 0;          // bandwidth-area moved / (BW x makespan), 0..1
  // MAGMA's "util": sum of per-core finish times / (cores x makespan).
  double core_utilisation = 0;
};

// Event-driven simulation with proportional bandwidth sharing (MAGMA's post_process, with the
// same numbers). Every core starts its first job at t = 0 and starts the next one as soon as
// the previous one ends. While the jobs running have demands b_i with sum B > bw (the DRAM
// bandwidth), each gets b_i * bw / B, so every running job progresses at the same rate
// s = bw / B < 1 of its no-stall speed (s = 1 when B <= bw); a job with b_i = 0 needs no
// bandwidth and runs at full speed. A job of no-stall latency L ends when the integral of its
// rate reaches L: it takes L cycles alone and up to L / s when sharing.
// Makespan = the end of the last job. Cost O(jobs x cores) per call; allocation-free for a
// reused Simulator.
class Simulator {
 public:
  // Throws InputError naming `where` (the table's file) when dram_bw <= 0 or when the demands
  // against dram_bw could make a schedule's time overflow a double.
  Simulator(const JobTable& table, double dram_bw, const std::string& where = "<job table>");
  // Makespan only (the GA's fitness). `s` must hold one valid core per job.
  double makespan(const Schedule& s);
  // Full result; `detail` adds per-job timings and the bandwidth trace.
  SimResult run(const Schedule& s, bool detail);
  int64_t evaluations() const { return evaluations_; }
  const JobTable& table() const { return *table_; }
  double dram_bw() const { return dram_bw_; }

 private:
  double simulate(const Schedule& s, SimResult* out, bool detail);
  const JobTable* table_;
  double dram_bw_;
  int64_t evaluations_ = 0;
  std::vector<int> order_, queue_start_, queue_len_, queue_jobs_, head_, running_;
  std::vector<double> remaining_, demand_, started_;
};

// Lower bound on any schedule's makespan (the and MAGMA README's three terms):
//   max( max_j min_c L[j][c],  sum_j min_c L[j][c] / cores,  sum_j min_c L[j][c] b[j][c] / bw ).
double lower_bound_cycles(const JobTable& t, double dram_bw);

// Throws InputError when the table has no job, no core, or a latency <= 0 / bandwidth < 0
// (a NaN included), naming `where`.
void validate(const JobTable& t, const std::string& where);

}  // namespace sparsemap::dse::schedule
