// What a profile says: the GEMM/NonGEMM split by group, its horizon when GEMMs run F times
// faster, and the JSON, table, Chrome trace and gnuplot outputs. Torch-free.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/ml/nongemm/profile.h"

namespace sparsemap::ml::nongemm {

// Operator time by group, per inference. Percentages are of total_ms (the summed top-level
// operator time), from 0 to 100; gemm_pct + nongemm_pct == 100 when total_ms > 0.
struct Split {
  double total_ms = 0;
  double gemm_ms = 0;
  double attention_ms = 0;                 // part of gemm_ms
  std::map<std::string, double> group_ms;  // every NonGEMM group key, 0 when absent

  double nongemm_ms() const { return total_ms - gemm_ms; }
  double pct(double ms) const { return total_ms > 0 ? 100.0 * ms / total_ms : 0; }
  double gemm_pct() const { return pct(gemm_ms); }
  double nongemm_pct() const { return total_ms > 0 ? 100.0 - gemm_pct() : 0; }
};

// The measured split, with every GEMM operator's time divided by `gemm_speedup` (>= 1... any
// value > 0; 1 is the measurement).
Split split_profile(const Profile& p, double gemm_speedup = 1.0);

// The split with the GEMM time replaced by `gemm_ms` (the accelerator horizon).
Split split_with_gemm_ms(const Profile& p, double gemm_ms);

// The horizon on a modelled accelerator (see hw_horizon.h): filled by the CLI when --hw is set.
struct HwHorizon {
  std::string arch;  // preset name or file
  double clock_mhz = 0;
  std::string dataflow;  // the template or mapper that produced the mappings
  int64_t shapes = 0;    // distinct GEMM shapes evaluated
  int64_t failed = 0;    // shapes the cost model could not evaluate (kept at CPU time)
  double measured_gemm_ms = 0;
  double modelled_gemm_ms = 0;
  Split split;
};

// The report's JSON (the contract; see `sparsemap nongemm --help`): model, batch, sizes,
// threads, schedule, torch_version, blas, blas_env, wall_ms, ops_ms, coverage_pct,
// unknown_pct, gemm_pct, nongemm_pct, attention_pct, groups (NonGEMM group -> % of operator
// time), groups_ms, unknown_ops, ops [{name, group, attention, calls, ms, pct}], horizon
// [{gemm_speedup, gemm_pct, nongemm_pct, groups}] and hw when given.
nlohmann::json profile_json(const Profile& p, const std::vector<double>& speedups,
                            const std::optional<HwHorizon>& hw = std::nullopt);

// A human-readable report: header, group table, the `top` longest operators, the horizon.
std::string profile_text(const Profile& p, const std::vector<double>& speedups,
                         const std::optional<HwHorizon>& hw = std::nullopt, size_t top = 15);

// One row per model: wall, GEMM/NonGEMM %, largest NonGEMM group, the horizon at each speedup,
// the accelerator horizon when `hw` has one per profile (NonGEMM % and modelled GEMM speedup),
// coverage and unknown-operator share.
std::string suite_text(const std::vector<Profile>& profiles, const std::vector<double>& speedups,
                       const std::vector<HwHorizon>& hw = {});

// Chrome trace ("traceEvents", complete events "ph":"X", microseconds) of the recorded runs;
// load it in chrome://tracing or Perfetto.
nlohmann::json chrome_trace(const Profile& p);

// A stacked-bar plot, one bar per (model, speedup), and per model on `hw` (one horizon per
// profile, as suite_text takes them; empty: none), with the groups stacked in percent. Writes
// the data next to `plot_path` as PLOT.csv and the gnuplot script as PLOT.gp (the plot's whole
// name: out.png -> out.png.csv, never out.csv), replacing them if present, then renders
// PNG or SVG by the extension. Throws InputError for another extension, an unwritable file,
// or when gnuplot is not on PATH (the .csv is written first and stays).
void write_group_plot(const std::vector<Profile>& profiles, const std::vector<double>& speedups,
                      const std::string& plot_path, const std::vector<HwHorizon>& hw = {});
// The extension check of write_group_plot alone (for a command to fail before a long run).
void check_plot_path(const std::string& plot_path);

}  // namespace sparsemap::ml::nongemm

namespace sparsemap::ml::nongemm {

// The accelerator horizon: each GEMM shape of the profile (Profile::gemm_calls; profile with
// ProfileOptions::gemm_shapes) is evaluated by cost::evaluate on `arch` (a preset, MAESTRO .m
// or YAML file: io::load_arch) under `dataflow` (a cost::dataflow_templates() name, or "best":
// the fastest feasible template per shape), and its runtime at arch.clock_mhz replaces the
// measured GEMM time; NonGEMM operators keep their measured CPU time. A shape that no template
// evaluates keeps its measured time and counts in HwHorizon::failed. Throws InputError for a
// bad arch or dataflow, or a profile without GEMM shapes.
HwHorizon hw_horizon(const Profile& p, const std::string& arch, const std::string& dataflow);

}  // namespace sparsemap::ml::nongemm
