// `sparsemap schedule` as a library call: Options (the command's flags, with its defaults), run()
// (the job table, the heuristics, then each algorithm at equal evaluations), Result, and
// to_json(), the one place the command's JSON is built. The CLI (apps/cmd_schedule.cpp) prints
// the table; the Python module's schedule() returns to_json as a dict.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/dse/schedule/gsharp.h"
#include "sparsemap/dse/schedule/heuristics.h"
#include "sparsemap/dse/schedule/simulator.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::dse::schedule {

// One field per flag of `sparsemap schedule` (but --json and --quiet, which only the CLI has),
// same names and defaults.
struct Options {
  std::string jobs;       // --jobs: a batch name (vision, ...) or a MAGMA job file (.csv)
  std::string platform;   // --platform: a preset (magma-s2, ...) or a platform .csv
  std::string job_table;  // --job-table: a MAGMA job-table CSV (in place of --jobs/--platform)
  std::string algo = "gsharp";  // a comma-separated list; "all" expands; the first is detailed
  std::string warm_start;       // the JSON of an earlier run (to_json), whose schedule seeds G#
  std::string plot;             // write_plot: FILE.png or .svg
  double bw = 1.0;              // DRAM bandwidth shared by the cores (bytes/cycle)
  int64_t budget = 10000;       // simulator calls per search
  uint64_t seed = 1;
  int population = kGsharpPopulation;
  std::string init = "random";      // random, or heuristics (their schedules join G#'s first one)
  double local_search = -1;         // share of G#'s budget for its climb; -1: G#'s default
  std::string core_draw = "speed";  // speed (weighted by 1 / latency) or uniform
  double climb_work_weight = -1;    // -1: G#'s default
  double warm_copies = -1;          // -1: warm schedules after the GA (G#'s default)
};

// `sparsemap schedule`'s flags and sparsemap.schedule's keywords (sparsemap/option_table.h):
// the Options' fields with their help, beside --json and --quiet of the CLI.
const options::Table<Options>& option_table();

// One algorithm's outcome (a heuristic named in --algo: its schedule, 1 evaluation).
struct AlgoRun {
  std::string name;
  SearchResult result;
  double wall_s = 0;
};

struct Result {
  Options options;
  JobTable table;
  std::string source;                  // the job table file, or "JOBS on PLATFORM"
  int64_t cost_model_evaluations = 0;  // cost-model calls that built the table (0: a job table)
  double lower_bound_cycles = 0;
  std::vector<HeuristicResult> heuristics;
  std::vector<AlgoRun> runs;  // in --algo's order; the first is reported in detail
  SimResult detail;           // the first run's best schedule, simulated with its trace
};

// Checks every option, builds the job table (a MAGMA job table, or jobs priced on a platform by
// the cost model), runs the heuristics and each algorithm. G#'s progress goes to `observer`
// after each generation (label: the algorithm, total: the budget), then on_search_done;
// Cancelled when it asks to stop. Throws InputError for bad options or files. Writes nothing.
Result run(const Options& o, search::Observer& observer);

// --plot: a Gantt chart of the first run (one row per core, one box per job, coloured by tenant)
// above the DRAM bandwidth in use over time, as r.options.plot (.png or .svg), its data beside
// it as PLOT.jobs.dat and PLOT.bw.dat, its script as PLOT.gp (rerun with `gnuplot PLOT.gp`).
// Nothing when no plot is named. A file there is replaced only when an earlier run wrote it;
// InputError otherwise, when they cannot be written, or when gnuplot fails (the data stays).
void write_plot(const Result& r);

// The JSON `sparsemap schedule --json` writes.
nlohmann::json to_json(const Result& r);

}  // namespace sparsemap::dse::schedule
