// `sparsemap attention`: FLAT's fused attention dataflow against the unfused baseline, per
// sequence length, with the chosen configuration and the effect on the whole transformer layer;
// `--table` runs FLAT's four models on edge and cloud beside the paper's headline figures.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "commands.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/attention.h"
#include "sparsemap/dse/attention/attention_search.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/plot/gnuplot.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::cli {
namespace {

namespace at = dse::attention;
using nlohmann::json;

struct AttentionArgs {
  std::string model = "bert", seq = "512,1K,2K,4K,8K,16K,32K,64K", hw = "flat-edge";
  std::string objective = "latency", algo = "exhaustive", json, plot;
  int64_t batch = 64, budget = 2000, map_budget = 10000;
  static constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();
  int64_t heads = kUnset, head_dim = kUnset, v_head_dim = kUnset, d_model = kUnset, ffn = kUnset;
  uint64_t seed = 1;
  bool table = false, quiet = false;
};

// FLAT's workloads (FuseMax's flat_validation.csv columns B, D, E, F, H, S).
struct BuiltinModel {
  const char* name;
  int64_t d_model, heads, e, f, ffn;
};
constexpr BuiltinModel kBuiltin[] = {{"bert", 768, 12, 64, 64, 3072},
                                     {"trxl", 1024, 16, 64, 64, 4096},
                                     {"t5", 512, 8, 64, 64, 2048},
                                     {"xlm", 2048, 16, 128, 128, 8192}};

// The attention shape of a builtin model or of a zoo model's first attention block.
cost::AttentionShape model_shape(const AttentionArgs& a, std::string& name) {
  cost::AttentionShape s;
  s.batch = a.batch;
  bool found = false;
  for (const auto& m : kBuiltin)
    if (a.model == m.name) {
      s.heads = m.heads, s.e = m.e, s.f = m.f, s.d_model = m.d_model, s.ffn = m.ffn;
      name = m.name;
      found = true;
    }
  if (!found) {
    const workload::Model m = workload::zoo_model(a.model, {1, 0, 0});
    name = m.name;
    const workload::Layer* scores = nullptr;
    const workload::Layer* context = nullptr;
    int64_t ffn = 0;
    for (const auto& l : m.layers) {
      if (l.kind == workload::OpKind::BatchedGemm) {
        if (!scores) {
          scores = &l;
        } else if (!context) {
          context = &l;
        } else {
          break;
        }
      } else if (scores && (l.kind == workload::OpKind::Gemm || l.kind == workload::OpKind::Fc)) {
        ffn = std::max(ffn, l.kind == workload::OpKind::Gemm ? l.dim(workload::Dim::N)
                                                             : l.dim(workload::Dim::K));
      }
    }
    if (!scores || !context)
      throw InputError({"<flag --model>", 0, 0},
                       "model '" + a.model + "' has no attention (Q K^T and A V batched GEMMs); " +
                           "expected bert, trxl, t5, xlm or a transformer of the zoo");
    s.heads = scores->dim(workload::Dim::G);  // batch 1
    s.e = scores->dim(workload::Dim::K);
    s.f = context->dim(workload::Dim::N);
    s.d_model = s.heads * s.e;
    s.ffn = ffn;
  }
  constexpr int64_t kUnset = AttentionArgs::kUnset;
  if (a.heads != kUnset) s.heads = a.heads;
  if (a.head_dim != kUnset) s.e = a.head_dim, s.f = a.head_dim;
  if (a.v_head_dim != kUnset) s.f = a.v_head_dim;
  if (a.d_model != kUnset) s.d_model = a.d_model;
  if (a.ffn != kUnset) s.ffn = a.ffn;
  return s;
}

// "512,1K,64K,1M" -> tokens. Throws InputError naming the bad item.
std::vector<int64_t> parse_seqs(const std::string& text) {
  std::vector<int64_t> out;
  for (const auto& item : split_list(text)) {
    int64_t mult = 1;
    std::string digits = item;
    const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(item.back())));
    if (last == 'K' || last == 'M') {
      mult = last == 'K' ? 1024 : 1024 * 1024;
      digits.pop_back();
    }
    const bool ok =
        !digits.empty() && digits.size() <= 9 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!ok)
      throw InputError({"<flag --seq>", 0, 0},
                       "expected sequence lengths like 512,1K,64K,1M (got '" + item + "')");
    out.push_back(std::stoll(digits) * mult);
    if (out.back() < 1 || out.back() > (int64_t{1} << 24))
      throw InputError({"<flag --seq>", 0, 0},
                       "expected sequence lengths of 1 to 16M tokens (got '" + item + "')");
  }
  if (out.empty()) throw InputError({"<flag --seq>", 0, 0}, "expected at least one length");
  return out;
}

