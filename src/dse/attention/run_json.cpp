// `sparsemap attention`'s JSON (to_json, the one place it is built) and its --plot (speedup and
// DRAM traffic against N, gnuplot).
#include <algorithm>
#include <fstream>
#include <sstream>

#include "sparsemap/dse/attention/run.h"
#include "sparsemap/error.h"
#include "sparsemap/plot/gnuplot.h"

namespace sparsemap::dse::attention {
namespace {

using nlohmann::json;

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

// One length's FLAT configuration and cost.
json flat_json(const SeqResult& r) {
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
  return f;
}

json summary_json(const SummaryRow& s) {
  json j = {{"hw", s.hw},
            {"model", s.model},
            {"speedup_geomean", s.speedup_geomean},
            {"energy_saving_pct_geomean", s.energy_saving_pct_geomean},
            {"paper_speedup", paper_speedup(s.hw)},
            {"paper_energy_saving_pct", paper_energy_saving_pct(s.hw)}};
  if (s.model != "all") j["layer_speedup_geomean"] = s.layer_speedup_geomean;
  return j;
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

}  // namespace

json case_json(const Options& o, const CaseResult& c) {
  json rows = json::array();
  for (const auto& r : c.rows) {
    json b = cost_json(r.base);
    b["qk_mapping"] = r.gemms.qk_mapping;
    b["av_mapping"] = r.gemms.av_mapping;
    rows.push_back({{"seq", r.seq},
                    {"flat", flat_json(r)},
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
          {"objective", o.objective},
          {"algo", o.algo},
          {"shape",
           {{"heads", s.heads}, {"e", s.e}, {"f", s.f}, {"d_model", s.d_model}, {"ffn", s.ffn}}},
          {"results", rows}};
}

json to_json(const Result& r) {
  if (!r.options.table) return case_json(r.options, r.cases.at(0));
  json cj = json::array();
  for (const auto& c : r.cases) cj.push_back(case_json(r.options, c));
  json summary = json::array();
  for (const auto& s : r.summary) summary.push_back(summary_json(s));
  return {{"table", cj}, {"summary", summary}};
}

void write_plot(const Result& r, const std::string& plot) {
  const std::vector<CaseResult>& cases = r.cases;
  const std::string data = plot + ".csv";
  std::ofstream d(data);
  d << "case,seq,speedup,flat_dram_bytes,baseline_dram_bytes\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    if (i) d << "\n\n";  // one gnuplot data block per case
    for (const auto& row : cases[i].rows)
      d << cases[i].model << "@" << cases[i].hw << "," << row.seq << "," << row.speedup() << ","
        << row.flat.cost.dram_bytes << "," << row.base.dram_bytes << "\n";
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
  gp << "plot ";
  for (size_t i = 0; i < cases.size(); ++i)
    gp << (i ? ", " : "") << plot::gnuplot_quote(data) << " index " << i
       << " every ::" << (i == 0 ? 1 : 0) << " using 2:3 with linespoints title "
       << plot::gnuplot_quote(cases[i].model + " " + cases[i].hw) << " noenhanced";
  gp << "\n";
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

}  // namespace sparsemap::dse::attention
