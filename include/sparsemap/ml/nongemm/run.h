// `sparsemap nongemm` (NonGEMM Bench) as a library call: Options (the command's flags, with its
// defaults), run() (profile one model or the suite in libtorch, and its horizon on faster GEMMs
// or a modelled accelerator), Result, to_json() (the one place the command's JSON is built),
// and the trace and plot files. The CLI (apps/cmd_nongemm.cpp) prints the tables
// (profile_text, suite_text); the Python module `sparsemap._ml` returns to_json as a dict.
// The header is torch-free; the code is in sparsemap_ml, but for option_table (options.cpp,
// in the core).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/ml/nongemm/profile.h"
#include "sparsemap/ml/nongemm/report.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::ml::nongemm {

// One field per flag of `sparsemap nongemm` but --json and --quiet, same names and defaults.
struct Options {
  std::string model;  // a suite model (model_infos()); or all
  bool all = false;   // the whole suite
  int64_t batch = 1;
  int64_t seq = 0;                        // tokens per sequence (0: the model's default)
  int64_t layers = 0;                     // blocks to run (0: all)
  int threads = 0;                        // intra-op threads (0: libtorch's)
  int iters = 5;                          // active (recorded) runs
  std::vector<int> schedule = {1, 2, 2};  // SKIP,WAIT,WARMUP runs before the active ones
  uint64_t seed = 1;
  std::vector<double> gemm_speedup;  // horizon: GEMMs F times faster
  std::string hw;                    // horizon on an accelerator ("": none)
  std::string dataflow = "best";     // with hw: a dataflow template or best
  std::string taxonomy;              // taxonomy JSON ("": the built-in one)
  std::string trace;                 // write_trace: a Chrome trace of the active runs
  std::string plot;                  // write_plot: the stacked-bar plot (.png or .svg)
  size_t top = 15;                   // operators listed in the table (profile_text)
  bool tiny = false;                 // tiny configurations (tests)
  std::string stat = "mean";         // mean, median or min over the active runs
  bool reuse_memory = true;          // keep freed memory in the process (ProfileOptions)
};

// `sparsemap nongemm`'s flags and sparsemap.nongemm's keywords (sparsemap/option_table.h):
// the Options' fields with their help, beside --json and --quiet of the CLI. Defined in
// options.cpp, torch-free and compiled into the core library: `sparsemap` built without
// libtorch registers these flags and hands the command over.
const options::Table<Options>& option_table();

struct Result {
  Options options;
  std::vector<Profile> profiles;    // one per model (the suite's order with all)
  std::vector<HwHorizon> horizons;  // with hw: one per profile
};

// Checks every option (InputError at "<flag --NAME>", in the CLI's order), then profiles each
// model. A busy machine is a warning to `observer` before the first profile; progress before
// each model's profile (item of items the model, label its name, done = total = 0); Cancelled
// when it asks to stop (between models). Writes nothing.
Result run(const Options& o, search::Observer& observer);

// The JSON `sparsemap nongemm --json` writes: profile_json of the model, or with all
// {"batch", "models": [profile_json...]}.
nlohmann::json to_json(const Result& r);

// Options::trace: the Chrome trace of the (one) model's active runs; nothing when not named.
// InputError when it cannot be written.
void write_trace(const Result& r);
// Options::plot: write_group_plot of the profiles; nothing when not named.
void write_plot(const Result& r);

}  // namespace sparsemap::ml::nongemm