std::string seq_text(int64_t n) {
  if (n >= 1048576 && n % 1048576 == 0) return std::to_string(n / 1048576) + "M";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n / 1024) + "K";
  return std::to_string(n);
}

struct SeqResult {
  int64_t seq = 0;
  at::FlatChoice flat;
  cost::AttentionCost base;
  at::MappedBlock gemms;
  double speedup() const { return base.latency_s / flat.cost.latency_s; }
  double energy_saving_pct() const { return 100.0 * (1.0 - flat.cost.energy_pj / base.energy_pj); }
  double layer_speedup() const {
    return (base.latency_s + gemms.rest.latency_s) / (flat.cost.latency_s + gemms.rest.latency_s);
  }
};

struct CaseResult {
  std::string hw, model;
  cost::AttentionShape shape;
  std::vector<SeqResult> rows;
};

json cost_json(const cost::AttentionCost& c) {
  json j = {
      {"latency_s", c.latency_s},
      {"energy_pj", c.energy_pj},
      {"dram_bytes", c.dram_bytes},
      {"footprint_bytes", c.footprint_bytes},
      {"bound", std::string(cost::bound_name(c.bound))},
      {"compute_s", c.compute_s},
      {"softmax_s", c.softmax_s},
      {"memory_s", c.memory_s},
      {"spilled_fraction", c.spilled_fraction},
      {"spill_dram_bytes", c.spill_dram_bytes},
      {"softmax_dram_bytes", c.softmax_dram_bytes},
      {"stages",
       {{"qk", {{"dram_bytes", c.stage_dram_bytes[0]}, {"compute_s", c.stage_compute_s[0]}}},
        {"softmax", {{"dram_bytes", c.stage_dram_bytes[1]}, {"compute_s", c.stage_compute_s[1]}}},
        {"av", {{"dram_bytes", c.stage_dram_bytes[2]}, {"compute_s", c.stage_compute_s[2]}}}}},
      {"energy_breakdown_pj",
       {{"dram", c.dram_pj},
        {"mac", c.mac_pj},
        {"buffer", c.buffer_pj},
        {"softmax", c.softmax_pj}}}};
  return j;
}

