// Jobs and platforms for multi-tenant scheduling: job batches (layers of zoo models, or a
// MAGMA job file), platforms of sub-accelerators, and the job-analysis table built from our
// cost model or read from a MAGMA job-table CSV.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/dse/schedule/simulator.h"
#include "sparsemap/io/magma_csv.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::dse::schedule {

// One sub-accelerator: a spatial array with one of our dataflow templates
// (cost/dataflows.h: kcp_ws, xp_ws, yxp_os; MAGMA's "dla" and "shi" name kcp_ws and yxp_os).
struct SubAccel {
  std::string name;
  int64_t pes = 0;
  std::string dataflow;
  int64_t l1_bytes = 0;  // per PE; 0: effectively unbounded (MAGMA runs MAESTRO unconstrained)
  int64_t l2_bytes = 0;
};

// Sub-accelerators sharing one DRAM. The DRAM bandwidth is a run parameter (--bw), as in MAGMA.
struct Platform {
  std::string name;
  std::string source;
  std::vector<SubAccel> cores;
};

// Presets after MAGMA's get_setting_v3 (64-PE clusters): magma-s2 (4 x 2048 PEs, all kcp_ws),
// magma-s3 (4 x 2048, 3 kcp_ws + 1 yxp_os), magma-s5 (4 x 8192 + 4 x 4096, one yxp_os in
// each group of 4), magma-s7 (2048/4096/8192 PEs, kcp_ws and yxp_os each).
const std::vector<Platform>& platform_presets();
// A preset name, or a platform CSV file (io::parse_platform_csv). Throws InputError, with the
// file's line and column for a bad dataflow.
Platform load_platform(const std::string& name_or_path);

struct Job {
  JobInfo info;
  workload::Layer layer;
};

// Our job batches, built from the zoo (batch 1 unless said): every GEMM-class layer of each
// tenant (one tenant per model instance).
//   vision          resnet18, mobilenet-v2, vgg16, mnasnet
//   language        bert-base (seq 128), gpt2 (seq 128)
//   recommendation  dlrm and ncf, 6 instances each at batch 1, 4, 16, 64, 128, 256
//   mix             resnet18, mobilenet-v2, bert-base (seq 128), dlrm (batch 64), ncf (256)
const std::vector<std::string>& job_batch_names();
// A batch name or a MAGMA job file (io::parse_magma_jobs; T: 0 FFN -> FC K=Out C=In, 1 CONV,
// 2 DSCONV, 3 GEMM M,N,K). Throws InputError.
std::vector<Job> load_jobs(const std::string& name_or_path);

// The job-analysis table from our cost model: for each job and core,
//   latency_cycles = evaluate(layer, core's arch, dataflow_mapping(core's dataflow)).runtime,
//   req_bw         = offchip_words x word_bytes / latency_cycles   (bytes per cycle),
// the average DRAM bandwidth that lets the job run at its no-stall speed. `cost_evals` (if
// given) receives the number of cost-model calls (jobs x cores). Throws InputError when a
// layer cannot be mapped by a core's dataflow.
JobTable build_job_table(const std::vector<Job>& jobs, const Platform& p,
                         int64_t* cost_evals = nullptr);

// A MAGMA job table as it is (latencies and bandwidths in MAGMA's units).
JobTable job_table_from_magma(const io::MagmaTable& t, const std::string& file = "<job table>");

// The most jobs a schedule takes (a job file, a job table): the heuristics' and the
// dispatchers' time grows with jobs x tenants (100,000 jobs took 300 s before any search);
// 10,000 jobs take about 3 s of heuristics and 1 s per 100 G# evaluations. Larger: InputError
// at the line of the first job over the limit.
inline constexpr int64_t kMaxScheduleJobs = 10000;

// The layer MAGMA's job line stands for (see load_jobs).
workload::Layer layer_from_magma(const io::MagmaJob& j);

}  // namespace sparsemap::dse::schedule
