// The flags of `map` and `codesign` over both systems' options (commands.h).
#include "sparsemap/dse/timeloop/commands.h"

namespace sparsemap::dse::timeloop {

// Rows of both systems, mirrored, inside a table's braces (with Row, M and TL defined): --seed
// and --threads, and the zoo's sizes.
#define SM_SEED_THREADS_ROWS                                                                 \
  Row{"--seed", "Random seed", M(seed)}.also(TL(seed)),                                      \
      Row{"--threads", "Evaluation threads (results do not depend on it)", M(threads)}.also( \
          TL(threads))
#define SM_ZOO_ROWS                                                                          \
  Row{"--batch", options::kBatchHelp, M(zoo.batch)}.also(TL(zoo.batch)),                     \
      Row{"--seq", options::kSeqHelp, M(zoo.seq_len)}.also(TL(zoo.seq_len)).positive_only(), \
      Row{"--image", options::kImageHelp, M(zoo.image_size)}                                 \
          .also(TL(zoo.image_size))                                                          \
          .positive_only()

const options::Table<MapCommandOptions>& map_option_table() {
  using T = MapCommandOptions;
  using Row = options::Option<T>;
#define M(member) SM_FIELD(T, maestro.member)
#define TL(member) SM_FIELD(T, timeloop.member)
  static const options::Table<T> table = {
      Row{"--model", "Zoo model name or model file (.m, .csv, .onnx)", M(model)}.also(TL(model)),
      Row{"--mapping", "MAESTRO .m file: its layers (dataflows ignored)", M(mapping)}
          .not_with_timeloop(),
      Row{"--hw",
          "Accelerator: a preset name, a MAESTRO .m file, a YAML file, or a Timeloop architecture "
          "(.yaml with its constraints, or a parsed-processed-input.yaml)",
          M(hw)}
          .also(TL(hw))
          .required(),
      {"--ert", "Timeloop architecture: its Accelergy ERT (default: the *ERT.yaml beside it)",
       TL(ert)},
      {"--emit-timeloop",
       "Timeloop architecture: write each layer's best mapping as DIR/<layer>.map.yaml",
       TL(emit_dir)},
      {"--exhaustive-limit",
       "Timeloop architecture, --algo auto: enumerate map spaces of at most this many points",
       TL(exhaustive_limit)},
      Row{"--algo", "gamma, ga, random, sa, de, pso, cmaes, oneplusone, bo, exhaustive", M(algo)}
          .also(TL(algo)),
      Row{"--budget", "Samples (cost evaluations) per distinct layer", M(budget)}.also(TL(budget)),
      Row{"--objective", "latency, energy, edp or throughput", M(objective)}.also(TL(objective)),
      SM_SEED_THREADS_ROWS,
      Row{"--levels", "Maximum cluster levels (1 to 4)", M(levels)}.not_with_timeloop(),
      Row{"--divisors-only", "Only tiles that divide their parent", M(divisors_only)}
          .not_with_timeloop(),
      Row{"--maestro-compatible",
          "Only mappings MAESTRO runs as written (R, S untiled), for --emit-m",
          M(maestro_compatible)}
          .not_with_timeloop(),
      Row{"--constraint", "none, nvdla, eyeriss or shidiannao", M(constraint)}.not_with_timeloop(),
      {"--population", "GA population (0: from the budget)", M(population)},
      {"--mutation-rate", "GAMMA's per-level operator rate", M(mutation_rate)},
      {"--warm-start", "Seed each search with the best mappings of the most similar layers",
       M(warm_start)},
      Row{"--mapping-db", "Warm-start also from this mapping DB (JSON)", M(mapping_db)}
          .not_with_timeloop(),
      Row{"--spatial-seeds",
          "Open each search with this many of the layer's best spreads over the PEs (counted "
          "samples; docs/codesign.md)",
          M(spatial_seeds)}
          .not_with_timeloop(),
      Row{"--mapping-db-out", "Write the best mappings as a DB", M(mapping_db_out)}
          .not_with_timeloop(),
      Row{"--density", "Tensor densities: W=0.5 or a range W=0.2:0.8", M(density)}
          .not_with_timeloop(),
      Row{"--structure", "Sparsity structure: W=nm:2:4, W=cvse:8, ...", M(structure)}
          .not_with_timeloop(),
      Row{"--sparse-mode", "gate or skip", M(sparse_mode)}.not_with_timeloop(),
      Row{"--worst-case", "With a density range: optimise the worst density, not the mean",
          M(worst_case)}
          .not_with_timeloop(),
      Row{"--checkpoint", "Write the run's state to FILE (and FILE.search)", M(checkpoint)}.also(
          TL(checkpoint)),
      Row{"--checkpoint-every", "Samples between search checkpoints", M(checkpoint_every)}.also(
          TL(checkpoint_every)),
      Row{"--resume", "Continue a run from its checkpoint FILE", M(resume)}.also(TL(resume)),
      {"--json", options::kJsonHelp, options::CliValue{}},
      Row{"--emit-m", "Write the mapped network as MAESTRO files into DIR", M(emit_m)}
          .not_with_timeloop(),
      Row{"--compare-dataflows",
          "Also evaluate the built-in kcp_ws, xp_ws, yxp_os templates (same buffer rule)",
          M(compare)}
          .not_with_timeloop(),
      {"--quiet", "No progress bar", options::CliSwitch{}},
      Row{"--wide",
          "Every column of the per-layer table (PEs; each template's cycles and nJ), wider than "
          "120 columns",
          options::CliSwitch{}}
          .not_with_timeloop(),
      SM_ZOO_ROWS,
  };
#undef M
#undef TL
  return table;
}

const options::Table<CodesignCommandOptions>& codesign_option_table() {
  using T = CodesignCommandOptions;
  using Row = options::Option<T>;
#define M(member) SM_FIELD(T, maestro.member)
#define TL(member) SM_FIELD(T, timeloop.member)
  static const options::Table<T> table = {
      Row{"--model", "Zoo model name or model file (.m, .csv, .onnx)", M(model)}.also(TL(model)),
      Row{"--platform",
          "edge: 0.2 mm^2 and <= 200 PEs (DiGamma's example); cloud: 7 mm^2 and <= 16,384 PEs "
          "(ours, not DiGamma's)",
          M(platform)}
          .not_with_timeloop(),
      Row{"--area-budget-mm2", "Area budget (overrides the platform's)", M(area_budget)}.also(
          TL(area_budget_mm2)),
      Row{"--pe-limit", "Most PEs (overrides the platform's)", M(pe_limit)}.not_with_timeloop(),
      Row{"--pe-step", "PEs are a multiple of this (0: 8, or 64 above 1,024 PEs)", M(pe_step)}
          .not_with_timeloop(),
      Row{"--objective",
          "latency, energy or edp (summed over layers), or throughput (cycles per MAC)",
          M(objective)}
          .also(TL(objective)),
      Row{"--budget", "Samples: evaluations of a whole-model design", M(budget)}.also(TL(budget)),
      SM_SEED_THREADS_ROWS,
      Row{"--hw",
          "Template accelerator for bandwidths, energies, clock and area constants; its PEs and "
          "buffers are searched",
          M(hw)}
          .also(TL(hw)),
      Row{"--buffers", "need: L1/L2 sized to what the mappings need; genes: searched", M(buffers)}
          .not_with_timeloop(),
      Row{"--levels", "Maximum cluster levels per mapping (1 to 4)", M(levels)}.not_with_timeloop(),
      Row{"--maestro-compatible", "Only mappings MAESTRO runs as written (R, S untiled)",
          M(maestro_compatible)}
          .not_with_timeloop(),
      Row{"--population", "GA population (0: from the budget; digamma: each layer's GA)",
          M(population)}
          .not_with_timeloop(),
      Row{"--baselines",
          "all, none, or a list of ga, random, sa, de, pso, cmaes, oneplusone, bo, fixed-gamma, "
          "fixed-gamma-seeds (the grid's GAMMA opened with the spatial seeds)",
          M(baselines)}
          .not_with_timeloop(),
      Row{"--checkpoint", "Write the searches' state to FILE (baselines: FILE.NAME)", M(checkpoint)}
          .not_with_timeloop(),
      Row{"--checkpoint-every", "Samples between checkpoints", M(checkpoint_every)}
          .not_with_timeloop(),
      Row{"--resume", "Continue from the checkpoint FILE", M(resume)}.not_with_timeloop(),
      {"--json", options::kJsonHelp, options::CliValue{}},
      Row{"--plot",
          "Plot the latency-area Pareto front (FILE.png or .svg; also writes FILE.csv and FILE.gp "
          "beside it, replacing them)",
          options::CliValue{}}
          .not_with_timeloop(),
      Row{"--table",
          "DiGamma's table: every --models on every --platforms, speedup over the best baseline "
          "and geomean",
          M(table)}
          .not_with_timeloop(),
      Row{"--models", "Models of --table (comma-separated)", M(models)}.not_with_timeloop(),
      Row{"--platforms", "Platforms of --table", M(platforms)}.not_with_timeloop(),
      {"--quiet", "No progress line", options::CliSwitch{}},
      Row{"--wide", "Also each layer's mapping in the table (wider than 120 columns)",
          options::CliSwitch{}}
          .not_with_timeloop(),
      SM_ZOO_ROWS,
      {"--ert", "Timeloop template: its Accelergy ERT (default: the *ERT.yaml beside it)", TL(ert)},
      {"--art", "Timeloop template: its Accelergy ART (default: the *ART.yaml beside it)", TL(art)},
      {"--map-budget", "Timeloop template: loop-nest evaluations per layer for each design",
       TL(map_budget)},
      {"--final-budget",
       "Timeloop template: evaluations per layer mapping the template and the best design for "
       "the figures reported",
       TL(final_budget)},
  };
#undef M
#undef TL
  return table;
}

#undef SM_SEED_THREADS_ROWS
#undef SM_ZOO_ROWS

}  // namespace sparsemap::dse::timeloop
