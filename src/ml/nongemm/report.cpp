// Splits, horizons and the report formats (see report.h).
#include "sparsemap/ml/nongemm/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sparsemap/error.h"
#include "sparsemap/numbers.h"
#include "sparsemap/plot/gnuplot.h"

namespace sparsemap::ml::nongemm {
namespace {

Split empty_split() {
  Split s;
  for (const auto& g : nongemm_groups()) s.group_ms[g] = 0;
  return s;
}

nlohmann::json split_json(const Split& s) {
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& g : nongemm_groups()) groups[g] = s.pct(s.group_ms.at(g));
  return {{"gemm_pct", s.gemm_pct()},
          {"nongemm_pct", s.nongemm_pct()},
          {"attention_pct", s.pct(s.attention_ms)},
          {"total_ms", s.total_ms},
          {"groups", groups}};
}

// The NonGEMM group with the most time ("-" when there is none).
std::string top_group(const Split& s) {
  std::string best = "-";
  double best_ms = 0;
  for (const auto& g : nongemm_groups())
    if (s.group_ms.at(g) > best_ms) best = g, best_ms = s.group_ms.at(g);
  return best;
}

std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size(), 0);
  auto widen = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], r[i].size());
  };
  widen(header);
  for (const auto& r : rows) widen(r);
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size() && i < width.size(); ++i) {
      const bool left = i == 0;
      const std::string pad(width[i] - r[i].size(), ' ');
      os << (i ? "  " : "") << (left ? r[i] + pad : pad + r[i]);
    }
    os << "\n";
  };
  line(header);
  size_t total = 0;
  for (size_t w : width) total += w + 2;
  os << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
  for (const auto& r : rows) line(r);
  return os.str();
}

// `text` broken at spaces into lines of at most `width` characters.
std::vector<std::string> wrap_lines(const std::string& text, size_t width) {
  std::vector<std::string> lines(1);
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    if (!lines.back().empty() && lines.back().size() + 1 + w.size() > width) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + w;
  }
  return lines;
}

std::string size_text(const ResolvedOptions& r) {
  std::string s = "batch " + std::to_string(r.batch);
  if (r.seq_len > 0) s += ", seq " + std::to_string(r.seq_len);
  if (r.image_h > 0) s += ", image " + std::to_string(r.image_h) + "x" + std::to_string(r.image_w);
  if (r.layers_full > 0 && r.layers_run != r.layers_full)
    s += ", " + std::to_string(r.layers_run) + "/" + std::to_string(r.layers_full) +
         " blocks (scaled)";
  if (r.tiny) s += ", tiny";
  return s;
}

}  // namespace

Split split_profile(const Profile& p, double gemm_speedup) {
  SPARSEMAP_ASSERT(gemm_speedup > 0);
  Split s = empty_split();
  for (const OpStat& o : p.ops) {
    if (o.cls.group == kGemmGroup) {
      const double ms = o.ms / gemm_speedup;
      s.gemm_ms += ms;
      if (o.cls.attention) s.attention_ms += ms;
      s.total_ms += ms;
    } else {
      s.group_ms[o.cls.group] += o.ms;
      s.total_ms += o.ms;
    }
  }
  return s;
}

Split split_with_gemm_ms(const Profile& p, double gemm_ms) {
  const Split measured = split_profile(p);
  Split s = measured;
  const double scale = measured.gemm_ms > 0 ? gemm_ms / measured.gemm_ms : 0;
  s.gemm_ms = gemm_ms;
  s.attention_ms = measured.attention_ms * scale;
  s.total_ms = measured.nongemm_ms() + gemm_ms;
  return s;
}

