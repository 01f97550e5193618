// Subcommand registration and the helpers that subcommands share (output, model loading).
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/io/load_model.h"
#include "sparsemap/io/util.h"
#include "sparsemap/numbers.h"  // with_commas, fixed, geomean, median
#include "sparsemap/workload/describe.h"
#include "sparsemap/workload/model.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::dse::eval {
struct TimeloopResult;
}  // namespace sparsemap::dse::eval

namespace sparsemap::dse::timeloop {
struct MapOptions;
struct CodesignRunOptions;
}  // namespace sparsemap::dse::timeloop

namespace sparsemap::cli {

// The whole CLI's conventions, set on the root before any subcommand (they inherit them):
// --help shows every option's default and wraps to kColumns; a repeated option takes its last
// value (so a script can override one).
void configure_cli(CLI::App& app);
// apps/torch_handoff.cpp: main() remembers its arguments; a command that needs libtorch calls
// hand_over_to_torch_build() first, which in `sparsemap` (built without it) replaces the process
// by `sparsemap-ml` beside it with the same arguments, and otherwise returns (the caller then
// reports that libtorch is missing).
void remember_args(int argc, char** argv);
void hand_over_to_torch_build();
void register_models(CLI::App& app);
void register_show(CLI::App& app);
void register_arch(CLI::App& app);
void register_nongemm(CLI::App& app);
void register_eval(CLI::App& app);
void register_spmm_bench(CLI::App& app);
void register_prune_study(CLI::App& app);
// prune-train, prune-compare and prune-overhead (apps/cmd_prune_train.cpp).
void register_prune_train(CLI::App& app);
// map (mapping search) and mse (the map-space-exploration study): apps/cmd_map.cpp, cmd_mse.cpp.
void register_map(CLI::App& app);
// train (N:M recipes on vit-tiny / char-gpt) and nm-study: apps/cmd_train.cpp, cmd_nm_study.cpp.
void register_train(CLI::App& app);
void register_nm_study(CLI::App& app);
void register_mse(CLI::App& app);
// codesign (DiGamma HW-mapping co-design): apps/cmd_codesign.cpp.
void register_codesign(CLI::App& app);
void register_attention(CLI::App& app);  // apps/cmd_attention.cpp (FLAT)
void register_schedule(CLI::App& app);   // schedule (G# multi-tenant): apps/cmd_schedule.cpp
void register_fuse(CLI::App& app);     // fuse and fuse-train: apps/cmd_fuse.cpp, cmd_fuse_train.cpp
void register_hwalloc(CLI::App& app);  // hwalloc (ConfuciuX): apps/cmd_hwalloc.cpp
void register_report(CLI::App& app);   // report (one HTML page per model): apps/cmd_report.cpp
// `map --hw ARCH.yaml` and `codesign --hw ARCH.yaml` on a Timeloop architecture
// (apps/cmd_map_timeloop.cpp, cmd_codesign_timeloop.cpp): run, print unless `json` is "-",
// write the JSON to `json` when not empty; a progress line on stderr unless `quiet`.
void run_map_timeloop(const dse::timeloop::MapOptions& o, const std::string& json, bool quiet);
void run_codesign_timeloop(const dse::timeloop::CodesignRunOptions& o, const std::string& json,
                           bool quiet);
// timeloop (Timeloop inputs through the loop-nest model): apps/cmd_timeloop.cpp.
void register_timeloop(CLI::App& app);
// What `sparsemap timeloop FILES` and `sparsemap eval --timeloop FILES` do with the result of
// dse::eval::run_timeloop: write the --emit-map file its options name, write the JSON to `json`
// when not empty, print timeloop-model's summary unless `json` is "-".
void print_timeloop(const dse::eval::TimeloopResult& r, const std::string& json);

// Writes `j` (pretty, 2 spaces) to `dest`: "-" for stdout, else a file path.
// Throws InputError when the file cannot be written.
void write_json(const nlohmann::json& j, const std::string& dest);

// check_output_file, write_text_file and make_output_dir: sparsemap/io/util.h.
using io::check_output_file;
using io::make_output_dir;
using io::write_text_file;

// Every --seed option of every (sub)command takes digits only: CLI11 would wrap "-1" to
// 2^64 - 1 in an unsigned seed. Call once, after every command is registered.
void check_seed_options(CLI::App& app);
// Throws InputError at "<flag F>" saying "F <why>" for the first of `flags` given to `cmd`.
void refuse_flags(CLI::App* cmd, std::initializer_list<const char*> flags, const std::string& why);

// The width every human output and help text fits in (columns).
inline constexpr size_t kColumns = 120;

// `text` word-wrapped to lines of at most `width` columns (a longer word stays whole); its own
// line breaks are kept.
std::vector<std::string> wrap_text(const std::string& text, size_t width);

// Prints "sparsemap: warning: TEXT" on stderr, word-wrapped to kColumns (continuation lines
// indented by two spaces).
void print_warning(const std::string& text);
// Before a timing run: prints measure::timing_environment_warnings(command) (OPENBLAS_CORETYPE
// or OPENBLAS_L2_SIZE set, a busy machine) as warnings.
void warn_timing_environment(const std::string& command);

// A plain text table with right-aligned numeric columns. str() fits `max_columns`: when the
// table is wider, the widest text column is wrapped onto continuation lines (numbers are never
// cut); `max_columns` 0 means no limit (--wide).
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string str(size_t max_columns = kColumns) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// The progress line of a search on stderr ("\r", no newline): distinct layer u of n, samples s
// of its budget b, best fitness so far (kInfeasible shown as 0).
void print_search_progress(size_t u, size_t n, int64_t s, int64_t b, double best);

// split_list ("a, b,,c" -> {"a", "b", "c"}): sparsemap/io/util.h.
using io::split_list;

// shipped_data_file: sparsemap/io/util.h.
using io::shipped_data_file;

// load_model and in_memory_models: sparsemap/io/load_model.h.
using io::in_memory_models;
using io::load_model;

// layer_json, layer_dims_text, layer_dims_short: sparsemap/workload/describe.h.
using workload::layer_dims_short;
using workload::layer_dims_text;
using workload::layer_json;

}  // namespace sparsemap::cli
