// `sparsemap nm-study`'s options (run.h: option_table). Torch-free: compiled into the core
// library, since `sparsemap` built without libtorch registers these flags and hands the command
// over to `sparsemap-ml`.
#include "sparsemap/ml/nm_study/run.h"

namespace sparsemap::ml::nm_study {

const options::Table<Options>& option_table() {
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      {"--models", "vit-tiny,char-gpt", F(models)},
      {"--recipes", "Recipes, comma-separated", F(recipes)},
      {"--ratios", "N:M ratios, comma-separated", F(ratios)},
      {"--seeds", "Seeds per cell (1 with --quick)", F(seeds)},
      {"--seed", "First seed", F(seed)},
      {"--quick", "Small models, few steps, one seed (the whole grid in under an hour on 2 cores)",
       F(quick)},
      {"--vit-epochs", "ViT epochs (0: 15, quick 3 on 20k images)", F(vit_epochs)},
      {"--gpt-steps", "char-GPT steps (0: 3000, quick 300)", F(gpt_steps)},
      {"--threads", "libtorch threads (0: all cores; 1 with --quick)", F(threads)},
      {"--data-dir", "Folder of Fashion-MNIST's IDX files", F(data_dir)},
      {"--results", "Results JSON, written after every cell and read back to skip finished cells",
       F(results)},
      {"--plot",
       "Plot FILE.png or FILE.svg with gnuplot (also writes FILE.dat and FILE.gp beside it, "
       "replacing them)",
       F(plot)},
      {"--json", "Also write the results JSON to FILE, or - for stdout", options::CliValue{}},
      {"--quiet", "No progress or table", options::CliSwitch{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::ml::nm_study
