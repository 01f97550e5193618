// Timed kernel runs checked against OpenBLAS (the part of bench_util that needs BLAS).
#include <algorithm>
#include <cmath>

#include "sparsemap/measure/spmm_bench.h"

namespace sparsemap::measure {

SpmmRun run_spmm(const AnySparse& a, ConstMatrixView b, const KernelOptions& opt,
                 double min_total_ms, int min_reps) {
  const int64_t m = sparse::rows_of(a), n = b.cols;
  DenseMatrix c(m, n), ref(m, n);
  SpmmRun r;
  r.timing = time_ms([&] { sparse::spmm(a, b, c.view(), opt); }, min_reps, min_total_ms);
  const DenseMatrix ad = sparse::to_dense(a);
  sparse::sgemm_openblas(ad.view(), b, ref.view(), 1);  // one thread: wakes no OpenBLAS workers
  for (size_t i = 0; i < c.values.size(); ++i)
    r.max_rel_err = std::max(r.max_rel_err, std::fabs(double{c.values[i]} - ref.values[i]) /
                                                (1.0 + std::fabs(double{ref.values[i]})));
  return r;
}

}  // namespace sparsemap::measure
