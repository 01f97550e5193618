// `sparsemap codesign --hw ARCH.yaml`: dse::timeloop::run_codesign (co-design on a Timeloop
// template), then the template beside the co-designed design, and the JSON.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <tuple>

#include "commands.h"
#include "sparsemap/dse/timeloop/run.h"

namespace sparsemap::cli {
namespace {

namespace tl = dse::timeloop;

// "designs D of N" on stderr; warnings as "sparsemap: warning: ..." lines.
class DesignsLine : public search::Observer {
 public:
  explicit DesignsLine(bool bar) : bar_(bar) {}
  void on_progress(const search::Progress& p) override {
    if (bar_)
      std::fprintf(stderr, "\rdesigns %lld of %lld", static_cast<long long>(p.done),
                   static_cast<long long>(p.total));
  }
  void on_search_done() override {
    if (bar_) std::fprintf(stderr, "\n");
  }
  void on_warning(const std::string& text) override { print_warning(text); }

 private:
  bool bar_ = false;
};

void print_result(const tl::CodesignRunResult& res) {
  const tl::CodesignRunOptions& a = res.options;
  const tl::CodesignResult& r = res.codesign;
  std::cout << res.model_name << " (" << res.layers << " layers) on templates of " << res.arch_name
            << " (" << a.hw << "), area budget " << fixed(a.area_budget_mm2, 4)
            << " mm^2, objective " << a.objective << ", " << with_commas(r.designs) << " designs ("
            << with_commas(r.feasible) << " within the budget and mappable), "
            << with_commas(a.map_budget) << " evaluations per layer per design, final mappings "
            << with_commas(a.final_budget) << " per layer, seed " << a.seed << "\n";
  Table t({"design", "area mm^2", "cycles", "energy uJ", "EDP J*cyc"});
  for (const auto& [name, c, n] :
       {std::tuple<std::string, const tl::Candidate*, const tl::NetworkResult*>{"template", &r.base,
                                                                                &r.base_network},
        {"co-designed", &r.best, &r.best_network}}) {
    char e[32];
    std::snprintf(e, sizeof e, "%.4g", n->edp() * 1e-12);
    t.add({name, fixed(c->area_um2 * 1e-6, 4), with_commas(n->cycles),
           fixed(n->energy_pj * 1e-6, 3), e});
  }
  std::cout << t.str() << "template:    " << tl::describe(r.base) << "\n"
            << "co-designed: " << tl::describe(r.best) << "\n"
            << "latency "
            << fixed(static_cast<double>(r.base_network.cycles) / r.best_network.cycles, 3)
            << "x, EDP " << fixed(r.base_network.edp() / r.best_network.edp(), 3)
            << "x of the template's; " << with_commas(r.evaluations) << " loop-nest evaluations, "
            << fixed(r.seconds, 1) << " s\n";
}

}  // namespace

void run_codesign_timeloop(const tl::CodesignRunOptions& o, const std::string& json, bool quiet) {
  DesignsLine progress(!quiet && json != "-" && isatty(2));
  const tl::CodesignRunResult r = tl::run_codesign(o, progress);
  if (json != "-") print_result(r);
  if (!json.empty()) write_json(tl::to_json(r), json);
}

}  // namespace sparsemap::cli
