// `sparsemap report`: one self-contained HTML page per model and accelerator: per-layer best
// mappings, the co-design Pareto front, the NonGEMM breakdown (profiled with libtorch when this
// build has it) and the measured SpMM speedup of the pruned layers (docs/report.md). The work
// is report::run (report/run.h); this file is flags -> Options, then the summary.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "option_table.h"
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
  add_options(cmd, report::option_table(), a->o, {{"--json", &a->json}, {"--quiet", &a->quiet}});
  cmd->callback([a] { run_report(*a); });
}

}  // namespace sparsemap::cli
