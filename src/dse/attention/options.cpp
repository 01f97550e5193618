// `sparsemap attention`'s options (run.h: option_table).
#include "sparsemap/dse/attention/run.h"

namespace sparsemap::dse::attention {

const options::Table<Options>& option_table() {
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      {"--model", "bert, trxl, t5, xlm (FLAT's workloads) or a zoo transformer", F(model)},
      {"--seq", "Sequence lengths, e.g. 512,4K,64K,1M", F(seq)},
      {"--batch", "Batch size", F(batch)},
      {"--hw", "flat-edge, flat-cloud, another preset or an arch file", F(hw)},
      {"--objective", "latency or energy", F(objective)},
      {"--algo", "FLAT search: exhaustive, or ga, random, sa, de, pso, cmaes, oneplusone, bo",
       F(algo)},
      {"--budget", "Samples of a non-exhaustive FLAT search", F(budget)},
      {"--map-budget", "GAMMA samples per GEMM mapping (QK, AV, projections, FFN)", F(map_budget)},
      {"--seed", "Random seed", F(seed)},
      {"--heads", "Override the model's heads", F(heads)},
      {"--head-dim", "Override E and F (head dimension)", F(head_dim)},
      {"--v-head-dim", "Override F (V head dimension)", F(v_head_dim)},
      {"--d-model", "Override the model dimension", F(d_model)},
      {"--ffn", "Override the FFN dimension", F(ffn)},
      {"--json", options::kJsonHelp, options::CliValue{}},
      {"--plot", "Speedup and DRAM traffic vs N, log x (FILE.png or .svg)", options::CliValue{}},
      {"--table",
       "The four models on flat-edge and flat-cloud (512..64K; cloud +256K, 1M) beside the "
       "paper's 1.94x/1.76x and 49%/42%",
       F(table)},
      {"--quiet", "No progress line", options::CliSwitch{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::dse::attention
