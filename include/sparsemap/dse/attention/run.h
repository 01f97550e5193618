// `sparsemap attention` as a library call: Options (the command's flags, with its defaults),
// run() (FLAT's fused attention against the unfused baseline per sequence length, for one model
// or, with `table`, for FLAT's four models on flat-edge and flat-cloud), Result, and to_json(),
// the one place the command's JSON is built. The CLI (apps/cmd_attention.cpp) prints the tables;
// the Python module's attention() returns to_json as a dict.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/attention.h"
#include "sparsemap/dse/attention/attention_search.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::dse::attention {

// One field per flag of `sparsemap attention` (but --json and --quiet, which only the CLI has),
// same names and defaults.
struct Options {
  static constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();
  std::string model = "bert", seq = "512,1K,2K,4K,8K,16K,32K,64K", hw = "flat-edge";
  std::string objective = "latency", algo = "exhaustive";
  int64_t batch = 64, budget = 2000, map_budget = 10000;
  // The model's overrides; kUnset: the model's own.
  int64_t heads = kUnset, head_dim = kUnset, v_head_dim = kUnset, d_model = kUnset, ffn = kUnset;
  uint64_t seed = 1;
  bool table = false;  // FLAT's four models on flat-edge and flat-cloud (model, seq, hw unused)
  // In place of `hw` when set: an accelerator held in memory (Python objects).
  std::optional<arch::Arch> hw_object;
};

// `sparsemap attention`'s flags and sparsemap.attention's keywords (sparsemap/option_table.h):
// the Options' fields with their help, beside --json, --plot and --quiet of the CLI.
const options::Table<Options>& option_table();

// One sequence length: FLAT's best configuration, the unfused baseline and the mapped GEMMs.
struct SeqResult {
  int64_t seq = 0;
  FlatChoice flat;
  cost::AttentionCost base;
  MappedBlock gemms;
  double speedup() const { return base.latency_s / flat.cost.latency_s; }
  double energy_saving_pct() const { return 100.0 * (1.0 - flat.cost.energy_pj / base.energy_pj); }
  // The whole transformer layer's: (baseline + rest) / (FLAT + rest) latency.
  double layer_speedup() const {
    return (base.latency_s + gemms.rest.latency_s) / (flat.cost.latency_s + gemms.rest.latency_s);
  }
};

// One model on one accelerator, every length.
struct CaseResult {
  std::string hw, model;
  cost::AttentionShape shape;  // queries and keys unset: each row's `seq`
  std::vector<SeqResult> rows;
};

// `table`: one row of the summary, geometric means over N = 512 .. 64K beside FLAT's figures.
struct SummaryRow {
  std::string hw, model;  // model "all": every model on `hw` (no layer speedup, no 256K / 1M)
  double speedup_geomean = 0, energy_saving_pct_geomean = 0, layer_speedup_geomean = 0;
  std::optional<double> speedup_256k, speedup_1m;  // cloud's extra lengths, when run
};

struct Result {
  Options options;                  // as given (hw_object dropped)
  std::vector<CaseResult> cases;    // one without `table`; else hw-major, model-minor
  std::vector<SummaryRow> summary;  // `table`: per hw, each model then "all"
};

// FLAT's headline figures on `hw` (flat-edge: 1.94x, 49%; flat-cloud: 1.76x, 42%).
double paper_speedup(const std::string& hw);
int paper_energy_saving_pct(const std::string& hw);

// "512,1K,64K,1M" -> tokens (K = 1024, M = 1024 x 1024; 1 to 16M). Throws InputError naming the
// bad item ("<flag --seq>").
std::vector<int64_t> parse_seqs(const std::string& text);
// 1024 -> "1K", 1048576 -> "1M", 1000 -> "1000".
std::string seq_text(int64_t n);

// Each size flag within what the cost model takes (cost::validate_attention), and each budget
// within search::kMaxBudget, blamed by name ("<flag --heads>"); throws InputError. run() checks
// these first; the CLI calls it before its own checks of --json and --plot.
void check_sizes(const Options& o);

// Checks every option, then runs the case (or the table). Progress before each length (label
// "MODEL HW N=LEN", done the lengths finished of the case's total, item the case, best 0: the
// lengths have no common fitness) and once after the case's last (label "MODEL HW", done ==
// total), then on_search_done; Cancelled when the observer asks to stop. Throws InputError for
// bad options or files.
Result run(const Options& o, search::Observer& observer);

// One case's JSON (its shape and each length's FLAT, baseline and layer figures).
nlohmann::json case_json(const Options& o, const CaseResult& c);
// The JSON `sparsemap attention --json` writes: the case's, or with `table` the cases' and the
// summary.
nlohmann::json to_json(const Result& r);

// --plot: speedup and DRAM traffic against N (log x) of every case as `plot` (.png or .svg), its
// data beside it as PLOT.csv and its gnuplot script as PLOT.gp (replacing them); InputError when
// they cannot be written or gnuplot fails (the data stays).
void write_plot(const Result& r, const std::string& plot);

}  // namespace sparsemap::dse::attention