nlohmann::json profile_json(const Profile& p, const std::vector<double>& speedups,
                            const std::optional<HwHorizon>& hw) {
  const Split s = split_profile(p);
  nlohmann::json groups = nlohmann::json::object(), groups_ms = nlohmann::json::object();
  for (const auto& g : nongemm_groups()) {
    groups[g] = s.pct(s.group_ms.at(g));
    groups_ms[g] = s.group_ms.at(g);
  }
  nlohmann::json ops = nlohmann::json::array(), unknown = nlohmann::json::array();
  for (const OpStat& o : p.ops) {
    ops.push_back({{"name", o.name},
                   {"group", o.cls.group},
                   {"attention", o.cls.attention},
                   {"calls", o.calls},
                   {"ms", o.ms},
                   {"pct", s.pct(o.ms)}});
    if (!o.cls.known) unknown.push_back(o.name);
  }
  const ResolvedOptions& r = p.run;
  nlohmann::json j = {
      {"model", r.model},
      {"batch", r.batch},
      {"seq_len", r.seq_len > 0 ? nlohmann::json(r.seq_len) : nlohmann::json(nullptr)},
      {"image", r.image_h > 0 ? nlohmann::json({r.image_h, r.image_w}) : nlohmann::json(nullptr)},
      {"layers_run", r.layers_run},
      {"layers_full", r.layers_full},
      {"tiny", r.tiny},
      {"seed", r.seed},
      {"threads", p.threads},
      {"iters", p.schedule.active},
      {"schedule",
       {{"skip", p.schedule.skip},
        {"wait", p.schedule.wait},
        {"warmup", p.schedule.warmup},
        {"active", p.schedule.active}}},
      {"torch_version", p.torch_version},
      {"blas", p.blas},
      {"blas_env", p.blas_env},
      {"reuse_memory", p.reuse_memory},
      {"load_avg_1min", p.load_avg_1min},
      {"statistic", statistic_name(p.statistic)},
      {"wall_ms", p.typical_wall_ms()},
      {"wall_ms_runs", p.wall_ms},
      {"ops_ms", p.typical_ops_ms()},
      {"ops_ms_runs", p.ops_ms},
      {"coverage_pct", p.coverage_pct()},
      {"unknown_pct", p.unknown_pct()},
      {"gemm_pct", s.gemm_pct()},
      {"nongemm_pct", s.nongemm_pct()},
      {"attention_pct", s.pct(s.attention_ms)},
      {"gemm_ms", s.gemm_ms},
      {"nongemm_ms", s.nongemm_ms()},
      {"groups", groups},
      {"groups_ms", groups_ms},
      {"unknown_ops", unknown},
      {"ops", ops}};
  nlohmann::json horizon = nlohmann::json::array();
  for (double f : speedups) {
    nlohmann::json h = split_json(split_profile(p, f));
    h["gemm_speedup"] = f;
    horizon.push_back(h);
  }
  j["horizon"] = horizon;
  if (hw) {
    nlohmann::json h = split_json(hw->split);
    h["arch"] = hw->arch;
    h["clock_mhz"] = hw->clock_mhz;
    h["dataflow"] = hw->dataflow;
    h["shapes"] = hw->shapes;
    h["failed_shapes"] = hw->failed;
    h["measured_gemm_ms"] = hw->measured_gemm_ms;
    h["modelled_gemm_ms"] = hw->modelled_gemm_ms;
    h["gemm_speedup"] = hw->modelled_gemm_ms > 0 ? hw->measured_gemm_ms / hw->modelled_gemm_ms : 0;
    j["hw"] = h;
  }
  return j;
}

