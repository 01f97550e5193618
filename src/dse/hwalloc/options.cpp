// `sparsemap hwalloc`'s options (run.h: option_table).
#include "sparsemap/dse/hwalloc/run.h"

namespace sparsemap::dse::hwalloc {

const options::Table<Options>& option_table() {
  using Row = options::Option<Options>;
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      Row{"--model", "zoo model or ConfuciuX model CSV (K,C,Y,X,R,S,T)", F(model)}.required(),
      {"--dataflow", "dla|shi|eye|mixed (depthwise layers use dpt)", F(dataflow)},
      {"--platform", "cloud (0.5), iot (0.1), eiot (0.05)", F(platform)},
      {"--fraction", "constraint fraction in [0,1] (overrides --platform)", F(fraction)},
      {"--constraint", "area|power", F(constraint)},
      {"--objective", "latency|energy", F(objective)},
      {"--deployment", "pipelined (sum over layers)|sequential (max)", F(deployment)},
      {"--edges",
       "padded (MAESTRO parity: an edge tile costs a full tile)|physical (the shared cost "
       "model's rule: a partial tile costs what it needs)",
       F(edges)},
      {"--method", "confuciux|rl|a2c|ga|sa|bo|random", F(method)},
      {"--budget", "cost-model calls, counted as --budget-counts says (every method spends it)",
       F(budget)},
      {"--budget-counts",
       "lookups (every cost-model lookup, cache hits included: a design of L layers costs "
       "L)|states (distinct states only, ConfuciuX's exp_table count)",
       F(budget_counts)},
      {"--seed", "seed", F(seed)},
      {"--rl-fraction", "confuciux: share of the calls for RL", F(rl_fraction)},
      {"--episodes",
       "confuciux: episode cap of its RL stage (0: none; rl and a2c run to the budget)",
       F(episodes)},
      {"--max-designs", "designs evaluated at most (RL episodes + GA individuals; 0: 2 x budget)",
       F(max_designs)},
      {"--rl-stall",
       "confuciux's RL stage (rl, a2c: only with --budget-counts states) ends after this many "
       "episodes without a new state or a better design",
       F(rl_stall)},
      {"--stall",
       "with --budget-counts states: GA/baselines end after this many designs without a new "
       "state or a better one",
       F(stall)},
      {"--checkpoint", "write the run state to FILE", F(checkpoint)},
      {"--checkpoint-every", "episodes / generations / batches between checkpoints",
       F(checkpoint_every)},
      {"--resume", "continue from a checkpoint of the same run", F(resume)},
      {"--json", "write JSON to FILE or - (stdout)", options::CliValue{}},
      {"--plot", "convergence plot (PNG or SVG)", options::CliValue{}},
      {"--quiet", "no progress line", options::CliSwitch{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::dse::hwalloc
