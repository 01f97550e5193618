// `sparsemap fuse`: inter-layer fusion mapping of a CNN (DNNFuser's map space: a micro-batch per
// layer and fusion groups under an on-chip buffer) by no fusion, greedy, DP, exhaustive, the GA
// search or the learned decision transformer; a table against no fusion and JSON. The work is
// dse::fusion::run (dse/fusion/run.h); this file is flags -> Options, then the table.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/cost/fusion.h"
#include "sparsemap/dse/fusion/run.h"
#include "sparsemap/error.h"

#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/fusion/dnnfuser.h"
#endif

namespace sparsemap::cli {

namespace {

namespace fu = dse::fusion;

// The flags of `fuse` that only the CLI has (how to print), beside the run's Options.
struct FuseArgs {
  fu::Options o;
  std::string json;
  bool groups = false, quiet = false;
};

// The search method's progress line on stderr, ended by a newline.
class SearchLine : public search::Observer {
 public:
  explicit SearchLine(bool bar) : bar_(bar) {}
  void on_progress(const search::Progress& p) override {
    if (bar_)
      std::fprintf(stderr, "\rsearch %lld/%lld best %.6g   ", static_cast<long long>(p.done),
                   static_cast<long long>(p.total), p.best);
  }
  void on_search_done() override {
    if (bar_) std::fprintf(stderr, "\n");
  }

 private:
  bool bar_ = false;
};

#ifdef SPARSEMAP_HAVE_TORCH
// The learned mapper's weights in a build with libtorch: plain .bin, or a fuse-train archive.
fu::FuserWeights load_weights(const std::string& path) {
  if (fu::is_fuser_weights_file(path)) return fu::read_fuser_weights(path);
  if (std::filesystem::is_regular_file(path))
    return ml::fusion::Fuser::load(path).weights();  // a torch archive (.pt)
  return fu::read_fuser_weights(path);               // throws, naming the file and the problem
}
#endif

// One method's groups (--groups).
void print_groups(std::ostream& text, const cost::FusionCostModel& m, const fu::FusionResult& r) {
  text << r.method << " groups:\n";
  for (const auto& g : r.cost.groups) {
    text << "  [" << g.first << ".." << g.last << "] " << m.graph().nodes[g.first].layer.name
         << " .. " << m.graph().nodes[g.last].layer.name << "  micro-batch";
    for (int i = g.first; i <= g.last; ++i) text << " " << r.mapping.micro_batch[i];
    text << "  " << fixed(static_cast<double>(g.requested_bytes) / 1024.0, 1) << " KiB\n";
  }
}

// Flags -> Options, run, print the table (and groups), write to_json.
void run_fuse(const FuseArgs& a) {
  check_output_file(a.json, "--json");
  SearchLine observer(!a.quiet && isatty(2));
  const fu::Result res = fu::run(a.o, observer);
  const cost::FusionCostModel& m = *res.model;
  const cost::FusionCost& none = res.none;
  Table t({"method", "groups", "latency cycles", "ms", "vs none", "energy mJ", "DRAM MB",
           "saved MB", "peak KiB", "meets", "samples", "wall s"});
  std::string notes;
  // With --json -, stdout carries the JSON alone and the table is left out (as every command).
  std::ostringstream unused;
  std::ostream& text = a.json == "-" ? static_cast<std::ostream&>(unused) : std::cout;
  for (const fu::MethodRun& run : res.runs) {
    const fu::FusionResult& r = run.result;
    if (r.method == "learned")
      notes += "learned: weights " + a.o.weights + " loaded in " + fixed(run.load_s, 3) +
               " s (not in wall s)\n";
    const double ms = r.cost.latency_cycles / (m.arch().clock_mhz * 1e3);
    t.add({r.method, std::to_string(r.cost.groups.size()),
           with_commas(static_cast<int64_t>(r.cost.latency_cycles)), fixed(ms, 3),
           fixed(none.latency_cycles / std::max(1.0, r.cost.latency_cycles), 2) + "x",
           fixed(r.cost.energy_nj / 1e6, 3), fixed(r.cost.dram_bytes / 1e6, 2),
           fixed((none.dram_bytes - r.cost.dram_bytes) / 1e6, 2),
           fixed(static_cast<double>(r.cost.peak_buffer_bytes) / 1024.0, 1),
           r.cost.meets_buffer ? "yes" : "NO", with_commas(r.samples), fixed(r.wall_s, 3)});
    if (a.groups) print_groups(text, m, r);
  }
  text << "fuse " << m.graph().name << " (" << m.size() << " layers, " << m.graph().skip_edges()
       << " skip edges), batch " << m.graph().batch << ", on " << m.arch().name << ", buffer "
       << m.buffer_bytes() / 1024 << " KiB,\nobjective " << a.o.objective << ", dataflow "
       << a.o.dataflow << " (" << m.evaluations() << " single-layer evaluations cached)\n"
       << t.str() << notes;
  if (!a.json.empty()) write_json(fu::to_json(res), a.json);
}

}  // namespace

void register_fuse_train(CLI::App& app);  // apps/cmd_fuse_train.cpp

void register_fuse(CLI::App& app) {
  register_fuse_train(app);
  auto a = std::make_shared<FuseArgs>();
  CLI::App* c = app.add_subcommand(
      "fuse", "Inter-layer fusion mapping (DNNFuser): micro-batches and fusion groups");
  add_options(c, fu::option_table(), a->o,
              {{"--groups", &a->groups}, {"--json", &a->json}, {"--quiet", &a->quiet}});
  c->callback([a]() {
    if (a->o.weights.empty()) a->o.weights = shipped_data_file("data/dnnfuser/fuser.bin");
#ifdef SPARSEMAP_HAVE_TORCH
    a->o.load_weights = load_weights;
#endif
    run_fuse(*a);
  });
}

}  // namespace sparsemap::cli