std::string profile_text(const Profile& p, const std::vector<double>& speedups,
                         const std::optional<HwHorizon>& hw, size_t top) {
  const Split s = split_profile(p);
  std::ostringstream os;
  os << p.run.model << " (" << size_text(p.run) << "), " << p.threads << " thread"
     << (p.threads == 1 ? "" : "s") << ", " << p.schedule.active << " active runs\n";
  os << "wall " << fixed(p.typical_wall_ms(), 2) << " ms per inference ("
     << statistic_name(p.statistic) << " of the runs); top-level operators "
     << fixed(p.typical_ops_ms(), 2) << " ms (" << fixed(p.coverage_pct(), 1) << "% of wall); "
     << "unnamed operators " << fixed(p.unknown_pct(), 2) << "%\n";
  // Two lines: the library's own description and the environment each fit 120 columns.
  os << "BLAS: " << p.blas << "\nBLAS environment: " << p.blas_env << "\n"
     << (p.reuse_memory ? "freed memory kept (--reuse-memory)\n" : "") << "\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"GEMM", fixed(s.gemm_ms, 3), fixed(s.gemm_pct(), 1)});
  rows.push_back({"  attention", fixed(s.attention_ms, 3), fixed(s.pct(s.attention_ms), 1)});
  rows.push_back({"NonGEMM", fixed(s.nongemm_ms(), 3), fixed(s.nongemm_pct(), 1)});
  for (const auto& g : nongemm_groups())
    if (s.group_ms.at(g) > 0)
      rows.push_back({"  " + g, fixed(s.group_ms.at(g), 3), fixed(s.pct(s.group_ms.at(g)), 1)});
  os << table({"group", "ms", "%"}, rows) << "\n";
  rows.clear();
  for (size_t i = 0; i < p.ops.size() && i < top; ++i) {
    const OpStat& o = p.ops[i];
    rows.push_back({o.name, o.cls.group + (o.cls.attention ? " (attention)" : ""),
                    fixed(o.calls, 0), fixed(o.ms, 3), fixed(s.pct(o.ms), 1)});
  }
  os << table({"operator", "group", "calls", "ms", "%"}, rows);
  if (p.ops.size() > top) os << "(" << p.ops.size() - top << " more operators in --json)\n";
  std::vector<std::string> unknown;
  for (const OpStat& o : p.ops)
    if (!o.cls.known) unknown.push_back(o.name);
  if (!unknown.empty()) {
    os << "not in the taxonomy (counted as other):";
    for (const auto& u : unknown) os << " " << u;
    os << "\n";
  }
  if (!speedups.empty() || hw) {
    rows.clear();
    for (double f : speedups) {
      const Split h = split_profile(p, f);
      rows.push_back({"GEMM x" + fixed(f, f == static_cast<int64_t>(f) ? 0 : 2),
                      fixed(h.total_ms, 3), fixed(h.gemm_pct(), 1), fixed(h.nongemm_pct(), 1),
                      top_group(h)});
    }
    if (hw)
      rows.push_back({hw->arch + " @" + fixed(hw->clock_mhz, 0) + " MHz",
                      fixed(hw->split.total_ms, 3), fixed(hw->split.gemm_pct(), 1),
                      fixed(hw->split.nongemm_pct(), 1), top_group(hw->split)});
    os << "\nhorizon (NonGEMM operators at their measured time)\n"
       << table({"GEMMs", "total ms", "GEMM %", "NonGEMM %", "largest NonGEMM"}, rows);
    if (hw)
      os << "  " << hw->arch << ": " << hw->shapes << " GEMM shapes under " << hw->dataflow
         << "\n  modelled " << fixed(hw->modelled_gemm_ms, 3) << " ms vs measured "
         << fixed(hw->measured_gemm_ms, 3) << " ms"
         << (hw->failed ? ", " + std::to_string(hw->failed) + " kept at CPU time" : "") << "\n";
  }
  return os.str();
}

std::string suite_text(const std::vector<Profile>& profiles, const std::vector<double>& speedups,
                       const std::vector<HwHorizon>& hw) {
  SPARSEMAP_ASSERT(hw.empty() || hw.size() == profiles.size());
  std::vector<std::string> header = {"model",  "sizes",     "wall ms",
                                     "GEMM %", "NonGEMM %", "largest NonGEMM"};
  // Narrow headers (the table fits 120 columns with a few speedups): "NG %" is NonGEMM %, and
  // the accelerator is named under the table.
  for (double f : speedups) header.push_back("NG % @x" + fixed(f, 0));
  if (!hw.empty()) {
    header.push_back("NG % @hw");
    header.push_back("GEMM x @hw");
  }
  header.push_back("cover %");
  header.push_back("unnamed %");
  std::vector<std::vector<std::string>> rows;
  for (const Profile& p : profiles) {
    const Split s = split_profile(p);
    std::vector<std::string> r = {p.run.model,
                                  size_text(p.run),
                                  fixed(p.typical_wall_ms(), 1),
                                  fixed(s.gemm_pct(), 1),
                                  fixed(s.nongemm_pct(), 1),
                                  top_group(s)};
    if (r.back() != "-") r.back() += " " + fixed(s.pct(s.group_ms.at(r.back())), 1);
    for (double f : speedups) r.push_back(fixed(split_profile(p, f).nongemm_pct(), 1));
    if (!hw.empty()) {
      const HwHorizon& h = hw[rows.size()];
      r.push_back(fixed(h.split.nongemm_pct(), 1));
      r.push_back(h.modelled_gemm_ms > 0 ? fixed(h.measured_gemm_ms / h.modelled_gemm_ms, 1) : "-");
    }
    r.push_back(fixed(p.coverage_pct(), 1));
    r.push_back(fixed(p.unknown_pct(), 2));
    rows.push_back(std::move(r));
  }
  // The reference range: NonGEMM Bench (Karami, Kao, Kwon, ISPASS 2025), average NonGEMM share
  // of latency per platform across its models.
  std::string notes = "NG %: NonGEMM share of operator time";
  if (!speedups.empty()) notes += "; @xF: with GEMMs F times faster";
  if (!hw.empty())
    notes += "; @hw: GEMMs at the cost model's runtime on " + hw[0].arch +
             " (GEMM x: measured / modelled GEMM time)";
  std::string out = table(header, rows);
  for (const std::string& l : wrap_lines(notes, 118)) out += l + "\n";
  return out +
         "paper (NonGEMM Bench, ISPASS 2025): NonGEMM 11.3% to 73.6% of latency on average "
         "across platforms\n";
}

