// `sparsemap prune-study`: the hardware-aware pruning study of Castro et al. (PACT 2022) on the
// CPU. The work is measure::prune_study::run (measure/prune_study.h); this file is flags ->
// Options, then the table, the JSON and the plot. Like spmm-bench, measure with
// OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset.
#include <iostream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/measure/prune_study.h"

namespace sparsemap::cli {

namespace {

namespace ps = measure::prune_study;

// The flags of `prune-study` that only the CLI has (how to print), beside the run's Options.
struct PruneStudyArgs {
  ps::Options o;
  std::string json;
};

// The per-shape dense time on stderr, unless the JSON goes to stdout.
class ShapeLines : public search::Observer {
 public:
  explicit ShapeLines(bool show) : show_(show) {}
  void on_note(const std::string& text) override {
    if (show_) std::cerr << text << "\n";
  }

 private:
  bool show_ = false;
};

// The summary table: per sparsity the geomean speedups, the best V, its gain and the adaptive
// picks.
Table summary_table(const ps::Result& r) {
  std::vector<std::string> header{"sparsity", "unstructured"};
  for (int v : r.vs) header.push_back("V=" + std::to_string(v));
  for (const char* h : {"best V", "gain vs unstr.", "adaptive V", "adaptive gain"})
    header.push_back(h);
  Table table(header);
  for (const ps::SparsitySummary& s : r.summary) {
    std::string hist;
    for (const auto& [v, count] : s.histogram)
      hist += (hist.empty() ? "" : " ") + std::to_string(v) + "x" + std::to_string(count);
    std::vector<std::string> row{fixed(100 * s.sparsity, 0) + "%",
                                 fixed(s.geomean_speedup.at(1), 2) + "x"};
    for (int v : r.vs) row.push_back(fixed(s.geomean_speedup.at(v), 2) + "x");
    row.push_back(std::to_string(s.best_v));
    row.push_back(fixed(s.gain_vs_unstructured, 2) + "x");
    row.push_back(hist);
    row.push_back(fixed(s.adaptive_gain_vs_unstructured, 2) + "x");
    table.add(row);
  }
  return table;
}

// Flags -> Options, check them, warn about the timing environment, run, print, JSON, plot.
void run_prune_study_cmd(const PruneStudyArgs& a) {
  const ps::Plan plan = ps::plan(a.o);
  warn_timing_environment("prune-study");
  ShapeLines observer(a.json != "-");
  const ps::Result r = ps::run(plan, observer);
  if (a.json != "-")
    std::cout << "Geomean speedup over OpenBLAS sgemm (" << r.threads << " threads, "
              << r.shapes.size() << " shapes); gain = unstructured time / best-V time at equal "
              << "sparsity;\nadaptive: V per shape (V x shapes) within error budget " << a.o.budget
              << "\n"
              << summary_table(r).str();
  if (!a.json.empty()) write_json(ps::to_json(r), a.json);
  ps::write_plot(r);
}

}  // namespace

void register_prune_study(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "prune-study",
      "Hardware-aware pruning study: column-vector lengths x sparsity x shape vs unstructured");
  auto a = std::make_shared<PruneStudyArgs>();
  add_options(cmd, ps::option_table(), a->o, {{"--json", &a->json}});
  cmd->callback([a] { run_prune_study_cmd(*a); });
}

}  // namespace sparsemap::cli
