// `sparsemap report` as a library call: Options (the command's flags, with its defaults), run()
// (load the model and accelerator, build every section of the page), Result (the Report),
// to_json() (report_json, the one place the command's JSON is built) and write_outputs() (the
// HTML page). The CLI (apps/cmd_report.cpp) prints the summary; the Python module's report()
// returns to_json as a dict. The measured NonGEMM profile needs libtorch: it comes in through
// Options::profiler (ml::nongemm::report_profiler()), so this folder stays torch-free.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sparsemap/option_table.h"
#include "sparsemap/report/report.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/workload/model.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::report {

struct Options;

// Measures the model in libtorch for the NonGEMM section (ml::nongemm::report_profiler()):
// `model_name` is the loaded model's name; a message before the (long) profile goes to
// `observer` (see run()). Called only when Options::no_profile is false. A model it cannot
// profile is not an error: the section's why_absent says why.
using NonGemmProfiler = std::function<NongemmMeasured(
    const Options& o, const std::string& model_name, search::Observer& observer)>;

// One field per flag of `sparsemap report` but --json and --quiet, same names and defaults.
struct Options {
  std::string model;                // --model: a zoo name or a model file (io::load_model)
  std::string hw;                   // --hw: a preset name or an accelerator file (io::load_arch)
  std::string out = "report.html";  // write_outputs: the HTML file (its folder must exist)
  int64_t budget = 300, codesign_budget = 300;
  std::string platform = "edge";
  uint64_t seed = 1;
  int threads = 1;
  std::string spmm_formats = "csr,cvse:8", spmm_sparsity = "0.5,0.7,0.9";  // comma lists
  int64_t spmm_cols = 128, spmm_shapes = 8;
  double spmm_min_ms = 4;
  int profile_iters = 3;
  bool no_profile = false;
  workload::ZooOptions zoo;  // --batch, --seq, --image
  // In place of `model` when set: a model held in memory (a Python object); the page's
  // reproducing commands then name it by its name.
  std::optional<workload::Model> model_object;
  // The NonGEMM profile; empty: the section says this build has no libtorch (as `sparsemap`
  // built without it does, --no-profile or not).
  NonGemmProfiler profiler;
};

// `sparsemap report`'s flags and sparsemap.report's keywords (sparsemap/option_table.h): the
// Options' fields with their help, beside --json and --quiet of the CLI.
const options::Table<Options>& option_table();

// The flags' checks, before any work, in the CLI's order: --out, then `json` (the caller's
// --json file: "" or "-" for none), --profile-iters and the report's own options
// (report::check_options). InputError at "<flag --NAME>" or at an output path that cannot be
// created (a folder, or a file in a folder that does not exist).
void check_options(const Options& o, const std::string& json = "");

// The report: Report::options holds what build_report ran with.
struct Result {
  Options options;  // as given (model_object and profiler dropped)
  Report report;
};

// Checks the options, loads the accelerator and the model, builds every section and, unless
// --no-profile, the measured NonGEMM profile (Options::profiler). Progress goes to `observer`
// after each step of a section (label "mappings", "codesign" or "spmm", done of total its
// steps), and once before the NonGEMM profile (label "nongemm: profiling NAME in libtorch",
// done = total = 0); on_search_done() at the end. Cancelled when it asks to stop. Throws
// InputError for bad options or files. Writes nothing.
Result run(const Options& o, search::Observer& observer);

// The JSON `sparsemap report --json` writes (report_json).
nlohmann::json to_json(const Result& r);

// The HTML page (render_html) to Options::out; InputError when it cannot be written.
void write_outputs(const Result& r);

}  // namespace sparsemap::report
