// `sparsemap map --hw ARCH.yaml`: dse::timeloop::run_map (the mapper on a Timeloop-described
// accelerator), then its per-layer table and totals, the --emit-timeloop files and the JSON.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "sparsemap/dse/timeloop/run.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::cli {
namespace {

namespace tl = dse::timeloop;

// The progress line on stderr: the search's samples of its budget, or the points enumerated so
// far (on MPI rank 0 only, asked once the run has started MPI); warnings as
// "sparsemap: warning: ..." lines.
class MapProgress : public search::Observer {
 public:
  explicit MapProgress(bool bar) : bar_(bar) {}
  void on_progress(const search::Progress& p) override {
    if (!bar_ || search::mpi_rank() != 0) return;
    if (p.total > 0) return print_search_progress(p.item, p.items, p.done, p.total, p.best);
    std::fprintf(stderr, "\r[%3zu/%zu] enumerating: %lld points, best %.4g   ", p.item + 1, p.items,
                 static_cast<long long>(p.done), p.best >= search::kInfeasible ? 0.0 : p.best);
  }
  void on_search_done() override {
    if (bar_ && search::mpi_rank() == 0) std::fprintf(stderr, "\n");
  }
  void on_warning(const std::string& text) override { print_warning(text); }

 private:
  bool bar_ = false;
};

void print_table(const tl::NetworkResult& r) {
  Table t(
      {"layer", "cycles", "energy uJ", "EDP J*cyc", "util %", "EDP/bound", "evals", "search", "s"});
  for (const auto& row : r.rows) {
    const auto& m = row.r;
    const double edp = static_cast<double>(m.result.cycles) * m.result.energy_pj * 1e-12;
    const double bound = m.bound.edp() * 1e-12;
    char e[32];
    std::snprintf(e, sizeof e, "%.4g", edp);
    t.add({row.name, with_commas(m.result.cycles), fixed(m.result.energy_pj * 1e-6, 3), e,
           fixed(100 * m.result.utilization, 1), bound > 0 ? fixed(edp / bound, 2) : "-",
           with_commas(m.evaluations),
           row.same_as.empty() ? (m.found ? m.algo : "none fits") : "= " + row.same_as,
           fixed(m.seconds, 2)});
  }
  char e[32];
  std::snprintf(e, sizeof e, "%.4g", r.edp() * 1e-12);
  const double bound = r.bound.edp() * 1e-12;
  t.add({"total", with_commas(r.cycles), fixed(r.energy_pj * 1e-6, 3), e, "",
         bound > 0 ? fixed(r.edp() * 1e-12 / bound, 2) : "-", with_commas(r.evaluations), "",
         fixed(r.seconds, 2)});
  std::cout << t.str();
}

void print_summary(const tl::MapResult& r) {
  const tl::MapOptions& a = r.options;
  std::cout << r.model_name << " on " << r.arch_name << " (" << a.hw << "): " << r.layers
            << " layers, objective " << tl::metrics_text(r.metrics) << ", search " << a.algo << " ("
            << with_commas(a.budget) << " evaluations per layer, exhaustive up to "
            << with_commas(static_cast<int64_t>(a.exhaustive_limit)) << " points), seed " << a.seed
            << ", " << a.threads << " thread(s)"
            << (r.mpi_ranks > 1 ? " x " + std::to_string(r.mpi_ranks) + " MPI ranks" : "") << "\n";
  print_table(r.network);
  std::cout << "EDP/bound: the mapping's EDP over a lower bound (compute, and the outermost "
               "level's compulsory traffic and energy)\n";
}

}  // namespace

void run_map_timeloop(const tl::MapOptions& o, const std::string& json, bool quiet) {
  MapProgress progress(!quiet && json != "-" && isatty(2));
  const tl::MapResult r = tl::run_map(o, progress);
  if (!r.root) return;
  if (json != "-") print_summary(r);
  tl::write_outputs(r);
  if (!json.empty()) write_json(tl::to_json(r), json);
}

}  // namespace sparsemap::cli