json case_json(const CaseResult& c, const AttentionArgs& a) {
  json rows = json::array();
  for (const auto& r : c.rows) {
    json f = cost_json(r.flat.cost);
    f["granularity"] = std::string(cost::granularity_name(r.flat.config.granularity));
    f["row_tile"] =
        r.flat.config.granularity == cost::Granularity::Row ? r.flat.config.row_tile : r.seq;
    json placement = json::object();
    for (int t = 0; t < cost::kNumAttnTensors; ++t)
      placement[std::string(cost::attn_tensor_name(t))] =
          r.flat.config.on_chip[t] ? "onchip" : "offchip";
    f["placement"] = placement;
    f["qk_stationarity"] = std::string(cost::stationarity_name(r.flat.config.qk));
    f["av_stationarity"] = std::string(cost::stationarity_name(r.flat.config.av));
    f["config"] = cost::config_text(r.flat.config);
    f["evaluations"] = r.flat.evaluations;
    json b = cost_json(r.base);
    b["qk_mapping"] = r.gemms.qk_mapping;
    b["av_mapping"] = r.gemms.av_mapping;
    rows.push_back({{"seq", r.seq},
                    {"flat", f},
                    {"baseline", b},
                    {"speedup", r.speedup()},
                    {"energy_saving_pct", r.energy_saving_pct()},
                    {"layer",
                     {{"rest_latency_s", r.gemms.rest.latency_s},
                      {"rest_energy_pj", r.gemms.rest.energy_pj},
                      {"rest_dram_bytes", r.gemms.rest.dram_bytes},
                      {"flat_latency_s", r.flat.cost.latency_s + r.gemms.rest.latency_s},
                      {"baseline_latency_s", r.base.latency_s + r.gemms.rest.latency_s},
                      {"speedup", r.layer_speedup()}}},
                    {"gemm_evaluations", r.gemms.evaluations}});
  }
  const auto& s = c.shape;
  return {{"hw", c.hw},
          {"model", c.model},
          {"batch", s.batch},
          {"objective", a.objective},
          {"algo", a.algo},
          {"shape",
           {{"heads", s.heads}, {"e", s.e}, {"f", s.f}, {"d_model", s.d_model}, {"ffn", s.ffn}}},
          {"results", rows}};
}

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

void print_case(const CaseResult& c) {
  const auto& s = c.shape;
  std::cout << "attention " << c.model << " on " << c.hw << ": B=" << s.batch << " H=" << s.heads
            << " E=" << s.e << " F=" << s.f << " D=" << s.d_model << " FFN=" << s.ffn << "\n";
  Table t({"N", "FLAT ms", "base ms", "speedup", "E save%", "FLAT GB", "base GB", "bound F/B",
           "fp MiB", "layer x", "FLAT config (gran R on-chip qk/av)"});
  for (const auto& r : c.rows)
    t.add({seq_text(r.seq), ms(r.flat.cost.latency_s), ms(r.base.latency_s), fixed(r.speedup(), 2),
           fixed(r.energy_saving_pct(), 1), gb(r.flat.cost.dram_bytes), gb(r.base.dram_bytes),
           std::string(cost::bound_name(r.flat.cost.bound)).substr(0, 4) + "/" +
               std::string(cost::bound_name(r.base.bound)).substr(0, 4),
           fixed(r.flat.cost.footprint_bytes / 1048576.0, 2), fixed(r.layer_speedup(), 2),
           config_short(r.flat.config)});
  std::cout << t.str();
}

CaseResult run_case(const AttentionArgs& a, const std::string& hw_name, const std::string& model,
                    const std::vector<int64_t>& seqs, bool bar) {
  AttentionArgs am = a;
  am.model = model;
  CaseResult c;
  c.shape = model_shape(am, c.model);
  const arch::Arch arch = io::load_arch(hw_name);
  const cost::AttentionHw hw = cost::attention_hw(arch, hw_name);
  c.hw = arch.name.empty() ? hw_name : arch.name;
  at::SearchOptions so;
  so.objective = at::parse_objective(a.objective);
  so.algo = a.algo;
  so.budget = a.budget;
  so.seed = a.seed;
  for (int64_t n : seqs) {
    cost::AttentionShape s = c.shape;
    s.queries = s.keys = n;
    cost::validate_attention(s, hw, "<flags>");
    if (bar)
      std::fprintf(stderr, "\r%s %s N=%s ...   ", c.model.c_str(), c.hw.c_str(),
                   seq_text(n).c_str());
    SeqResult r;
    r.seq = n;
    r.gemms = at::map_block(s, arch, a.map_budget, a.seed);
    r.base = at::best_unfused(s, hw, r.gemms);
    so.flat.qk_compute_s = r.gemms.qk_s;
    so.flat.av_compute_s = r.gemms.av_s;
    r.flat = at::search_flat(s, hw, so);
    c.rows.push_back(r);
  }
  if (bar) std::fprintf(stderr, "\r%60s\r", "");
  return c;
}

