// `sparsemap prune-study` as a library call: the hardware-aware pruning study of Castro et al.
// (PACT 2022) on the CPU. For each shape and sparsity it prunes the weights unstructured
// (magnitude, run with the CSR kernel) and in column vectors of each length V (run with the CVSE
// kernel), times every kernel against OpenBLAS sgemm, and reports the best V per sparsity, the
// speed that performance-aware pruning gains over unstructured pruning at equal sparsity, the
// reconstruction error each pruning costs, and what adaptive V selection picks (adaptive.h).
// Options (the command's flags, with its defaults), plan() and run(), Result, to_json() (the one
// place the command's JSON is built) and write_plot(). The CLI (apps/cmd_prune_study.cpp) prints
// the table; the Python module's prune_study() returns to_json as a dict.
// Measure with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (see spmm_bench_run.h).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::measure::prune_study {

// One field per flag of `sparsemap prune-study` (but --json, which only the CLI has), same
// names and defaults.
struct Options {
  std::string shapes = "dl";       // dl, dl:N, or M,K,N;M,K,N;...
  std::string weights;             // .npy or .mtx: study this matrix instead of random ones
  int64_t n = 256;                 // columns of B with --weights
  std::string vs = "2,4,8,16,32";  // --v: column-vector lengths (1: unstructured, dropped)
  std::string sparsity = "0.5,0.6,0.7,0.8,0.9,0.95";
  double budget = 0.1;  // adaptive pruning's error budget beta
  int threads = 0;      // 0: all (omp_get_max_threads)
  uint64_t seed = 1;
  double min_ms = 40;  // minimum time per measurement (ms)
  std::string plot;    // write_plot: FILE.png or .svg
};

// `sparsemap prune-study`'s flags and sparsemap.prune_study's keywords
// (sparsemap/option_table.h): the Options' fields with their help, beside --json of the CLI.
const options::Table<Options>& option_table();

// The options checked and parsed: what run() measures.
struct Plan {
  Options options;
  std::vector<GemmShape> shapes;
  DenseMatrix weights;  // the --weights matrix (0 rows: random weights per shape)
  std::vector<int> vs;  // column-vector lengths, without 1
  std::vector<double> sparsities;
  int threads = 1;  // resolved (never 0)
};

// Checks every option in the command's order (shapes / weights and --n, --v, --sparsity,
// --budget, --threads) and reads the --weights matrix. Throws InputError as the CLI reports it.
Plan plan(const Options& o);

// One shape, one sparsity, one pruning.
struct Point {
  size_t shape = 0;  // index into Result::shapes
  double sparsity = 0;
  int v = 1;  // 1: unstructured (CSR kernel); else column vectors of V (CVSE kernel)
  double ms = 0, dense_ms = 0;  // the kernel's and the shape's dense sgemm time (median, ms)
  double rel_error = 0;         // ||W - W_pruned|| / ||W||
};

// The adaptive rule's choice for one shape at one sparsity.
struct AdaptivePick {
  size_t shape = 0;
  int v = 1;
  double ms = 0, rel_error = 0, speedup_vs_unstructured = 0;
};

// One sparsity of the sweep, aggregated over the shapes.
struct SparsitySummary {
  double sparsity = 0;
  std::map<int, double> geomean_speedup;  // V (1: unstructured) -> geomean speedup over dense
  int best_v = 1;                         // the V of highest geomean speedup
  double gain_vs_unstructured = 0;        // geomean of unstructured ms / best-V ms
  double adaptive_gain_vs_unstructured = 0;
  double adaptive_error_ratio_geomean = 0;  // geomean of err(pick) / err(unstructured)
  std::vector<AdaptivePick> adaptive;       // one per shape
  std::map<int, int> histogram;             // picked V -> shapes
};

struct Result {
  Options options;
  int threads = 1;
  std::string isa, openblas_core;  // detected_isa's name, OpenBLAS's kernel core
  std::vector<GemmShape> shapes;
  std::vector<int> vs;
  std::vector<double> sparsities;
  std::vector<Point> points;             // per shape, per sparsity, V = 1 then each of vs
  std::vector<SparsitySummary> summary;  // one per entry of sparsities
  // The first point of shape `si`, sparsity `s` and length `v` (asserts there is one).
  const Point& find(size_t si, double s, int v) const;
};

// Measures every shape (dense sgemm before and after its sparse runs), then aggregates. After
// each shape: observer.on_note("  MxKxN: dense T ms") and a progress report (item and done: the
// shapes measured, label "prune-study"); observer.stop_requested() is polled between shapes and
// stops the run (search::Cancelled), as does cancelled(). Writes nothing.
Result run(const Plan& p, search::Observer& observer);
// run(plan(o), observer).
Result run(const Options& o, search::Observer& observer);

// --plot: the geomean speedup over sgemm against sparsity, one line per pruning, as
// r.options.plot (.png or .svg), its data beside it as PLOT.dat and its script as PLOT.gp
// (replacing them). Nothing when no plot is named. Throws InputError (after the data is
// written) for another extension, or when gnuplot is missing or fails.
void write_plot(const Result& r);

// The JSON `sparsemap prune-study --json` writes.
nlohmann::json to_json(const Result& r);

}  // namespace sparsemap::measure::prune_study