nlohmann::json chrome_trace(const Profile& p) {
  nlohmann::json events = nlohmann::json::array();
  for (const TraceEvent& e : p.trace) {
    events.push_back({{"name", e.name},
                      {"cat", e.group.empty() ? "run" : e.group},
                      {"ph", "X"},
                      {"ts", e.ts_us},
                      {"dur", e.dur_us},
                      {"pid", 0},
                      {"tid", e.iteration < 0 ? 0 : 1},
                      {"args", {{"group", e.group}, {"run", e.iteration}}}});
  }
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 0},
                    {"args", {{"name", "sparsemap nongemm " + p.run.model}}}});
  events.push_back(
      {{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0}, {"args", {{"name", "runs"}}}});
  events.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", 0},
                    {"tid", 1},
                    {"args", {{"name", "top-level operators"}}}});
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

namespace {

// One colour per group, in all_groups() order (gemm first).
const std::vector<std::string> kColours = {"#4c72b0", "#dd8452", "#55a868", "#c44e52",
                                           "#8172b3", "#937860", "#da8bc3", "#8c8c8c",
                                           "#ccb974", "#64b5cd", "#2f4f4f", "#000000"};

}  // namespace

void check_plot_path(const std::string& plot_path) {
  if (!plot::is_plot_path(plot_path))
    throw InputError({"<flag --plot>", 0, 0},
                     "the plot file must end in .png or .svg (got '" + plot_path + "')");
}

void write_group_plot(const std::vector<Profile>& profiles, const std::vector<double>& speedups,
                      const std::string& plot_path, const std::vector<HwHorizon>& hw) {
  SPARSEMAP_ASSERT(hw.empty() || hw.size() == profiles.size());
  check_plot_path(plot_path);
  // Named after the whole plot path (groups.png -> groups.png.csv), as every --plot does, so
  // that a plot never overwrites a user's groups.csv.
  const std::string csv = plot_path + ".csv", script = plot_path + ".gp";
  {
    std::ofstream out(csv);
    out << "bar,gemm";
    for (const auto& g : nongemm_groups()) out << "," << g;
    out << "\n";
    std::vector<double> factors = {1.0};
    for (double f : speedups) factors.push_back(f);
    auto bar = [&](const std::string& name, const Split& s) {
      out << name << "," << s.gemm_pct();
      for (const auto& g : nongemm_groups()) out << "," << s.pct(s.group_ms.at(g));
      out << "\n";
    };
    for (size_t i = 0; i < profiles.size(); ++i) {
      const Profile& p = profiles[i];
      for (double f : factors)
        bar(p.run.model + (f == 1.0 ? "" : " x" + fixed(f, 0)), split_profile(p, f));
      if (!hw.empty()) bar(p.run.model + " @" + hw[i].arch, hw[i].split);  // the --hw horizon
    }
    if (!out) throw InputError({csv, 0, 0}, "cannot write the plot data");
  }
  std::ostringstream out;
  out << plot::gnuplot_header(plot_path, 1400, 700)
      << "set datafile separator ','\nset style data histograms\n"
      << "set style histogram rowstacked\nset style fill solid 0.9 border -1\n"
      << "set boxwidth 0.75\nset key outside right\nset yrange [0:100]\n"
      << "set ylabel 'share of operator time (%)'\nset xtics rotate by -45 noenhanced\n"
      << "set title 'GEMM vs NonGEMM operator time (sparsemap nongemm)' noenhanced\n"
      << "plot " << plot::gnuplot_quote(csv) << " using 2:xtic(1) title 'gemm' lc rgb '"
      << kColours[0] << "'";
  for (size_t i = 0; i < nongemm_groups().size(); ++i)
    out << ", '' using " << i + 3 << " title " << plot::gnuplot_quote(nongemm_groups()[i])
        << " lc rgb '" << kColours[(i + 1) % kColours.size()] << "'";
  out << "\n";
  plot::render_gnuplot(out.str(), script, csv);
}

}  // namespace sparsemap::ml::nongemm
