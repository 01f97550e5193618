// `sparsemap attention`: FLAT's fused attention dataflow against the unfused baseline, per
// sequence length, with the chosen configuration and the effect on the whole transformer layer;
// `--table` runs FLAT's four models on edge and cloud beside the paper's headline figures. The
// work is dse::attention::run (dse/attention/run.h); this file is flags -> Options, then the
// tables.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/cost/attention.h"
#include "sparsemap/dse/attention/run.h"
#include "sparsemap/error.h"
#include "sparsemap/plot/gnuplot.h"

namespace sparsemap::cli {
namespace {

namespace at = dse::attention;

// The flags of `attention` that only the CLI has (where the JSON goes, the plot, no progress
// line), beside the run's Options.
struct AttentionArgs {
  at::Options o;
  std::string json, plot;
  bool quiet = false;
};

// The length being searched ("bert flat-edge N=512 ...") on stderr, cleared after each case.
class SeqLine : public search::Observer {
 public:
  explicit SeqLine(bool bar) : bar_(bar) {}
  void on_progress(const search::Progress& p) override {
    if (bar_ && p.done < p.total) std::fprintf(stderr, "\r%s ...   ", p.label.c_str());
  }
  void on_search_done() override {
    if (bar_) std::fprintf(stderr, "\r%60s\r", "");
  }

 private:
  bool bar_ = false;
};

// "row 256 K,QK,A,V i/o": granularity, R, on-chip tensors, QK/AV stationarity initials.
std::string config_short(const cost::FlatConfig& c) {
  std::string s(cost::granularity_name(c.granularity));
  if (c.granularity == cost::Granularity::Row) s += " " + std::to_string(c.row_tile);
  std::string on;
  for (int t = 0; t < cost::kNumAttnTensors; ++t)
    if (c.on_chip[t]) on += (on.empty() ? "" : ",") + std::string(cost::attn_tensor_name(t));
  s += " " + (on.empty() ? std::string("-") : on) + " ";
  s += cost::stationarity_name(c.qk)[0];
  s += "/";
  s += cost::stationarity_name(c.av)[0];
  return s;
}

std::string gb(double bytes) { return fixed(bytes / 1e9, bytes < 1e10 ? 3 : 1); }
std::string ms(double s) { return fixed(s * 1e3, s < 1 ? 3 : 1); }

void print_case(const at::CaseResult& c) {
  const auto& s = c.shape;
  std::cout << "attention " << c.model << " on " << c.hw << ": B=" << s.batch << " H=" << s.heads
            << " E=" << s.e << " F=" << s.f << " D=" << s.d_model << " FFN=" << s.ffn << "\n";
  Table t({"N", "FLAT ms", "base ms", "speedup", "E save%", "FLAT GB", "base GB", "bound F/B",
           "fp MiB", "layer x", "FLAT config (gran R on-chip qk/av)"});
  for (const auto& r : c.rows)
    t.add({at::seq_text(r.seq), ms(r.flat.cost.latency_s), ms(r.base.latency_s),
           fixed(r.speedup(), 2), fixed(r.energy_saving_pct(), 1), gb(r.flat.cost.dram_bytes),
           gb(r.base.dram_bytes),
           std::string(cost::bound_name(r.flat.cost.bound)).substr(0, 4) + "/" +
               std::string(cost::bound_name(r.base.bound)).substr(0, 4),
           fixed(r.flat.cost.footprint_bytes / 1048576.0, 2), fixed(r.layer_speedup(), 2),
           config_short(r.flat.config)});
  std::cout << t.str();
}

// --table: each case, then the summary beside FLAT's headline figures.
void print_table(const at::Result& r) {
  for (const auto& c : r.cases) {
    print_case(c);
    std::cout << "\n";
  }
  Table t({"hw", "model", "speedup 512-64K", "paper", "E save% 512-64K", "paper", "x 256K", "x 1M",
           "layer x 512-64K"});
  for (const auto& s : r.summary) {
    const std::string paper_x = fixed(at::paper_speedup(s.hw), 2);
    const std::string paper_e = std::to_string(at::paper_energy_saving_pct(s.hw));
    if (s.model == "all") {
      t.add({s.hw, "all", fixed(s.speedup_geomean, 2), paper_x,
             fixed(s.energy_saving_pct_geomean, 1), paper_e, "", "", ""});
      continue;
    }
    t.add({s.hw, s.model, fixed(s.speedup_geomean, 2), paper_x,
           fixed(s.energy_saving_pct_geomean, 1), paper_e,
           s.speedup_256k ? fixed(*s.speedup_256k, 2) : "-",
           s.speedup_1m ? fixed(*s.speedup_1m, 2) : "-", fixed(s.layer_speedup_geomean, 2)});
  }
  std::cout << "FLAT over the unfused baseline (geometric means over N = 512 .. 64K, B = "
            << r.options.batch << ", " << r.options.objective << " objective)\n"
            << t.str();
}

// Flags -> Options, run, print the tables, write to_json and the plot.
void run_attention(const AttentionArgs& a) {
  at::check_sizes(a.o);
  std::error_code ec;
  if (!a.json.empty() && a.json != "-" && std::filesystem::is_directory(a.json, ec))
    throw InputError({a.json, 0, 0}, "cannot write the JSON file: is a directory (--json)");
  at::parse_objective(a.o.objective);
  if (!a.plot.empty() && !plot::is_plot_path(a.plot))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file");
  SeqLine observer(!a.quiet && isatty(2));
  const at::Result r = at::run(a.o, observer);
  // With --json -, stdout carries the JSON alone and the case's table is left out (--table
  // prints its tables before the JSON).
  if (a.o.table)
    print_table(r);
  else if (a.json != "-")
    print_case(r.cases.at(0));
  if (!a.json.empty()) write_json(at::to_json(r), a.json);
  if (!a.plot.empty()) at::write_plot(r, a.plot);
}

}  // namespace

void register_attention(CLI::App& app) {
  auto a = std::make_shared<AttentionArgs>();
  at::Options& o = a->o;
  CLI::App* cmd = app.add_subcommand(
      "attention", "FLAT's fused attention dataflow vs the unfused baseline, per sequence length");
  add_options(cmd, at::option_table(), o,
              {{"--json", &a->json}, {"--plot", &a->plot}, {"--quiet", &a->quiet}});
  cmd->callback([a] { run_attention(*a); });
}

}  // namespace sparsemap::cli
