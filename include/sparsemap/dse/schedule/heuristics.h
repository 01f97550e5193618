// Baseline schedulers for the multi-tenant problem: MAGMA's job-order x core-selection list
// heuristics, Herald-, PREMA- and AI-MT-like policies, and the lower bound's companions.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sparsemap/dse/schedule/simulator.h"

namespace sparsemap::dse::schedule {

// MAGMA's job orders (SchedulerGA.heu_get_jobid): the priority each job gets.
//   FCFS    file order: job i gets priority i / n.
//   SJF     jobs sorted by magma_sort_order (shortest first), then priority by that order.
//   HEFT    priority = rank of the job's latency averaged over the cores (shortest first).
//   RANDOM  uniform priorities.
enum class JobOrder { Fcfs, Sjf, Heft, Random };
// MAGMA's core selection (heu_get_nextcoreid), jobs taken in the order the job order walks
// them (file order, or sorted order for SJF), with a running per-core sum of latencies T_c
// that ignores bandwidth:
//   GREEDY  argmin_c T_c;  RR  (walk index) mod cores;  MET  argmin_c L[j][c], ties broken
//   at random;  HEFT  argmin_c T_c + L[j][c];  RANDOM  uniform.
// argmin takes the lowest core index on ties.
enum class CoreSelect { Greedy, RoundRobin, Met, Heft, Random };

std::string job_order_name(JobOrder o);      // "FCFS", "SJF", "HEFT", "RANDOM"
std::string core_select_name(CoreSelect c);  // "GREEDY", "RR", "MET", "HEFT", "RANDOM"

// MAGMA's sorting_job: jobs by (L[j][m-1], L[j][m-2], ..., L[j][2]) ascending, stable (with
// fewer than 3 cores the key is empty and the order is the table's). G# numbers its genes in
// this order.
std::vector<int> magma_sort_order(const JobTable& t);

Schedule list_heuristic(const JobTable& t, JobOrder order, CoreSelect select, std::mt19937_64& rng);

// Herald-like (Kwon et al., HPCA 2021, layer assignment on heterogeneous dataflow
// accelerators): tenants interleaved round robin, each tenant's layers in order; each job goes
// to the core with the earliest estimated finish ready_c + L[j][c] * max(1, b[j][c] * cores /
// bw) (its latency when it gets only a fair 1/cores of the bandwidth).
Schedule herald_like(const JobTable& t, double dram_bw);
// PREMA-like (Choi & Rhu, HPCA 2020), without preemption: when a core frees up, every tenant
// with work left holds tokens = time since its last dispatch (equal priorities); the tenants
// with at least 90% of the most tokens are candidates, and the one whose next layer is the
// shortest on this core runs it. Dispatch runs in the bandwidth-sharing simulator.
Schedule prema_like(const JobTable& t, double dram_bw);
// AI-MT-like (Baek et al., ISCA 2020): when a core frees up with the running jobs demanding D,
// it takes the most bandwidth-hungry job that still fits (D + b <= bw), else the least hungry
// one, so memory-heavy and compute-heavy jobs overlap; ties go to the longest job.
Schedule aimt_like(const JobTable& t, double dram_bw);

struct HeuristicResult {
  std::string name;  // "FCFS-GREEDY", ..., "herald", "prema", "ai-mt"
  bool deterministic = true;
  double makespan_cycles = 0;
  Schedule schedule;
};

// All 20 of MAGMA's combinations (JobOrder x CoreSelect, in its order: FCFS, SJF, HEFT, RANDOM
// x GREEDY, RR, MET, HEFT, RANDOM), then herald, prema, ai-mt. Each is one simulator call.
std::vector<HeuristicResult> run_heuristics(Simulator& sim, uint64_t seed);

}  // namespace sparsemap::dse::schedule
