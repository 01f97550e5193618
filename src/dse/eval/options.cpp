// `sparsemap eval`'s and `sparsemap timeloop`'s options (run.h: option_table; timeloop.h:
// timeloop_option_table).
#include "sparsemap/dse/eval/run.h"
#include "sparsemap/dse/eval/timeloop.h"

namespace sparsemap::dse::eval {

const options::Table<Options>& option_table() {
  using Row = options::Option<Options>;
#define F(member) SM_FIELD(Options, member)
  // Each row but --json and --timeloop is refused beside --timeloop (Timeloop's files carry the
  // architecture, problem and mapping).
  static const options::Table<Options> table = [] {
    options::Table<Options> t = {
        {"--hw", "Accelerator: a preset name, a MAESTRO .m file or a YAML file", F(hw)},
        {"--mapping", "MAESTRO DFSL file with layers and dataflows", F(mapping)},
        {"--model", "Zoo model name or model file (with --dataflow)", F(model)},
        {"--dataflow", "Built-in template for --model: kcp_ws, xp_ws, yxp_os, a comma list, or all",
         F(dataflow)},
        SM_ZOO_OPTIONS(Options, zoo),
        {"--enforce-buffers",
         "A mapping that needs more L1/L2 than the accelerator has is infeasible",
         F(enforce_buffers)},
        {"--json", options::kJsonHelp, options::CliValue{}},
        {"--emit-m", "Write each evaluated layer (and accelerator.m) as MAESTRO files into DIR",
         F(emit_m)},
        {"--density", "Tensor densities: W=0.25,I=1.0 or W=0.1:0.5", F(density)},
        {"--structure", "Sparsity structure: W=nm:2:4, W=cvse:8, W=block:4x4, W=unstructured",
         F(structure)},
        {"--sparse-mode",
         "skip (ineffectual MACs cost neither time nor energy; compressed storage) or gate (they "
         "take their cycle, cost no energy)",
         F(sparse_mode)},
        Row{"--timeloop",
            "Timeloop/Accelergy YAML files: evaluate them as `sparsemap timeloop` does",
            F(timeloop)},
    };
    for (Row& row : t)
      if (row.name() != "--json" && row.name() != "--timeloop") row.not_with_timeloop();
    return t;
  }();
#undef F
  return table;
}

const options::Table<TimeloopOptions>& timeloop_option_table() {
  using Row = options::Option<TimeloopOptions>;
#define F(member) SM_FIELD(TimeloopOptions, member)
  static const options::Table<TimeloopOptions> table = {
      Row{"files", "Timeloop/Accelergy YAML files", F(files)}.required(),
      {"--hw",
       "Accelerator preset or MAESTRO/YAML file as the architecture and ERT (its three-level "
       "hierarchy: DRAM, L2, L1, MAC; `sparsemap arch --hierarchy` shows it)",
       F(hw)},
      {"--no-leakage",
       "Price no leakage (the ERT's leak actions dropped), as timeloop-model 3.0.3 does",
       F(no_leakage)},
      {"--timeloop-3.0.3",
       "Price and report sparse inputs as timeloop-model 3.0.3 does (its ERT fallbacks for gated, "
       "skipped and metadata actions, utilisation with gated computes, no leakage; "
       "docs/sparseloop.md)",
       F(timeloop_303)},
      {"--json", options::kJsonHelp, options::CliValue{}},
      {"--emit-map", "Write the mapping it evaluated as Timeloop's map.yaml to FILE", F(emit_map)},
  };
#undef F
  return table;
}

}  // namespace sparsemap::dse::eval
