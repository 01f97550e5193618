// `sparsemap sparse-price`'s options (run.h: option_table).
#include "sparsemap/dse/sparse_price/run.h"

namespace sparsemap::dse::sparse_price {

const options::Table<Options>& option_table() {
  using Row = options::Option<Options>;
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      Row{"--hw",
          "Sparseloop design: its arch.yaml, or a folder holding arch.yaml and one *ERT.yaml",
          F(hw)}
          .required(),
      {"--ert", "the ERT (default: the one *ERT.yaml beside the arch)", F(ert)},
      Row{"--model", "zoo name or model file", F(model)}.required(),
      {"--prune", "nm:N:M | vnm:V:N:M | unstructured:S | cvse:V:S | bsr:HxW:S", F(prune)},
      {"--density", "other data spaces' densities (uniform), e.g. Inputs=0.5,Outputs=0.4",
       F(density)},
      {"--seed", "weights and mapper seed", F(seed)},
      {"--budget", "mapper evaluations per distinct layer", F(budget)},
      {"--algo",
       "mapper: auto (exhaustive up to 2,000,000 points, else gamma), gamma, exhaustive, or an "
       "optimiser of the search engine",
       F(algo)},
      {"--free-keep",
       "let the mapper choose what a level keeps beyond its keep list (default: a level with a "
       "keep list and no bypass list bypasses the rest)",
       F(free_keep)},
      {"--objective", "mapper objective latency|energy|edp (default: the design's, else edp)",
       F(objective)},
      {"--threads", "mapper and SpMM threads", F(threads)},
      {"--spmm", "measure each pruned layer's CPU SpMM against OpenBLAS", F(spmm)},
      {"--spmm-cols", "SpMM activation columns (at most N x P x Q)", F(spmm_cols)},
      {"--spmm-min-ms", "each timing's minimum total ms", F(spmm_min_ms)},
      SM_ZOO_OPTIONS(Options, zoo),
      {"--json", "write JSON to FILE or - (stdout)", options::CliValue{}},
      {"--quiet", "no progress line", options::CliSwitch{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::dse::sparse_price
