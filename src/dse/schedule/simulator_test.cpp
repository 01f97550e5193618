// Hand-worked checks of the bandwidth-sharing simulator, the lower bound and the readers.
#include "sparsemap/dse/schedule/simulator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "sparsemap/dse/schedule/heuristics.h"
#include "sparsemap/dse/schedule/jobs.h"
#include "sparsemap/error.h"
#include "sparsemap/io/magma_csv.h"

namespace sparsemap::dse::schedule {
namespace {

// Two cores, three jobs; latency L and demand b per job (same on both cores).
JobTable three_jobs() {
  JobTable t;
  t.num_jobs = 3;
  t.num_cores = 2;
  t.core_names = {"a", "b"};
  t.jobs.resize(3);
  for (int j = 0; j < 3; ++j) t.jobs[j].thread = j;
  const double L[3] = {10, 6, 4}, b[3] = {3, 1, 1};
  for (int j = 0; j < 3; ++j)
    for (int c = 0; c < 2; ++c) {
      t.latency_cycles.push_back(L[j]);
      t.req_bw.push_back(b[j]);
    }
  return t;
}

// Core 0 runs J0 (L 10, b 3) then J2 (L 4, b 1); core 1 runs J1 (L 6, b 1); bw = 2.
//   [0, 12)  demand 4 > 2: both at rate 1/2; J1 ends at 6 / (1/2) = 12, J0 has 10 - 6 = 4 left.
//   [12, 18) J0 alone, demand 3 > 2: rate 2/3, its 4 cycles take 6.
//   [18, 22) J2 alone, demand 1 <= 2: full speed, 4 cycles.
TEST(ScheduleSimulator, HandWorkedBandwidthSharing) {
  const JobTable t = three_jobs();
  Simulator sim(t, 2.0);
  const Schedule s{{0, 1, 0}, {0.1, 0.5, 0.9}};
  const SimResult r = sim.run(s, true);
  EXPECT_DOUBLE_EQ(r.makespan_cycles, 22.0);
  EXPECT_DOUBLE_EQ(r.busy_cycles[0], 22.0);
  EXPECT_DOUBLE_EQ(r.busy_cycles[1], 12.0);
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_DOUBLE_EQ(r.jobs[2].start_cycles, 18.0);
  EXPECT_EQ(r.jobs[2].job, 2);
  ASSERT_EQ(r.bw_trace.size(), 3u);
  EXPECT_DOUBLE_EQ(r.bw_trace[0].bw_by_core[0], 1.5);
  EXPECT_DOUBLE_EQ(r.bw_trace[0].bw_by_core[1], 0.5);
  EXPECT_DOUBLE_EQ(r.bw_trace[1].end_cycles, 18.0);
  EXPECT_DOUBLE_EQ(r.bw_trace[1].bw_by_core[0], 2.0);
  EXPECT_DOUBLE_EQ(r.bw_trace[2].bw_by_core[0], 1.0);
  // Data moved 30 + 6 + 4 = 40 over 2 x 22.
  EXPECT_DOUBLE_EQ(r.bw_utilisation, 40.0 / 44.0);
  EXPECT_DOUBLE_EQ(sim.makespan(s), 22.0);
  EXPECT_EQ(sim.evaluations(), 2);
}

// Priorities order a core's jobs: J2 first on core 0. [0, 4): demand 2 = bw, full speed;
// J2 ends at 4, J1 has 2 left. [4, ...): J0 (3) + J1 (1) = 4 > 2, rate 1/2: J1 ends at 8,
// J0 has 10 - 2 = 8 left; alone at rate 2/3 it takes 12 more: 20.
TEST(ScheduleSimulator, PriorityOrderAndEqualShares) {
  const JobTable t = three_jobs();
  Simulator sim(t, 2.0);
  EXPECT_DOUBLE_EQ(sim.makespan({{0, 1, 0}, {0.9, 0.5, 0.1}}), 20.0);
  // With unbounded bandwidth the makespan is the busiest core's latency sum.
  Simulator wide(t, 100.0);
  EXPECT_DOUBLE_EQ(wide.makespan({{0, 1, 0}, {0.9, 0.5, 0.1}}), 14.0);
  // All on one core: 10 x 3/2 + 6 + 4 = 25 (J0 alone needs 3 > 2).
  EXPECT_DOUBLE_EQ(sim.makespan({{1, 1, 1}, {0.1, 0.2, 0.3}}), 25.0);
}

// A job that needs no bandwidth runs at full speed beside a throttled one.
TEST(ScheduleSimulator, ZeroBandwidthJobIsNotThrottled) {
  JobTable t = three_jobs();
  for (int c = 0; c < 2; ++c) t.req_bw[1 * 2 + c] = 0.0;  // J1 compute-only
  Simulator sim(t, 2.0);
  // [0, 6): J0 (b 3) beside J1 (b 0): demand 3 > 2, J0 at rate 2/3 (4 done), J1 at full
  // speed ends at 6. [6, 14): J0 + J2 (b 1) = 4 > 2, rate 1/2: J2's 4 take 8, J0 does 4 more.
  // [14, 17): J0 alone at rate 2/3 finishes its last 2.
  const SimResult r = sim.run({{0, 1, 1}, {0.1, 0.2, 0.3}}, false);
  EXPECT_DOUBLE_EQ(r.makespan_cycles, 17.0);
  EXPECT_DOUBLE_EQ(r.finish_cycles[1], 14.0);
}

// Fuzzing found it: 1e5 cycles at 0.51e308 words/cycle against bandwidth 1 take 2e313 cycles,
// past a double; the simulator indexed core -1 then. Now the table is refused up front.
TEST(ScheduleSimulator, OverflowingTimeIsInputError) {
  JobTable t = three_jobs();
  for (int c = 0; c < 2; ++c) t.req_bw[0 * 2 + c] = 0.51e308;
  EXPECT_THROW(Simulator(t, 1.0), InputError);
  EXPECT_NO_THROW(Simulator(t, 1e12));
}

// max(longest 10, work 20 / 2 = 10, area 40 / bw).
TEST(ScheduleSimulator, LowerBound) {
  const JobTable t = three_jobs();
  EXPECT_DOUBLE_EQ(lower_bound_cycles(t, 2.0), 20.0);
  EXPECT_DOUBLE_EQ(lower_bound_cycles(t, 8.0), 10.0);
}

// Dispatch heuristics decide at run time; their schedules replay to the same makespan and
// place every job exactly once.
TEST(ScheduleHeuristics, DynamicPoliciesGiveValidSchedules) {
  const JobTable t = three_jobs();
  Simulator sim(t, 2.0);
  for (const auto& h : run_heuristics(sim, 1)) {
    ASSERT_EQ(h.schedule.core.size(), 3u) << h.name;
    EXPECT_GE(h.makespan_cycles, lower_bound_cycles(t, 2.0)) << h.name;
  }
  // AI-MT-like: core 0 takes the hungriest job that fits in bw 2 (J1 or J2: b 1, longest J1),
  // core 1 then has 1 left: J2 (b 1). J0 waits for a core.
  const Schedule a = aimt_like(t, 2.0);
  EXPECT_EQ(a.core[1], 0);
  EXPECT_EQ(a.core[2], 1);
}

TEST(ScheduleReaders, JobTableErrorsCarryLocation) {
  auto msg = [](const std::string& text) {
    try {
      io::parse_magma_job_table(text, "t.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "job,core,latency_cycles,req_dram_bw\n";
  EXPECT_EQ(msg(head + "0,0,10,1\n0,1,10,x\n"),
            "t.csv:3:8: expected a DRAM bandwidth >= 0, found 'x'");
  EXPECT_EQ(msg(head + "0,0,10,1\n0,1,10,1\n1,0,10,1\n"),
            "t.csv:4: job 1 has 1 rows, expected 2 (one per core)");
  EXPECT_EQ(msg(head + "0,0,10,1\n2,0,10,1\n"),
            "t.csv:3:1: expected job 1 (jobs numbered 0, 1, ... in order), found 2");
  EXPECT_EQ(msg(head + "0,0,-3,1\n"), "t.csv:2:5: expected a latency in cycles > 0, found '-3'");
  EXPECT_EQ(msg("job,core,latency,req_dram_bw\n"),
            "t.csv:1:10: unknown column 'latency' (expected a header with job, core, "
            "latency_cycles, req_dram_bw)");
  EXPECT_EQ(msg(head + "0,0,10\n"), "t.csv:2:7: expected 4 comma-separated fields, found 3");
  const auto ok = io::parse_magma_job_table(head + "0,0,10,1\n0,1,12,2\n1,0,5,0\n1,1,6,0.5\n", "t");
  EXPECT_EQ(ok.num_jobs, 2);
  EXPECT_EQ(ok.num_cores, 2);
  EXPECT_DOUBLE_EQ(ok.rows[3].req_dram_bw, 0.5);
}

// A UTF-8 byte-order mark is not part of the first field: line 1 parses, errors keep columns.
TEST(ScheduleReaders, ByteOrderMarkIsSkipped) {
  const auto jobs = io::parse_magma_jobs(
      "\xEF\xBB\xBF"
      "1,1,20,512,128,1,1,1,3\n",
      "j.csv");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].dims[0], 20);
  try {
    io::parse_magma_jobs(
        "\xEF\xBB\xBF"
        "1,1,0,512,128,1,1,1,3\n",
        "j.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "j.csv:1:5: expected a size in 1..2147483647, found 0");
  }
  const auto t = io::parse_magma_job_table(
      "\xEF\xBB\xBF"
      "job,core,latency_cycles,req_dram_bw\n0,0,10,1\n",
      "t.csv");
  EXPECT_EQ(t.rows.size(), 1u);
}

TEST(ScheduleReaders, JobFileAndPlatformErrorsCarryLocation) {
  try {
    io::parse_magma_jobs("1,1,20,512,128,1,1,1,3\n1,2,20,512,0,1,1,1,3\n", "j.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "j.csv:2:12: expected a size in 1..2147483647, found 0");
  }
  try {
    io::parse_magma_jobs("1,1,20,512,128,1,1,1,7\n", "j.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "j.csv:1:22: expected a type 0 (FFN), 1 (CONV), 2 (DSCONV) or 3 (GEMM) in "
                 "0..3, found 7");
  }
  const std::string path = ::testing::TempDir() + "sched_platform_bad.csv";
  {
    std::ofstream f(path);
    f << "name,pes,dataflow\nbig,4096,kcp_ws\nodd,1024,eyeriss\n";
  }
  try {
    load_platform(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path +
                                         ":3:10: unknown dataflow 'eyeriss' (expected kcp_ws, "
                                         "xp_ws, yxp_os, dla or shi)");
  }
  std::remove(path.c_str());
  EXPECT_THROW(load_platform("no-such-platform"), InputError);
  EXPECT_THROW(load_jobs("no-such-batch"), InputError);
}

// A job table from our cost model: one cost-model call per job and core; the same layer on
// identical cores has identical entries, and bandwidth x latency is the layer's DRAM traffic.
TEST(ScheduleJobs, TableFromCostModel) {
  const std::string path =
      std::string(SPARSEMAP_SOURCE_DIR) + "/tests/data/magma/jobs_batch_mix-insts0.csv";
  auto jobs = load_jobs(path);
  ASSERT_EQ(jobs.size(), 100u);
  jobs.resize(6);
  int64_t evals = 0;
  const JobTable t = build_job_table(jobs, load_platform("magma-s3"), &evals);
  EXPECT_EQ(evals, 24);
  for (int j = 0; j < 6; ++j) {
    EXPECT_EQ(t.latency(j, 0), t.latency(j, 1));
    EXPECT_GT(t.bw(j, 0), 0.0);
  }
  // Job 0: GEMM M=20, N=512, K=128 (MAGMA's T=3 row "20,512,128,1,1,1").
  const auto& l = jobs[0].layer;
  EXPECT_EQ(l.macs(), 20 * 512 * 128);
  // DRAM traffic = inputs + weights + outputs, 1 byte each.
  EXPECT_NEAR(t.latency(0, 0) * t.bw(0, 0), 20 * 128 + 128 * 512 + 20 * 512, 1e-6);
}

}  // namespace
}  // namespace sparsemap::dse::schedule
