// Measuring SpMM kernels (what the benchmarks, spmm-bench, prune-study and the report share):
// the `dl` shapes, a robust timer (median of repeats), quiescing, and one timed run checked
// against OpenBLAS. Measurement, not kernels: it lives beside sparse/kernels, not in it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sparsemap/numbers.h"  // median, geomean
#include "sparsemap/sparse/kernels/spmm.h"

namespace sparsemap::measure {

using sparse::AnySparse;
using sparse::ConstMatrixView;
using sparse::DenseMatrix;
using sparse::KernelOptions;

// C (M x N) = W (M x K) x B (K x N): a weight matrix W and N activation columns.
struct GemmShape {
  int64_t m = 0;
  int64_t k = 0;
  int64_t n = 0;
  std::string name;  // where the weight comes from, e.g. "resnet50 layer3 3x3"
};

// The `dl` shapes: weight matrices of ResNet-50 (im2col: M = output channels, K = input
// channels x R x S) and of one BERT-base / GPT-2 small layer (M = out features, K = in
// features), each with N columns (batch x tokens or batch x pixels).
std::vector<GemmShape> dl_shapes(int64_t n = 256);

// Parses "dl", "dl:N" or "M,K,N;M,K,N;...". Throws InputError (file "<flag --shapes>").
std::vector<GemmShape> parse_shapes(const std::string& text);

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  int reps = 0;
  std::vector<double> samples_ms;
};

// Runs f once to warm up, then repeatedly: at least min_reps times and until min_total_ms
// have passed (at most max_reps). Reports the median and minimum wall time per call.
Timing time_ms(const std::function<void()>& f, int min_reps = 5, double min_total_ms = 100,
               int max_reps = 200);

// A random N(0, 1) matrix, deterministic for a seed.
DenseMatrix random_normal(int64_t rows, int64_t cols, uint64_t seed);

// OpenBLAS's pthread workers spin (sched_yield) for ~0.1 s after each multi-threaded call and
// libgomp's for a few ms after each parallel region; on a 2-core machine that halves the speed
// of whatever runs next. Benchmarks call this between a dense block and a sparse block.
void quiesce(double ms);

// A warning when other processes keep the CPUs busy (Linux: 1-minute load average above the
// CPU count), or "". On such a machine a multi-threaded timing mostly measures the scheduler:
// a thread of the kernel waits for a CPU at every barrier, and libgomp's spinning threads are
// descheduled hard (seen here: 5-10x slower SpMM at load 5 on 2 cores, while OpenBLAS lost
// 2x). Run benchmarks on a quiet machine, or under `chrt -f 1` (root) so that they preempt
// ordinary processes; OMP_WAIT_POLICY=passive also avoids the worst of it.
std::string busy_machine_warning();

// What a timing run of `command` ("spmm-bench", "prune-study", ...) should warn of before it
// starts: one line for each of OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE that is set (OpenBLAS may
// then run a kernel slower than its best; the line says how to run `command` without them), and
// busy_machine_warning(). Only warnings depend on the environment, never a result.
std::vector<std::string> timing_environment_warnings(const std::string& command);

// One kernel run: its timing, and its largest error against a single-threaded OpenBLAS product
// of the same (pruned) matrix: max |C - C_blas| / (1 + |C_blas|).
struct SpmmRun {
  Timing timing;
  double max_rel_err = 0;
};
SpmmRun run_spmm(const AnySparse& a, ConstMatrixView b, const KernelOptions& opt,
                 double min_total_ms, int min_reps);

}  // namespace sparsemap::measure
