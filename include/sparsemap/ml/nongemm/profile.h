// Operator-level profiles of the suite's models: libtorch RecordFunction callbacks count the
// top-level ATen operators (and sparsemap's composite scopes) of each inference. Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sparsemap/ml/nongemm/models.h"
#include "sparsemap/ml/nongemm/taxonomy.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::ml::nongemm {

// torch.profiler's schedule: `skip` runs first, then `wait` runs, all unrecorded; `warmup`
// runs with the callbacks on whose records are dropped; then `active` recorded runs.
struct ProfileSchedule {
  int skip = 1;
  int wait = 2;
  int warmup = 2;
  int active = 5;
  int total() const { return skip + wait + warmup + active; }
};

// How the active runs combine into one number per operator (and for the wall time): the mean
// (what torch.profiler's averages report), or the median or minimum over the runs (robust on
// a shared, noisy machine: a run that another process preempts does not move them).
enum class Statistic { Mean, Median, Min };
std::string statistic_name(Statistic s);  // "mean", "median", "min"
// Inverse of statistic_name; throws InputError ("<flag --stat>") for another word.
Statistic parse_statistic(const std::string& name);
// The statistic of `values` (0 for none).
double combine(Statistic s, std::vector<double> values);

struct ProfileOptions {
  ProfileSchedule schedule;
  int threads = 0;           // intra-op threads (at::set_num_threads); 0 leaves libtorch's
  bool trace = false;        // keep every recorded operator for a Chrome trace
  bool gemm_shapes = false;  // one extra run that records the GEMM operators' shapes
  const Taxonomy* taxonomy = nullptr;  // nullptr: Taxonomy::builtin(); not owned
  // Keep freed memory in the process (glibc: no mmap for large blocks, no trimming), as a
  // caching allocator would, so that an operator's output does not pay the kernel's first-touch
  // page faults; see keep_freed_memory(). Process-wide and not undone. On by default: without
  // it, ResNet-50's batch_norm took 22.8 ms here instead of the 2.0 ms that PyTorch's profiler
  // shows in a Python process (whose glibc already reuses freed blocks), and the GEMM share
  // was 18.7 points off PyTorch's (scripts/nongemm_pytorch_check.py).
  bool reuse_memory = true;
  Statistic statistic = Statistic::Mean;
};

// libtorch's CPU allocator returns every large block to the kernel on free (glibc mmap/munmap),
// so each new tensor first-touches fresh pages; where page faults are expensive (a VM: this
// project's machines take ~18 us per 4 KiB page, 2.4 s for a 537 MB attention score tensor)
// that cost lands in whichever operator allocates. This switches glibc to keep freed memory
// (mallopt M_MMAP_MAX = 0, M_TRIM_THRESHOLD = INT_MAX) for the rest of the process.
void keep_freed_memory();

// One top-level operator, summed over a run and averaged over the active runs.
struct OpStat {
  std::string name;  // "aten::conv2d", "sparsemap::rms_norm"
  OpClass cls;
  double calls = 0;  // per inference (blocks scaled to the full model)
  double ms = 0;     // per inference, milliseconds: the Profile's statistic over the runs
};

// One recorded operator (Chrome trace). Times from the start of the first active run.
struct TraceEvent {
  std::string name;
  std::string group;
  int iteration = 0;  // 0-based active run; -1 for the run's own span ("inference")
  double ts_us = 0;
  double dur_us = 0;
};

// A GEMM-class operator and the layer its shapes describe (for the accelerator horizon).
struct GemmCall {
  std::string op;         // "aten::linear"
  workload::Layer layer;  // Gemm (M = rows of the activation), Conv/DsConv/NgConv or BatchedGemm
  double calls = 0;       // per inference (scaled like OpStat)
  double ms = 0;          // measured, per inference: this shape's share of the op's time
};

struct Profile {
  ResolvedOptions run;  // model and sizes
  int threads = 0;      // intra-op threads in effect
  ProfileSchedule schedule;
  std::vector<double> wall_ms;  // per active run: wall time of the inference scope (scaled)
  std::vector<double> ops_ms;   // per active run: sum of the top-level operator times (scaled)
  std::vector<OpStat> ops;      // by time, longest first
  std::vector<TraceEvent> trace;
  std::vector<GemmCall> gemm_calls;  // with ProfileOptions::gemm_shapes
  std::string torch_version;         // "1.13.1"
  std::string blas;                  // the BLAS and its kernel: "OpenBLAS 0.3.21 ... core=Haswell"
  std::string blas_env;              // OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE as set, or "unset"
  bool reuse_memory = false;         // ProfileOptions::reuse_memory

  Statistic statistic = Statistic::Mean;
  double load_avg_1min = -1;  // /proc/loadavg when the profile started (-1: unknown)

  // The statistic over the active runs of the wall time, and of the summed operator time.
  double typical_wall_ms() const;
  double typical_ops_ms() const;
  // typical_ops_ms over typical_wall_ms, in percent (100 when every moment of the inference
  // scope is inside a top-level operator).
  double coverage_pct() const;
  // Percent of the operator time spent in operators the taxonomy does not name.
  double unknown_pct() const;
};

// Builds the model (seeded weights), runs the schedule and returns the profile.
// Throws InputError for bad names or options.
Profile profile_model(std::string_view name, const ModelOptions& model,
                      const ProfileOptions& options);

// Profiling overhead: alternates un-profiled and profiled inferences (`rounds` of each, after
// two warm-ups of each) and compares their medians.
struct Overhead {
  std::string model;
  int rounds = 0;
  double plain_ms = 0;      // median wall time without callbacks
  double profiled_ms = 0;   // median wall time with the profiler's callbacks recording
  double overhead_pct = 0;  // (profiled - plain) / plain x 100
  std::vector<double> plain_runs_ms, profiled_runs_ms;
};
Overhead measure_overhead(std::string_view name, const ModelOptions& model, int threads, int rounds,
                          bool reuse_memory = true);

// "OpenBLAS 0.3.21 DYNAMIC_ARCH ... core=Haswell" when OpenBLAS is loaded, else "unknown".
std::string blas_description();

}  // namespace sparsemap::ml::nongemm