// gnuplot xtics "'512' 512, '1K' 1024, ..." over every length of the cases.
std::string xtics(const std::vector<CaseResult>& cases) {
  std::vector<int64_t> seqs;
  for (const auto& c : cases)
    for (const auto& r : c.rows) seqs.push_back(r.seq);
  std::sort(seqs.begin(), seqs.end());
  seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
  std::string s;
  for (int64_t n : seqs)
    s += (s.empty() ? "" : ", ") + plot::gnuplot_quote(seq_text(n)) + " " + std::to_string(n);
  return s;
}

void write_plot(const std::vector<CaseResult>& cases, const std::string& plot) {
  const std::string data = plot + ".csv";
  std::ofstream d(data);
  d << "case,seq,speedup,flat_dram_bytes,baseline_dram_bytes\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    if (i) d << "\n\n";  // one gnuplot data block per case
    for (const auto& r : cases[i].rows)
      d << cases[i].model << "@" << cases[i].hw << "," << r.seq << "," << r.speedup() << ","
        << r.flat.cost.dram_bytes << "," << r.base.dram_bytes << "\n";
  }
  d.close();
  if (!d) throw InputError({data, 0, 0}, "cannot write the plot data");
  std::ostringstream gp;
  gp << plot::gnuplot_header(plot, 900, 800) << "set datafile separator ','\n"
     << "set multiplot layout 2,1 title "
     << plot::gnuplot_quote("FLAT vs the unfused baseline (sparsemap attention)") << " noenhanced\n"
     << "set logscale x 2\nset grid\nset key outside right\nset xlabel 'sequence length N'\n"
     << "set xtics (" << xtics(cases) << ")\n"
     << "set ylabel 'speedup (baseline / FLAT latency)'\n";
  auto plot_blocks = [&](const std::string& using_expr, const std::string& suffix) {
    gp << "plot ";
    for (size_t i = 0; i < cases.size(); ++i)
      gp << (i ? ", " : "") << plot::gnuplot_quote(data) << " index " << i
         << " every ::" << (i == 0 ? 1 : 0) << " using 2:" << using_expr
         << " with linespoints title "
         << plot::gnuplot_quote(cases[i].model + " " + cases[i].hw + suffix) << " noenhanced";
    gp << "\n";
  };
  plot_blocks("3", "");
  gp << "set logscale y\nset ylabel 'DRAM traffic (GB)'\n";
  gp << "plot ";
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string q = plot::gnuplot_quote(data);
    const std::string title = cases[i].model + " " + cases[i].hw;
    gp << (i ? ", " : "") << q << " index " << i << " every ::" << (i == 0 ? 1 : 0)
       << " using 2:($4/1e9) with linespoints title " << plot::gnuplot_quote(title + " FLAT")
       << " noenhanced, " << q << " index " << i << " every ::" << (i == 0 ? 1 : 0)
       << " using 2:($5/1e9) with linespoints dt 2 title "
       << plot::gnuplot_quote(title + " baseline") << " noenhanced";
  }
  gp << "\nunset multiplot\n";
  plot::render_gnuplot(gp.str(), plot + ".gp", data);
}

