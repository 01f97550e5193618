// `sparsemap report`'s options (run.h: option_table).
#include "sparsemap/report/run.h"

namespace sparsemap::report {

const options::Table<Options>& option_table() {
  using Row = options::Option<Options>;
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      Row{"--model", "Zoo model name or model file (.m, .csv, .onnx)", F(model)}.required(),
      Row{"--hw", "Accelerator: a preset name, a MAESTRO .m file or a YAML file", F(hw)}.required(),
      {"--out", "The HTML file to write (its folder must exist)", F(out)},
      {"--budget", "Mapper (GAMMA) samples per distinct layer", F(budget)},
      {"--codesign-budget", "Co-design (DiGamma) whole-model designs evaluated",
       F(codesign_budget)},
      {"--platform", "Co-design area budget and PE limit: edge or cloud", F(platform)},
      {"--seed", "Random seed (searches, weights, activations)", F(seed)},
      {"--threads", "Threads for the searches, the kernels, OpenBLAS and libtorch", F(threads)},
      {"--spmm-formats", "Sparse formats timed: csr, cvse:V, bsr:HxW, nm:N:M, vnm:V:N:M",
       F(spmm_formats)},
      {"--spmm-sparsity", "Target sparsities in [0, 1)", F(spmm_sparsity)},
      {"--spmm-cols", "Activation columns per product (cap)", F(spmm_cols)},
      {"--spmm-shapes", "Weight shapes timed (those with the most MACs; 0: none)", F(spmm_shapes)},
      {"--spmm-min-ms", "Minimum timed ms per measurement", F(spmm_min_ms)},
      {"--profile-iters", "NonGEMM: recorded libtorch inferences (after one warm-up)",
       F(profile_iters)},
      {"--no-profile", "NonGEMM: skip the libtorch profile", F(no_profile)},
      {"--json", "Also write the report's data as JSON to FILE, or - for stdout",
       options::CliValue{}},
      {"--quiet", "No progress and no summary", options::CliSwitch{}},
      SM_ZOO_OPTIONS(Options, zoo),
  };
#undef F
  return table;
}

}  // namespace sparsemap::report
