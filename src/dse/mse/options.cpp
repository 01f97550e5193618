// `sparsemap mse`'s options (run.h: option_table).
#include "sparsemap/dse/mse/run.h"

namespace sparsemap::dse::mse {

const options::Table<Options>& option_table() {
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      {"--models", "Comma list of zoo models (or model files)", F(models)},
      {"--hw", "Accelerator: a preset name or file", F(hw)},
      {"--algos", "Comma list: gamma, ga, random, sa, de, pso, cmaes, ...", F(algos)},
      {"--budgets", "Comma list of samples per layer", F(budgets)},
      {"--seeds", "Seeds per algorithm and budget", F(seeds)},
      {"--seed", "First seed", F(seed)},
      {"--objective", "latency, energy, edp or throughput", F(objective)},
      {"--threads", "Evaluation threads", F(threads)},
      {"--levels", "Maximum cluster levels (1 to 4)", F(levels)},
      {"--maestro-compatible", "Only mappings MAESTRO runs as written (R, S untiled)",
       F(maestro_compatible)},
      {"--max-layers", "Only the first N distinct layers per model", F(max_layers)},
      {"--json", options::kJsonHelp, options::CliValue{}},
      {"--csv", "Write the convergence curves as CSV", F(csv)},
      {"--plot",
       "Render the convergence curves to FILE.png or FILE.svg (also writes FILE.csv, FILE.dat "
       "and FILE.gp beside it, replacing them)",
       F(plot)},
      {"--population", "GA/GAMMA population (0: from the budget)", F(population)},
      {"--mutation-rate", "GAMMA's per-level operator rate", F(mutation_rate)},
      {"--quiet", "No progress lines", options::CliSwitch{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::dse::mse
