// Readers of MAGMA's (maestro-project/magma) job files and job tables, and of the CSV that
// describes a multi-core platform for `sparsemap schedule`.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sparsemap::io {

// One job of a MAGMA job file (data/traffic_insts/<batch>/instsN.csv): no header, one job per
// line, `thread_id, layer_id, D0, D1, D2, D3, D4, D5, T`. T: 0 FFN (D = Out, In, 1, 1, 1, 1),
// 1 CONV and 2 DSCONV (D = K, C, Y, X, R, S), 3 GEMM (D = M, N, K, 1, 1, 1).
struct MagmaJob {
  int64_t thread = 0;
  int64_t layer = 0;
  std::array<int64_t, 6> dims{};
  int type = 1;
  int line = 0;  // 1-based line in the file
};

// Throws InputError (file:line:column) on a wrong column count, a non-integer, a size < 1 or
// > 2^31-1, or a type outside 0..3; and when the file holds no job or more than kMaxJobs.
std::vector<MagmaJob> parse_magma_jobs(const std::string& text, const std::string& file);
std::vector<MagmaJob> read_magma_jobs(const std::string& path);

// One row of a MAGMA job table: the no-stall latency and the DRAM bandwidth a job needs on one
// core. Columns (header required, any order, matched by name):
// `job, thread, layer, K, C, Y, X, R, S, T, core, latency_cycles, req_dram_bw`
// (K..S are the job file's D0..D5 as written; `thread`, `layer` and K..T are optional).
struct MagmaTableRow {
  int64_t job = 0;
  int64_t thread = 0;
  int64_t layer = 0;
  std::array<int64_t, 6> dims{1, 1, 1, 1, 1, 1};
  int type = 1;
  int64_t core = 0;
  double latency_cycles = 0;  // > 0
  double req_dram_bw = 0;     // >= 0, in the unit of the platform's DRAM bandwidth
  int line = 0;
};

// A parsed job table: rows[j * num_cores + c] is job j on core c.
struct MagmaTable {
  int64_t num_jobs = 0;
  int64_t num_cores = 0;
  std::vector<MagmaTableRow> rows;
};

// Jobs must be numbered 0..n-1 in order, each with one row per core 0..m-1 in order (as MAGMA
// writes them). Throws InputError with file:line:column naming what was expected.
MagmaTable parse_magma_job_table(const std::string& text, const std::string& file);
MagmaTable read_magma_job_table(const std::string& path);

// One sub-accelerator of a platform file: header `name, pes, dataflow` plus optional
// `l1_bytes, l2_bytes` columns (any order), one core per line, `#` starts a comment line.
struct PlatformCoreRow {
  std::string name;
  int64_t pes = 0;
  std::string dataflow;
  int64_t l1_bytes = 0;  // 0: not given
  int64_t l2_bytes = 0;
  int line = 0;
  int dataflow_column = 0;  // where the dataflow name is, for errors found later
};

std::vector<PlatformCoreRow> parse_platform_csv(const std::string& text, const std::string& file);
std::vector<PlatformCoreRow> read_platform_csv(const std::string& path);

// Bounds on what the readers accept (memory stays bounded on any input).
inline constexpr int64_t kMaxJobs = 100000;
inline constexpr int64_t kMaxCores = 256;

}  // namespace sparsemap::io
