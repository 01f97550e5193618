// The option tables of `sparsemap prune-study` (prune_study.h) and `sparsemap spmm-bench`
// (spmm_bench_run.h): help strings as the commands register them, in their order.
#include "sparsemap/measure/prune_study.h"
#include "sparsemap/measure/spmm_bench_run.h"

namespace sparsemap::measure {

const options::Table<prune_study::Options>& prune_study::option_table() {
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      {"--shapes", "dl, dl:N, or M,K,N;M,K,N;...", F(shapes)},
      {"--weights", "Study this weight matrix (.npy or .mtx) instead", F(weights)},
      {"--n", "Columns of B with --weights", F(n)},
      {"--v", "Column-vector lengths to try", F(vs)},
      {"--sparsity", "Comma-separated sparsities in [0, 1]", F(sparsity)},
      {"--budget", "Adaptive pruning's error budget beta: err(V) <= (1 + beta) err(unstructured)",
       F(budget)},
      {"--threads", "Threads for the kernels and OpenBLAS (0 = all)", F(threads)},
      {"--seed", "Seed of the random matrices", F(seed)},
      {"--min-ms", "Minimum time per measurement, ms", F(min_ms)},
      {"--json", options::kJsonHelp, options::CliValue{}},
      {"--plot",
       "Render speedup vs sparsity to FILE.png or FILE.svg (gnuplot; also writes FILE.dat "
       "and FILE.gp beside it, replacing them)",
       F(plot)},
  };
#undef F
  return table;
}

const options::Table<spmm_bench::Options>& spmm_bench::option_table() {
  using Row = options::Option<Options>;
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      {"--shapes", "dl (dl:256), dl:N, or M,K,N;M,K,N;...", F(shapes)},
      {"--formats", "Comma-separated: csr, cvse:V, bsr:HxW, nm:N:M[:col], vnm:V:N:M, dense",
       F(formats)},
      {"--sparsity", "Comma-separated target sparsities in [0, 1]", F(sparsity)},
      {"--threads", "Threads for both kernels and OpenBLAS (0 = all)", F(threads)},
      {"--seed", "Seed of the random matrices", F(seed)},
      {"--min-ms", "Minimum time per measurement, ms (median of repeats)", F(min_ms)},
      {"--min-reps", "Minimum repeats per measurement", F(min_reps)},
      Row{"--stat", "Statistic of the repeats: median or min", F(stat)}.one_of({"median", "min"}),
      {"--detail", "Print one line per shape, format and sparsity", options::CliSwitch{}},
      {"--json", options::kJsonHelp, options::CliValue{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::measure
