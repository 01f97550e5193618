// `sparsemap report`: one self-contained HTML page per model and accelerator: per-layer best
// mappings, the co-design Pareto front, the NonGEMM breakdown (profiled with libtorch when this
// build has it) and the measured SpMM speedup of the pruned layers (docs/report.md). The work
// is report::run (report/run.h); this file is flags -> Options, then the summary.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/report/run.h"

#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/nongemm/report_profile.h"
#endif

namespace sparsemap::cli {
namespace {

// The flags of `report` that only the CLI has (what to write, how to print), beside the run's
// Options.
struct ReportArgs {
  report::Options o;
  std::string json;
  bool quiet = false;
};

// The progress line on stderr ("mappings 3/12", "nongemm: profiling NAME in libtorch"), cleared
// at the end.
class ProgressLine : public search::Observer {
 public:
  explicit ProgressLine(bool bar) : bar_(bar) {}
  void on_progress(const search::Progress& p) override {
    if (!bar_) return;
    const std::string s =
        p.total == 0 ? p.label
                     : p.label + " " + std::to_string(p.done) + "/" + std::to_string(p.total);
    std::fprintf(stderr, "\r%-70s", s.substr(0, 70).c_str());
  }
  void on_search_done() override {
    if (bar_) std::fprintf(stderr, "\r%70s\r", "");
  }

 private:
  bool bar_ = false;
};

// Flags -> Options, run, print the summary, write the page and to_json.
void run_report(ReportArgs& a) {
#ifdef SPARSEMAP_HAVE_TORCH
  a.o.profiler = ml::nongemm::report_profiler();
#else
  if (!a.o.no_profile)
    hand_over_to_torch_build();  // the NonGEMM profile runs the model in libtorch
#endif
  report::check_options(a.o, a.json);
  ProgressLine observer(!a.quiet && isatty(2));
  const report::Result r = report::run(a.o, observer);
  report::write_outputs(r);
  if (!a.json.empty()) write_json(report::to_json(r), a.json);
  if (a.json != "-" && !a.quiet)
    std::cout << report::summary_text(r.report) << "wrote " << a.o.out << "\n";
}

}  // namespace

void register_report(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report",
      "One self-contained HTML page for a model on an accelerator: per-layer best mappings, the "
      "co-design Pareto front, the NonGEMM breakdown and the SpMM speedup of its pruned layers");
  auto a = std::make_shared<ReportArgs>();
  cmd->add_option("--model", a->o.model, "Zoo model name or model file (.m, .csv, .onnx)")
      ->required();
  cmd->add_option("--hw", a->o.hw, "Accelerator: a preset name, a MAESTRO .m file or a YAML file")
      ->required();
  cmd->add_option("--out", a->o.out, "The HTML file to write (its folder must exist)");
  cmd->add_option("--budget", a->o.budget, "Mapper (GAMMA) samples per distinct layer");
  cmd->add_option("--codesign-budget", a->o.codesign_budget,
                  "Co-design (DiGamma) whole-model designs evaluated");
  cmd->add_option("--platform", a->o.platform, "Co-design area budget and PE limit: edge or cloud");
  cmd->add_option("--seed", a->o.seed, "Random seed (searches, weights, activations)");
  cmd->add_option("--threads", a->o.threads,
                  "Threads for the searches, the kernels, OpenBLAS and libtorch");
  cmd->add_option("--spmm-formats", a->o.spmm_formats,
                  "Sparse formats timed: csr, cvse:V, bsr:HxW, nm:N:M, vnm:V:N:M");
  cmd->add_option("--spmm-sparsity", a->o.spmm_sparsity, "Target sparsities in [0, 1)");
  cmd->add_option("--spmm-cols", a->o.spmm_cols, "Activation columns per product (cap)");
  cmd->add_option("--spmm-shapes", a->o.spmm_shapes,
                  "Weight shapes timed (those with the most MACs; 0: none)");
  cmd->add_option("--spmm-min-ms", a->o.spmm_min_ms, "Minimum timed ms per measurement");
  cmd->add_option("--profile-iters", a->o.profile_iters,
                  "NonGEMM: recorded libtorch inferences (after one warm-up)");
  cmd->add_flag("--no-profile", a->o.no_profile, "NonGEMM: skip the libtorch profile");
  cmd->add_option("--json", a->json,
                  "Also write the report's data as JSON to FILE, or - for stdout");
  cmd->add_flag("--quiet", a->quiet, "No progress and no summary");
  add_zoo_options(cmd, a->o.zoo);
  cmd->callback([a] { run_report(*a); });
}

}  // namespace sparsemap::cli
