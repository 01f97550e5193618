// `sparsemap nm-study` as a library call: Options (the command's flags, with its defaults), run()
// (every N:M recipe at several ratios and seeds on the ViT and the char-GPT, ml/train, one cell at
// a time, resumable through the results file), Result, to_json(), the one place the command's
// JSON is built, and write_plot(). The CLI (apps/cmd_nm_study.cpp) prints the tables.
// Torch-free header (the CLI includes it); the implementation links libtorch.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/ml/data/fashion_mnist.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::ml::nm_study {

// One field per flag of `sparsemap nm-study` (but --json and --quiet, which only the CLI has),
// same names and defaults.
struct Options {
  std::string models = "vit-tiny,char-gpt";  // comma-separated: vit-tiny, char-gpt
  std::string recipes = "dense,ste,srste,mdgf-linear,mdgf-exp,sdgf-sparsify,sdgf-fine";
  std::string ratios = "2:4,1:4,1:8,1:16,1:32";  // N:M ratios, comma-separated
  int seeds = 2;                                 // seeds per cell, 1 to 10 (1 with quick)
  uint64_t seed = 1;                             // the first seed
  bool quick = false;                            // small models, few steps, one seed
  int vit_epochs = 0;                            // 0: 15 (3 quick, on 20k images)
  int64_t gpt_steps = 0;                         // 0: 3000 (300 quick)
  int threads = 0;                               // libtorch threads (0: all cores; 1 with quick)
  std::string data_dir = data::kFashionMnistDir;
  // The results JSON, written after every cell and read back to skip finished cells.
  std::string results = "nm_study.json";
  std::string plot;  // write_plot: FILE.png or FILE.svg
};

// `sparsemap nm-study`'s flags and sparsemap.nm_study's keywords (sparsemap/option_table.h):
// the Options' fields with their help, beside --json and --quiet of the CLI. Defined in
// options.cpp, torch-free and compiled into the core library: `sparsemap` built without
// libtorch registers these flags and hands the command over.
const options::Table<Options>& option_table();

// One table entry: a model, recipe and ratio over its seeds.
struct Stat {
  double mean = 0;    // the metric's mean
  double spread = 0;  // (max - min) / 2 over seeds (0 for one seed)
  double flops = 0;   // the mean of training FLOPs / dense training FLOPs
  int n = 0;          // seeds with a metric
};

struct Result {
  Options options;
  std::vector<std::string> models, recipes, ratios;  // the lists; recipes by their recipe_name
  nlohmann::json results;  // the results file as written after the last cell
  // Per model, recipe and ratio ("-" for the dense recipe): the cells with a metric.
  std::map<std::string, std::map<std::string, std::map<std::string, Stat>>> table;
  int ran = 0;      // cells run by this call (the others were in the results file)
  size_t grid = 0;  // cells in the grid
};

// Checks the options, reads the results so far (InputError when they were recorded with other
// settings or are not an nm-study results file), trains every cell of the grid that has no
// metric yet and writes the results file after each. Before each cell a progress report goes to
// `observer` (item of items and done of total: the cell's index in the grid, the cells before
// it; label: its key, MODEL/RECIPE/RATIO/SEED), after it a note: its metric ("85.00%", or
// nats/char to 4 digits) and seconds ("in 3.2 s"), or "failed: " and the InputError of a cell
// that failed (recorded, and run again by a later call). Between training steps the observer
// may stop the run: Cancelled, the cells finished so far stay in the results file.
Result run(const Options& o, search::Observer& observer);

// The JSON `sparsemap nm-study --json` writes: the results file's content.
nlohmann::json to_json(const Result& r);

// --plot: one panel per model, the mean with the spread against the ratio per recipe, as
// r.options.plot (.png or .svg), its data beside it as PLOT.dat and its gnuplot script as
// PLOT.gp (replacing them). Nothing when no plot is named. InputError when they cannot be
// written or gnuplot fails (the data stays).
void write_plot(const Result& r);

}  // namespace sparsemap::ml::nm_study