// The four models on edge and cloud (512 .. 64K; cloud also 256K and 1M), then the summary
// beside FLAT's headline figures.
void run_table(const AttentionArgs& a, bool bar) {
  const std::vector<int64_t> base_seqs = parse_seqs("512,1K,2K,4K,8K,16K,32K,64K");
  std::vector<CaseResult> cases;
  for (const char* hw : {"flat-edge", "flat-cloud"})
    for (const auto& m : kBuiltin) {
      std::vector<int64_t> seqs = base_seqs;
      if (std::string(hw) == "flat-cloud") {
        seqs.push_back(256 * 1024);
        seqs.push_back(1024 * 1024);
      }
      cases.push_back(run_case(a, hw, m.name, seqs, bar));
      print_case(cases.back());
      std::cout << "\n";
    }
  Table t({"hw", "model", "speedup 512-64K", "paper", "E save% 512-64K", "paper", "x 256K", "x 1M",
           "layer x 512-64K"});
  json summary = json::array();
  for (const char* hw : {"flat-edge", "flat-cloud"}) {
    std::vector<double> all_x, all_e;
    for (const auto& c : cases) {
      if (c.hw != hw) continue;
      std::vector<double> x, e, lx;
      std::string x256 = "-", x1m = "-";
      for (const auto& r : c.rows) {
        if (r.seq <= 65536) {
          x.push_back(r.speedup());
          e.push_back(r.flat.cost.energy_pj / r.base.energy_pj);
          lx.push_back(r.layer_speedup());
        } else if (r.seq == 256 * 1024) {
          x256 = fixed(r.speedup(), 2);
        } else if (r.seq == 1024 * 1024) {
          x1m = fixed(r.speedup(), 2);
        }
      }
      all_x.insert(all_x.end(), x.begin(), x.end());
      all_e.insert(all_e.end(), e.begin(), e.end());
      const bool edge = std::string(hw) == "flat-edge";
      t.add({hw, c.model, fixed(geomean(x), 2), edge ? "1.94" : "1.76",
             fixed(100 * (1 - geomean(e)), 1), edge ? "49" : "42", x256, x1m,
             fixed(geomean(lx), 2)});
      summary.push_back({{"hw", hw},
                         {"model", c.model},
                         {"speedup_geomean", geomean(x)},
                         {"energy_saving_pct_geomean", 100 * (1 - geomean(e))},
                         {"layer_speedup_geomean", geomean(lx)},
                         {"paper_speedup", edge ? 1.94 : 1.76},
                         {"paper_energy_saving_pct", edge ? 49 : 42}});
    }
    const bool edge = std::string(hw) == "flat-edge";
    t.add({hw, "all", fixed(geomean(all_x), 2), edge ? "1.94" : "1.76",
           fixed(100 * (1 - geomean(all_e)), 1), edge ? "49" : "42", "", "", ""});
    summary.push_back({{"hw", hw},
                       {"model", "all"},
                       {"speedup_geomean", geomean(all_x)},
                       {"energy_saving_pct_geomean", 100 * (1 - geomean(all_e))},
                       {"paper_speedup", edge ? 1.94 : 1.76},
                       {"paper_energy_saving_pct", edge ? 49 : 42}});
  }
  std::cout << "FLAT over the unfused baseline (geometric means over N = 512 .. 64K, B = "
            << a.batch << ", " << a.objective << " objective)\n"
            << t.str();
  if (!a.json.empty()) {
    json cj = json::array();
    for (const auto& c : cases) cj.push_back(case_json(c, a));
    write_json({{"table", cj}, {"summary", summary}}, a.json);
  }
  if (!a.plot.empty()) write_plot(cases, a.plot);
}

// Each size flag within what the cost model takes (cost::validate_attention), blamed by name
// before any work (the shape check after the model is read only knows "<flags>").
void check_size_flags(const AttentionArgs& a) {
  constexpr int64_t kMaxSize = int64_t{1} << 24;  // validate_attention's bound
  const std::string most = "16,777,216";
  auto in_range = [&](const char* flag, int64_t v, int64_t lo) {
    if (v == AttentionArgs::kUnset) return;
    if (v < lo || v > kMaxSize)
      throw InputError({flag, 0, 0}, "expected " + std::to_string(lo) + " to " + most + ", found " +
                                         std::to_string(v));
  };
  in_range("<flag --batch>", a.batch, 1);
  in_range("<flag --heads>", a.heads, 1);
  in_range("<flag --head-dim>", a.head_dim, 1);
  in_range("<flag --v-head-dim>", a.v_head_dim, 1);
  in_range("<flag --d-model>", a.d_model, 1);
  in_range("<flag --ffn>", a.ffn, 1);
  if (a.budget < 1 || a.budget > search::kMaxBudget)
    throw InputError({"<flag --budget>", 0, 0}, "expected 1 to " + with_commas(search::kMaxBudget) +
                                                    " samples, found " + std::to_string(a.budget));
  if (a.map_budget < 1 || a.map_budget > search::kMaxBudget)
    throw InputError({"<flag --map-budget>", 0, 0},
                     "expected 1 to " + with_commas(search::kMaxBudget) + " samples, found " +
                         std::to_string(a.map_budget));
}

