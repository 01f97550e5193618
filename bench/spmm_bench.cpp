// Google Benchmark of the CPU SpMM kernels and OpenBLAS sgemm on the `dl` shapes (N = 256).
// Run with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (they make OpenBLAS pick a slower
// kernel on these machines):
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE build/spmm_bench --benchmark_filter=cvse
// Counters: gflops_dense_equiv = 2 M K N / time (what dense would need to match), and
// gflops_useful = 2 * stored entries * N / time. `sparsemap spmm-bench` prints speedup tables.
#include "sparsemap/measure/spmm_bench.h"

#include <benchmark/benchmark.h>

#include <string>

#include "sparsemap/sparse/prune/prune.h"

using namespace sparsemap::sparse;
using namespace sparsemap::measure;

namespace {

constexpr int kThreads = 2;

void bm_sgemm(benchmark::State& st, GemmShape sh) {
  const DenseMatrix w = random_normal(sh.m, sh.k, 1), b = random_normal(sh.k, sh.n, 2);
  DenseMatrix c(sh.m, sh.n);
  for (auto _ : st) sgemm_openblas(w.view(), b.view(), c.view(), kThreads);
  st.counters["gflops_dense_equiv"] = benchmark::Counter(
      2.0 * sh.m * sh.k * sh.n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void bm_spmm(benchmark::State& st, GemmShape sh, std::string format, double sparsity) {
  const DenseMatrix w = random_normal(sh.m, sh.k, 1), b = random_normal(sh.k, sh.n, 2);
  const FormatSpec spec = parse_format(format);
  const AnySparse a = prune(w.view(), spec, spec.intrinsic_sparsity() >= 0 ? -1.0 : sparsity);
  DenseMatrix c(sh.m, sh.n);
  for (auto _ : st) spmm(a, b.view(), c.view(), {kThreads, Isa::Auto});
  st.counters["gflops_dense_equiv"] = benchmark::Counter(
      2.0 * sh.m * sh.k * sh.n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["gflops_useful"] =
      benchmark::Counter(2.0 * static_cast<double>(stored_values(a)) * sh.n * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
  for (const GemmShape& sh : dl_shapes(256)) {
    const std::string shape =
        std::to_string(sh.m) + "x" + std::to_string(sh.k) + "x" + std::to_string(sh.n);
    benchmark::RegisterBenchmark(("sgemm/" + shape).c_str(), bm_sgemm, sh)->UseRealTime();
    for (const char* f : {"csr", "cvse:4", "cvse:8"})
      for (double s : {0.5, 0.7, 0.8, 0.9, 0.95})
        benchmark::RegisterBenchmark(
            (std::string(f) + "/" + shape + "/s" + std::to_string(static_cast<int>(s * 100)))
                .c_str(),
            bm_spmm, sh, std::string(f), s)
            ->UseRealTime();
    // Formats with their own sparsity (N:M, V:N:M), and 4x4 blocks at 90%.
    for (const char* f : {"nm:2:4", "vnm:16:2:8", "bsr:4x4"})
      benchmark::RegisterBenchmark((std::string(f) + "/" + shape).c_str(), bm_spmm, sh,
                                   std::string(f), 0.9)
          ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
