// One self-contained HTML report per model: per-layer best mappings, the co-design Pareto front,
// the NonGEMM breakdown and the measured SpMM speedup of the pruned layers (docs/report.md).
// Torch-free: the measured NonGEMM profile (libtorch) is filled in by the caller when it can.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::report {

struct ReportOptions {
  std::string model_spec;  // as the user gave it (for the reproducing commands)
  std::string hw_spec;
  int64_t map_budget = 300;  // mapper samples per distinct layer (GAMMA)
  uint64_t seed = 1;
  int threads = 1;
  int64_t codesign_budget = 300;  // DiGamma whole-model designs
  std::string platform = "edge";  // dse::codesign::platform()
  std::vector<std::string> spmm_formats = {"csr", "cvse:8"};
  std::vector<double> spmm_sparsities = {0.5, 0.7, 0.9};
  int64_t spmm_max_cols = 128;  // activation columns N of each measured product (cap)
  int64_t spmm_max_shapes = 8;  // distinct weight shapes measured (the most MACs first)
  double spmm_min_ms = 4;       // minimum timed milliseconds per measurement (>= 3 repeats; the
                                // fastest repeat counts: robust on a shared machine)
  // Progress: (stage, done, total) after each step of a stage; may be empty.
  std::function<void(const std::string&, int64_t, int64_t)> progress;
};

// (a) Per-layer best mappings.
struct LayerRow {
  std::string name, kind, dims;
  int64_t macs = 0;
  std::string status;  // "ok" or the cost model's status name
  std::string reason;
  int64_t runtime_cycles = 0;
  double energy_nj = 0;
  double utilisation_pct = 0;  // MACs / (PEs x cycles) x 100
  int64_t pes_used = 0;
  int64_t samples = 0;
  bool reused = false;  // a repeat of an earlier shape (not searched again)
  std::string mapping;  // directives on one line
};
struct MappingsSection {
  std::vector<LayerRow> layers;  // GEMM-class layers, model order
  size_t skipped = 0;            // layers without MACs
  size_t distinct = 0;
  int64_t runtime_cycles = 0;  // sum over the feasible layers
  double energy_nj = 0;
  int64_t macs = 0;
  size_t layers_ok = 0;
  double utilisation_geomean_pct = 0;
  double wall_s = 0;
};
MappingsSection compute_mappings(const workload::Model& m, const arch::Arch& hw,
                                 const ReportOptions& o);

// (b) The co-design Pareto front (DiGamma's search; every feasible design it evaluated).
struct DesignPoint {
  int64_t pes = 0, l1_bytes = 0, l2_bytes = 0;
  double area_mm2 = 0;
  int64_t runtime_cycles = 0;
  double energy_nj = 0;
};
struct CodesignSection {
  std::string platform;
  double area_budget_mm2 = 0;
  int64_t pe_limit = 0, pe_step = 0;
  int64_t samples = 0, infeasible = 0;
  std::vector<DesignPoint> designs;  // distinct feasible designs, by area
  std::vector<DesignPoint> front;    // non-dominated (area, cycles), by area
  DesignPoint best;                  // the search's best (lowest cycles)
  bool feasible = false;
  int64_t compute_bound_cycles = 0;
  double hw_area_mm2 = 0;  // the --hw accelerator: its area and the mapper's total cycles
  int64_t hw_runtime_cycles = 0;
  double wall_s = 0;
};
// hw_runtime_cycles: the mapper's total on `hw` (a point of comparison on the chart).
CodesignSection compute_codesign(const workload::Model& m, const arch::Arch& hw,
                                 const ReportOptions& o, int64_t hw_runtime_cycles);

// (c) NonGEMM: what the model description itself says (no libtorch) ...
struct NongemmGroup {
  std::string name;  // the operator ("relu", "add", "batch_norm"), else the kind ("softmax")
  std::string kind;
  int64_t layers = 0;
  int64_t elements = 0;  // inputs (x operands) + outputs, elements
};
struct NongemmStatic {
  std::vector<NongemmGroup> groups;  // most elements first
  int64_t nongemm_layers = 0, gemm_layers = 0;
  int64_t nongemm_elements = 0, gemm_elements = 0;  // GEMM: inputs + weights + outputs
};
NongemmStatic compute_nongemm_static(const workload::Model& m);
// ... and what a libtorch profile measured (filled by the caller, e.g. the CLI with ml/).
struct NongemmMeasured {
  bool available = false;
  std::string why_absent;  // when not available: one sentence
  std::string suite_model, torch_version, blas;
  int threads = 1, runs = 0;
  double total_ms = 0, gemm_ms = 0, attention_ms = 0;
  std::map<std::string, double> group_ms;  // NonGEMM group -> ms per inference
  bool has_hw = false;  // the GEMMs on the accelerator (cost model), NonGEMMs as measured
  std::string hw_name;
  double hw_total_ms = 0, hw_gemm_ms = 0;
  std::map<std::string, double> hw_group_ms;
  int64_t hw_shapes = 0, hw_failed = 0;
  std::string command;  // the reproducing command
  std::string warning;  // a busy machine: timings to take with care
};

// (d) SpMM speedup of the pruned GEMM-class layers.
struct SpmmRow {
  std::string layer;            // first layer of the shape
  int64_t layers = 0;           // layers sharing the weight shape
  int64_t m = 0, k = 0, n = 0;  // measured: weight M x K times activation K x n
  int64_t n_full = 0;           // the layer's activation columns before the cap
  std::string format;
  double target_sparsity = 0, sparsity = 0;
  double ms = 0, dense_ms = 0, speedup = 0, max_rel_err = 0;
};
struct SpmmSection {
  std::vector<SpmmRow> rows;
  int64_t shapes_measured = 0, shapes_total = 0, shapes_skipped = 0;  // skipped: no weight GEMM
  std::string skipped_kinds;
  std::string isa, openblas_core;
  std::string warning;  // a busy machine or OPENBLAS_CORETYPE set: timings to take with care
  int threads = 1;
  double wall_s = 0;
  // Geomean speedup over the measured shapes per format and target sparsity.
  std::map<std::string, std::map<double, double>> geomean;
};
SpmmSection compute_spmm(const workload::Model& m, const ReportOptions& o);

struct Report {
  std::string model, version;
  arch::Arch hw;
  ReportOptions options;
  int64_t model_macs = 0, model_params = 0;
  size_t model_layers = 0;
  MappingsSection mappings;
  CodesignSection codesign;
  NongemmStatic nongemm_static;
  NongemmMeasured nongemm;
  SpmmSection spmm;
  double wall_s = 0;
};

// Runs (a), (b), (c static) and (d); the caller sets r.nongemm. Throws InputError for bad
// options (budgets, platform, formats, sparsities).
Report build_report(const workload::Model& m, const arch::Arch& hw, const ReportOptions& o);
// Checks the options alone (before a long run): the same InputErrors build_report throws.
void check_options(const ReportOptions& o);

// The page: one HTML5 document, CSS inline, charts as inline SVG, no scripts, no external
// resources; user text escaped. Sections: section-summary, section-mappings,
// section-codesign, section-nongemm, section-spmm.
std::string render_html(const Report& r);
nlohmann::json report_json(const Report& r);
// A short summary for the terminal (fits 120 columns).
std::string summary_text(const Report& r);

// `s` as one shell word: unchanged when it has only [A-Za-z0-9_./:=,+@%-], else single-quoted.
std::string shell_word(const std::string& s);

}  // namespace sparsemap::report
