// `sparsemap schedule`'s options (run.h: option_table).
#include "sparsemap/dse/schedule/run.h"

namespace sparsemap::dse::schedule {

const options::Table<Options>& option_table() {
  using Row = options::Option<Options>;
#define F(member) SM_FIELD(Options, member)
  static const options::Table<Options> table = {
      {"--jobs", "vision, language, recommendation, mix, or a MAGMA job file (.csv)", F(jobs)},
      {"--platform",
       "magma-s2, magma-s3, magma-s5, magma-s7, or a platform .csv "
       "(name,pes,dataflow[,l1_bytes,l2_bytes])",
       F(platform)},
      {"--bw", "DRAM bandwidth shared by the cores (bytes/cycle; MAGMA's unit for --job-table)",
       F(bw)},
      {"--algo",
       "gsharp, magma-ga, a heuristic (FCFS-GREEDY, ..., herald, prema, ai-mt), ga, random, sa, "
       "de, pso, cmaes, oneplusone, or all; a comma-separated list runs each (the first is "
       "reported in detail)",
       F(algo)},
      {"--budget", "Evaluations (simulator calls) per search", F(budget)},
      {"--seed", "Random seed", F(seed)},
      {"--population", "G# population", F(population)},
      {"--job-table", "MAGMA job-table CSV (job, core, latency_cycles, req_dram_bw, ...)",
       F(job_table)},
      {"--warm-start", "JSON of an earlier run (another batch): its schedule seeds G#",
       F(warm_start)},
      {"--json", options::kJsonHelp, options::CliValue{}},
      {"--plot", "Gantt chart with the bandwidth in use (FILE.png or .svg)", F(plot)},
      Row{"--init", "G#'s first generation: random, or heuristics (their schedules join it)",
          F(init)}
          .one_of({"random", "heuristics"}),
      {"--local-search",
       "Share of G#'s budget for its final hill climbing (-1: 0.2, or 0.4 with --warm-start)",
       F(local_search)},
      {"--climb-work-weight",
       "Weight of the mean busy cycles in the climb's acceptance (-1: default)",
       F(climb_work_weight)},
      {"--warm-copies",
       "Put the warm schedules into G#'s first generation with this share of mutated copies (an "
       "experiment of docs/gsharp.md; -1: default, after the GA)",
       F(warm_copies)},
      Row{"--core-draw", "G#'s random core for a job: speed (weighted by 1 / latency) or uniform",
          F(core_draw)}
          .one_of({"speed", "uniform"}),
      {"--quiet", "No progress line", options::CliSwitch{}},
  };
#undef F
  return table;
}

}  // namespace sparsemap::dse::schedule
