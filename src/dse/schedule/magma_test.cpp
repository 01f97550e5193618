// Our schedulers on MAGMA's own job tables (tests/data/magma, see PROVENANCE.md): its
// deterministic heuristics reproduced, and G# at least as good as its GA at equal evaluations.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "sparsemap/dse/schedule/gsharp.h"
#include "sparsemap/dse/schedule/heuristics.h"
#include "sparsemap/dse/schedule/jobs.h"
#include "sparsemap/io/magma_csv.h"

namespace sparsemap::dse::schedule {
namespace {

std::string data_dir() { return std::string(SPARSEMAP_SOURCE_DIR) + "/tests/data/magma/"; }

// "batch_mix/insts0" -> the job table of that instance.
JobTable magma_table(const std::string& instance) {
  std::string file = instance;
  file[file.find('/')] = '-';
  return job_table_from_magma(io::read_magma_job_table(data_dir() + "jobtable_" + file + ".csv"));
}

std::vector<std::vector<std::string>> read_csv(const std::string& name) {
  std::ifstream f(data_dir() + name);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    std::vector<std::string> row;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

// FCFS / SJF / HEFT x GREEDY / RR / HEFT are deterministic on MAGMA's setting 2 (MET breaks
// its all-core ties with numpy's random state, RANDOM is random): within 0.1% of its results.
TEST(ScheduleMagma, DeterministicHeuristicsMatchMagma) {
  int checked = 0;
  double worst = 0;
  std::map<std::string, JobTable> tables;
  for (const auto& r : read_csv("heuristics.csv")) {
    const std::string& inst = r[0];
    const double bw = std::stod(r[1]);
    if (r[2] == "RANDOM" || r[3] == "RANDOM" || r[3] == "MET") continue;
    if (!tables.count(inst)) tables[inst] = magma_table(inst);
    const JobTable& t = tables[inst];
    Simulator sim(t, bw);
    for (const auto& h : run_heuristics(sim, 1)) {
      if (h.name != r[2] + "-" + r[3]) continue;
      const double want = std::stod(r[4]);
      const double rel = std::fabs(h.makespan_cycles - want) / want;
      worst = std::max(worst, rel);
      EXPECT_LT(rel, 1e-3) << inst << " bw " << bw << " " << h.name << ": " << h.makespan_cycles
                           << " vs MAGMA " << want;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 7 * 9);
  std::printf("deterministic heuristics: %d checked, worst relative difference %.2e\n", checked,
              worst);
}

// MAGMA README's lower bounds.
TEST(ScheduleMagma, LowerBoundsMatch) {
  EXPECT_NEAR(lower_bound_cycles(magma_table("batch_conv/insts4"), 16), 6969601, 1);
  EXPECT_NEAR(lower_bound_cycles(magma_table("batch_mix/insts0"), 1), 1871854, 1);
  EXPECT_NEAR(lower_bound_cycles(magma_table("batch_recom/insts0"), 1), 197147, 1);
}

// G# at 10,000 evaluations (MAGMA's 100 generations x 105 evaluations = 10,500) on MAGMA's seven
// reference runs of 100 generations, against MAGMA's measured GA (seed 1). `want` holds G#'s
// makespans per seed, in ga_runs.csv's row order; returns how many runs are at least as good
// as MAGMA's. Prints every run.
int gsharp_vs_magma(const std::vector<uint64_t>& seeds,
                    const std::vector<std::vector<double>>& want) {
  int at_least_as_good = 0;
  size_t run = 0;
  for (const auto& r : read_csv("ga_runs.csv")) {
    if (r[2] != "100") continue;
    const std::string& inst = r[0];
    const double bw = std::stod(r[1]);
    const double magma = std::stod(r[4]);
    const JobTable t = magma_table(inst);
    Simulator sim(t, bw);
    const double lb = lower_bound_cycles(t, bw);
    for (size_t k = 0; k < seeds.size(); ++k) {
      GsharpOptions o;
      o.budget = 10000;
      o.seed = seeds[k];
      const SearchResult g = run_gsharp(sim, o);
      std::printf("%-18s bw %-3s seed %-2llu G# %.12g  MAGMA %.12g  LB %.0f  gap %.3f%%\n",
                  inst.c_str(), r[1].c_str(), static_cast<unsigned long long>(seeds[k]),
                  g.makespan_cycles, magma, lb, 100 * (g.makespan_cycles / lb - 1));
      EXPECT_LE(g.evaluations, 10000);
      if (run < want.size()) {
        EXPECT_NEAR(g.makespan_cycles, want[run][k], 1e-3)
            << inst << " bw " << bw << " seed " << seeds[k];
      }
      if (g.makespan_cycles <= magma * (1 + 1e-9)) ++at_least_as_good;
    }
    ++run;
  }
  EXPECT_EQ(run, 7u);
  return at_least_as_good;
}

// In-sample: the climb's 20% share (kLocalSearchFraction) and the random first generation were
// chosen on these seven runs at seeds 1-5 (gsharp.h), so these figures are on G#'s tuning set.
// Seed 1 is at least as good as MAGMA's GA on all seven; seeds 1-3 on 18 of 21 (mix/insts0 at
// BW 16 seed 3 by 50 cycles, recom/insts0 seeds 2 and 3 by 0.05% and 0.03%).
TEST(ScheduleMagma, TuningSetGsharpSeeds1To3VsMagmaGa) {
  const std::vector<std::vector<double>> want = {
      {6969601, 6969601, 6969601},                     // batch_conv/insts4 bw 16
      {7257653.02884, 7257653.02884, 7257653.02884},   // batch_conv/insts0 bw 1
      {1398235.8139, 1398205.81121, 1398245.36643},    // batch_lang/insts0 bw 1
      {1871898.11938, 1871958.15588, 1872029.14926},   // batch_mix/insts0 bw 16
      {1955791.55859, 1955728.05048, 1955716.4677},    // batch_mix/insts0 bw 1
      {4827590.45491, 4827605.74583, 4827586.78921},   // batch_mix/insts1 bw 1
      {231411.541295, 231601.949498, 231560.103795}};  // batch_recom/insts0 bw 1
  EXPECT_EQ(gsharp_vs_magma({1, 2, 3}, want), 18);
}

// Seeds 6-8 were never run while choosing G#'s constants (the tables were: held-out seeds, not
// held-out tables; docs/gsharp.md's 4 x 4 x 3 table is on tables outside the tuning set). At
// least as good as MAGMA's GA on 18 of 21 (mix/insts0 at BW 16 seed 6 by 2 cycles, mix/insts1
// seed 8 by 2 cycles, recom/insts0 seed 6 by 0.011%).
TEST(ScheduleMagma, HeldOutSeeds6To8VsMagmaGa) {
  const std::vector<std::vector<double>> want = {
      {6969601, 6969601, 6969601},                    // batch_conv/insts4 bw 16
      {7257653.02884, 7257653.02884, 7257653.02884},  // batch_conv/insts0 bw 1
      {1398100.46315, 1398465.76696, 1398375.82365},  // batch_lang/insts0 bw 1
      {1871981.10969, 1871949.14926, 1871944.11938},  // batch_mix/insts0 bw 16
      {1955935.69134, 1955714.43472, 1955728.48594},  // batch_mix/insts0 bw 1
      {4827595.3834, 4827599.45804, 4827616.91972},   // batch_mix/insts1 bw 1
      {231517.71903, 231406.978795, 231465.34403}};   // batch_recom/insts0 bw 1
  EXPECT_EQ(gsharp_vs_magma({6, 7, 8}, want), 18);
}

}  // namespace
}  // namespace sparsemap::dse::schedule

namespace sparsemap::dse::schedule {
namespace {

// Warm start carries each job to the most similar earlier job's core and priority; on the same
// table it reproduces the schedule, so a warm G# starts at least as good as that schedule.
TEST(ScheduleWarmStart, TransferAndWarmSearch) {
  const JobTable a = magma_table("batch_mix/insts0");
  Simulator sim(a, 1.0);
  GsharpOptions cold;
  cold.budget = 2000;
  const SearchResult first = run_gsharp(sim, cold);
  const Schedule same = transfer_schedule(a, first.best, a);
  // Identical jobs may swap (same latencies), so compare makespans, not genes.
  EXPECT_DOUBLE_EQ(sim.makespan(same), first.makespan_cycles);
  const JobTable b = magma_table("batch_mix/insts1");
  Simulator sim_b(b, 1.0);
  GsharpOptions warm;
  warm.budget = 1000;
  warm.warm_start = {transfer_schedule(a, first.best, b)};
  const SearchResult w = run_gsharp(sim_b, warm);
  EXPECT_EQ(w.evaluations, 1000);
  EXPECT_LE(w.makespan_cycles, sim_b.makespan(warm.warm_start[0]));
  EXPECT_LE(w.makespan_cycles, 4827615 * 1.05);  // within 5% of MAGMA's 10,500-evaluation GA
}

// Speed-weighted core draws are uniform draws on identical cores: G# gives the very same run.
TEST(ScheduleWarmStart, SpeedWeightedDrawsIdenticalOnHomogeneousCores) {
  const JobTable t = magma_table("batch_recom/insts0");
  Simulator sim(t, 1.0);
  GsharpOptions o;
  o.budget = 1500;
  const SearchResult a = run_gsharp(sim, o);
  o.speed_weighted_cores = false;
  const SearchResult b = run_gsharp(sim, o);
  EXPECT_EQ(a.makespan_cycles, b.makespan_cycles);
  EXPECT_EQ(a.best.core, b.best.core);
}

// Repair: jobs in carried-priority order, each to the core where it ends first with its fair
// share of the bandwidth. Hand-worked: 2 cores, BW 2; (L, b) per core: job 0 (10, 1) / (20, 1),
// job 1 (4, 4) / (4, 0), job 2 (6, 0) / (3, 0); order 2, 0, 1. Job 2: ends 6 on c0, 3 on c1 ->
// c1 (ready 3). Job 0: 10 on c0, 3 + 20 on c1 -> c0 (ready 10). Job 1: on c0 10 + 4 x
// max(1, 4 x 2 / 2) = 26, on c1 3 + 4 = 7 -> c1.
TEST(ScheduleWarmStart, RepairIsBandwidthAwareListScheduling) {
  JobTable t;
  t.num_jobs = 3;
  t.num_cores = 2;
  t.core_names = {"c0", "c1"};
  t.jobs.resize(3);
  t.latency_cycles = {10, 20, 4, 4, 6, 3};
  t.req_bw = {1, 1, 4, 0, 0, 0};
  const Schedule carried{{0, 0, 0}, {0.5, 0.9, 0.1}};
  const Schedule r = repair_schedule(t, 2.0, carried);
  EXPECT_EQ(r.core, (std::vector<int>{0, 1, 1}));
  EXPECT_LT(r.priority[2], r.priority[0]);
  EXPECT_LT(r.priority[0], r.priority[1]);
}

// MAGMA's GA as published counts its re-evaluated elites: 100 + 5 per generation.
TEST(ScheduleWarmStart, MagmaExactCountsEveryEvaluation) {
  const JobTable t = magma_table("batch_recom/insts0");
  Simulator sim(t, 1.0);
  GsharpOptions o;
  o.magma_exact = true;
  o.budget = 1050;
  const SearchResult r = run_gsharp(sim, o);
  EXPECT_EQ(r.evaluations, 1050);
  EXPECT_EQ(sim.evaluations(), 1050);
  ASSERT_EQ(r.convergence.size(), 10u);
  EXPECT_EQ(r.convergence.front().first, 105);
}

}  // namespace
}  // namespace sparsemap::dse::schedule