void run(const AttentionArgs& a) {
  check_size_flags(a);
  std::error_code ec;
  if (!a.json.empty() && a.json != "-" && std::filesystem::is_directory(a.json, ec))
    throw InputError({a.json, 0, 0}, "cannot write the JSON file: is a directory (--json)");
  at::parse_objective(a.objective);
  if (!a.plot.empty() && !plot::is_plot_path(a.plot))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file");
  const bool bar = !a.quiet && isatty(2);
  if (a.table) return run_table(a, bar);
  const std::vector<int64_t> seqs = parse_seqs(a.seq);
  const CaseResult c = run_case(a, a.hw, a.model, seqs, bar);
  const bool json_stdout = a.json == "-";
  if (!json_stdout) print_case(c);
  if (!a.json.empty()) write_json(case_json(c, a), a.json);
  if (!a.plot.empty()) write_plot({c}, a.plot);
}

}  // namespace

void register_attention(CLI::App& app) {
  auto a = std::make_shared<AttentionArgs>();
  CLI::App* cmd = app.add_subcommand(
      "attention", "FLAT's fused attention dataflow vs the unfused baseline, per sequence length");
  cmd->add_option("--model", a->model,
                  "bert, trxl, t5, xlm (FLAT's workloads) or a zoo transformer")
      ->capture_default_str();
  cmd->add_option("--seq", a->seq, "Sequence lengths, e.g. 512,4K,64K,1M")->capture_default_str();
  cmd->add_option("--batch", a->batch, "Batch size")->capture_default_str();
  cmd->add_option("--hw", a->hw, "flat-edge, flat-cloud, another preset or an arch file")
      ->capture_default_str();
  cmd->add_option("--objective", a->objective, "latency or energy")->capture_default_str();
  cmd->add_option("--algo", a->algo,
                  "FLAT search: exhaustive, or ga, random, sa, de, pso, cmaes, oneplusone, bo")
      ->capture_default_str();
  cmd->add_option("--budget", a->budget, "Samples of a non-exhaustive FLAT search")
      ->capture_default_str();
  cmd->add_option("--map-budget", a->map_budget,
                  "GAMMA samples per GEMM mapping (QK, AV, projections, FFN)")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Random seed")->capture_default_str();
  cmd->add_option("--heads", a->heads, "Override the model's heads");
  cmd->add_option("--head-dim", a->head_dim, "Override E and F (head dimension)");
  cmd->add_option("--v-head-dim", a->v_head_dim, "Override F (V head dimension)");
  cmd->add_option("--d-model", a->d_model, "Override the model dimension");
  cmd->add_option("--ffn", a->ffn, "Override the FFN dimension");
  cmd->add_option("--json", a->json, "Write JSON to FILE, or - for stdout");
  cmd->add_option("--plot", a->plot, "Speedup and DRAM traffic vs N, log x (FILE.png or .svg)");
  cmd->add_flag("--table", a->table,
                "The four models on flat-edge and flat-cloud (512..64K; cloud +256K, 1M) beside "
                "the paper's 1.94x/1.76x and 49%/42%");
  cmd->add_flag("--quiet", a->quiet, "No progress line");
  cmd->callback([a] { run(*a); });
}

}  // namespace sparsemap::cli
