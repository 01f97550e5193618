// `sparsemap spmm-bench` as a library call: times the sparse kernels against OpenBLAS sgemm on
// the same matrices, in the same process, and reports speedups and the break-even sparsity of
// each format. Options (the command's flags, with its defaults), plan() and run(), Result and
// to_json() (the one place the command's JSON is built). The CLI (apps/cmd_spmm_bench.cpp)
// prints the tables; the Python module's spmm_bench() returns to_json as a dict.
//
// The dense baseline must be measured with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset: the
// machines here set them for old OpenBLAS builds, which makes OpenBLAS pick a kernel up to 2x
// slower (run it as `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE sparsemap spmm-bench ...`;
// nothing here changes them). On a machine shared with other busy processes, multi-threaded
// timings are unfair (see busy_machine_warning).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::measure::spmm_bench {

// One field per flag of `sparsemap spmm-bench` (but --detail and --json, which only the CLI
// has), same names and defaults.
struct Options {
  std::string shapes = "dl";                           // dl (dl:256), dl:N, or M,K,N;M,K,N;...
  std::string formats = "csr,cvse:4,cvse:8";           // comma-separated format specs
  std::string sparsity = "0.5,0.7,0.8,0.9,0.95,0.98";  // target sparsities in [0, 1]
  int threads = 0;                                     // 0: all (omp_get_max_threads)
  uint64_t seed = 1;
  double min_ms = 60;           // minimum time per measurement (ms)
  int min_reps = 5;             // minimum repeats per measurement
  std::string stat = "median";  // statistic of the repeats: median or min
};

// `sparsemap spmm-bench`'s flags and sparsemap.spmm_bench's keywords (sparsemap/option_table.h):
// the Options' fields with their help, beside --detail and --json of the CLI.
const options::Table<Options>& option_table();

// The options checked and parsed: what run() measures.
struct Plan {
  Options options;
  std::vector<GemmShape> shapes;
  std::vector<sparse::FormatSpec> specs;
  std::vector<double> sparsities;
  int threads = 1;  // resolved (never 0)
};

// Checks every option in the command's order (--shapes, --formats, --sparsity, --threads).
// Throws InputError as the CLI reports it.
Plan plan(const Options& o);

// One kernel measurement: a shape, a format, a target sparsity.
struct Row {
  GemmShape shape;
  sparse::FormatSpec spec;
  double target = 0;                    // the target sparsity (a format's own for nm / vnm)
  double sparsity = 0;                  // the mask's actual sparsity
  double ms = 0, dense_ms = 0;          // by --stat (ms)
  double min_ms = 0, dense_min_ms = 0;  // the minima (ms)
  double max_err = 0;                   // largest error against OpenBLAS (SpmmRun::max_rel_err)
  int64_t footprint = 0, stored = 0;    // bytes stored, values stored
};

// One shape's dense sgemm (before and after its sparse runs, together).
struct Dense {
  GemmShape shape;
  double ms = 0;      // by --stat
  double gflops = 0;  // 2 M K N / ms
};

// One format: the geomean speedup over the shapes at each target sparsity (ascending).
struct FormatSummary {
  struct Point {
    double sparsity = 0, geomean_speedup = 0;
    size_t shapes = 0;
  };
  sparse::FormatSpec spec;
  std::vector<Point> geomean;
  double break_even = -1;  // where the geomean speedup reaches 1 (break_even); -1: never
  bool wins_at_every_tested_sparsity = false;
};

struct Result {
  Options options;
  int threads = 1;
  std::string isa, openblas_core, openblas_config;
  std::string openblas_coretype_env;  // OPENBLAS_CORETYPE when the run started ("" unset)
  std::vector<GemmShape> shapes;
  std::vector<double> sparsities;
  std::vector<sparse::FormatSpec> specs;
  std::vector<Dense> dense;            // per shape
  std::vector<Row> rows;               // per shape, format and target sparsity
  std::vector<FormatSummary> summary;  // per format, in --formats' order
  double dense_geomean_gflops = 0;
};

// Sparsity where the geomean speedup reaches 1, interpolated in log(speedup) between the
// points of `sweep` ((sparsity, geomean speedup), ascending sparsity); -1 when no point
// beats dense; the lowest point when all do (the break-even is then at or below it).
double break_even(const std::vector<std::pair<double, double>>& sweep);

// Measures every shape: dense sgemm timed before and after every (format, sparsity) run, so
// slow drifts hit both alike. Before each kernel a progress report (done of total: the
// measurements so far, item of items: the shape, label "MxKxN WHAT", WHAT being "dense" or
// "FORMAT at S%"); after each shape on_search_done and observer.on_note("  MxKxN (NAME): dense
// T ms, G GFLOP/s"). observer.stop_requested() is polled between shapes and stops the run
// (search::Cancelled), as does cancelled(). Writes nothing.
Result run(const Plan& p, search::Observer& observer);
// run(plan(o), observer).
Result run(const Options& o, search::Observer& observer);

// The JSON `sparsemap spmm-bench --json` writes.
nlohmann::json to_json(const Result& r);

}  // namespace sparsemap::measure::spmm_bench
