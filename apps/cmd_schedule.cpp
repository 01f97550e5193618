// `sparsemap schedule`: multi-tenant scheduling of DNN layers on sub-accelerators that share
// DRAM bandwidth (G# / MAGMA), beside list heuristics and black-box optimisers. The work is
// dse::schedule::run (dse/schedule/run.h); this file is flags -> Options, then the table.
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/dse/schedule/run.h"

namespace sparsemap::cli {
namespace {

namespace sc = dse::schedule;

// The flags of `schedule` that only the CLI has (how to print), beside the run's Options.
struct ScheduleArgs {
  sc::Options o;
  std::string json;
  bool quiet = false;
};

// G#'s progress line on stderr, ended by a newline.
class ProgressLine : public search::Observer {
 public:
  explicit ProgressLine(bool bar) : bar_(bar) {}
  void on_progress(const search::Progress& p) override {
    if (bar_)
      std::fprintf(stderr, "\r%s: %lld / %lld evaluations, best %.0f cycles", p.label.c_str(),
                   static_cast<long long>(p.done), static_cast<long long>(p.total), p.best);
  }
  void on_search_done() override {
    if (bar_) std::fprintf(stderr, "\n");
  }

 private:
  bool bar_ = false;
};

// Flags -> Options, run, print the tables, the plot and the JSON.
void run_schedule_cmd(const ScheduleArgs& a) {
  ProgressLine observer(!a.quiet && isatty(2));
  const sc::Result res = sc::run(a.o, observer);
  const sc::JobTable& t = res.table;
  const sc::SimResult& r = res.detail;
  const sc::AlgoRun& main = res.runs.front();
  const double lb = res.lower_bound_cycles;
  const bool text = a.json != "-";
  if (text)
    std::printf("schedule: %d jobs (%s) on %d cores, DRAM bandwidth %g %s\n", t.num_jobs,
                res.source.c_str(), t.num_cores, a.o.bw, t.bw_unit.c_str());
  Table runs_table({"algorithm", "makespan_cycles", "vs_lower_bound", "evaluations", "wall_s"});
  for (const auto& o : res.runs)
    runs_table.add({o.name, with_commas(std::llround(o.result.makespan_cycles)),
                    fixed(o.result.makespan_cycles / lb, 4), with_commas(o.result.evaluations),
                    fixed(o.wall_s, 3)});
  const sc::HeuristicResult* best_h = &res.heuristics.front();
  for (const auto& h : res.heuristics)
    if (h.makespan_cycles < best_h->makespan_cycles) best_h = &h;
  runs_table.add({"best heuristic: " + best_h->name,
                  with_commas(std::llround(best_h->makespan_cycles)),
                  fixed(best_h->makespan_cycles / lb, 4), with_commas(1), "-"});
  runs_table.add({"lower bound", with_commas(std::llround(lb)), "1.0000", "-", "-"});
  if (text) std::printf("%s", runs_table.str().c_str());
  Table cores({"core", "jobs", "busy_cycles", "utilisation_pct"});
  std::vector<int> count(t.num_cores, 0);
  for (int j = 0; j < t.num_jobs; ++j) ++count[main.result.best.core[j]];
  for (int c = 0; c < t.num_cores; ++c)
    cores.add({t.core_names[c], std::to_string(count[c]),
               with_commas(std::llround(r.busy_cycles[c])),
               fixed(100 * r.busy_cycles[c] / r.makespan_cycles, 1)});
  if (text)
    std::printf("%s: makespan %s cycles, bandwidth in use %.1f%% of the time-average\n%s",
                main.name.c_str(), with_commas(std::llround(r.makespan_cycles)).c_str(),
                100 * r.bw_utilisation, cores.str().c_str());
  sc::write_plot(res);
  if (!a.json.empty()) write_json(sc::to_json(res), a.json);
}

}  // namespace

void register_schedule(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "schedule",
      "Schedule the layers of several DNNs on sub-accelerators sharing DRAM bandwidth (G#), "
      "beside heuristics and black-box optimisers at equal evaluations");
  auto a = std::make_shared<ScheduleArgs>();
  add_options(cmd, sc::option_table(), a->o, {{"--json", &a->json}, {"--quiet", &a->quiet}});
  cmd->callback([a] { run_schedule_cmd(*a); });
}

}  // namespace sparsemap::cli
