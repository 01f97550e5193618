// Sparse-format export of trained weights and the SpMM speedup of the real pruned layers.
#include "sparsemap/ml/prune/export.h"

#include <algorithm>

#include "sparsemap/error.h"
#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/sparse/kernels/spmm.h"

namespace sparsemap::ml::prune {

std::vector<ExportRow> export_weights(const std::vector<TrainedWeight>& weights,
                                      const ExportOptions& o) {
  if (o.n < 1 || o.n > (1 << 20)) throw InputError({"<flag --export-n>", 0, 0}, "must be >= 1");
  if (o.threads < 0) throw InputError({"<flag --threads>", 0, 0}, "must be >= 0");
  const sparse::KernelOptions kopt{o.threads, sparse::Isa::Auto};
  std::vector<ExportRow> rows;
  uint64_t seed = o.seed;
  for (const TrainedWeight& w : weights) {
    if (o.pruned_only && w.mask.sparsity() <= 0.0) continue;
    const sparse::DenseMatrix b = measure::random_normal(w.weight.cols, o.n, seed++);
    sparse::DenseMatrix c(w.weight.rows, o.n);
    const sparse::DenseMatrix pruned = sparse::apply_mask(w.weight.view(), w.mask);
    auto dense_call = [&] { sparse::sgemm_openblas(pruned.view(), b.view(), c.view(), o.threads); };
    const measure::Timing d1 = measure::time_ms(dense_call, o.min_reps, o.min_ms);
    measure::quiesce(200);  // let OpenBLAS's workers stop spinning before the sparse kernels
    std::vector<ExportRow> layer_rows;
    for (const sparse::FormatSpec& spec : o.formats) {
      ExportRow r;
      r.layer = w.name;
      r.rows = w.weight.rows;
      r.cols = w.weight.cols;
      r.n = o.n;
      r.format = spec.str();
      r.sparsity = w.mask.sparsity();
      r.dense_bytes = sparse::footprint_dense(r.rows, r.cols).total();
      try {
        const sparse::AnySparse a = sparse::convert(w.weight.view(), spec, &w.mask);
        const measure::SpmmRun run = measure::run_spmm(a, b.view(), kopt, o.min_ms, o.min_reps);
        r.stored_values = sparse::stored_values(a);
        r.footprint_bytes = sparse::footprint(a).total();
        r.sparse_ms = run.timing.median_ms;
        r.max_rel_err = run.max_rel_err;
      } catch (const InputError& e) {
        r.error = e.message();
      }
      layer_rows.push_back(r);
    }
    measure::quiesce(20);
    const measure::Timing d2 = measure::time_ms(dense_call, o.min_reps, o.min_ms);
    measure::quiesce(200);
    std::vector<double> all = d1.samples_ms;
    all.insert(all.end(), d2.samples_ms.begin(), d2.samples_ms.end());
    const double dense_ms = median(all);
    for (ExportRow& r : layer_rows) {
      r.dense_ms = dense_ms;
      if (r.error.empty() && r.sparse_ms > 0) r.speedup = dense_ms / r.sparse_ms;
      rows.push_back(r);
    }
  }
  return rows;
}

}  // namespace sparsemap::ml::prune
