// The report as one HTML page (inline CSS and SVG, no scripts) and as terminal text; its JSON is
// report_json.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "sparsemap/numbers.h"
#include "sparsemap/plot/svg.h"
#include "sparsemap/report/report.h"

namespace sparsemap::report {

namespace {

namespace svg = plot::svg;
using svg::escape;

// `fixed` that prints a NaN or an infinity (a ratio over nothing) as 0.
std::string fixed_finite(double v, int digits) { return fixed(std::isfinite(v) ? v : 0.0, digits); }

// with_commas: 4090000000 -> "4,090,000,000" (tables); short_num -> "4.09G" (tiles, labels).
std::string short_num(int64_t v) { return svg::label(static_cast<double>(v)); }

std::string pct(double v) { return fixed_finite(v, 1) + "%"; }

// Milliseconds of `cycles` at `clock_mhz`.
double cycles_ms(int64_t cycles, double clock_mhz) {
  return clock_mhz > 0 ? static_cast<double>(cycles) / (clock_mhz * 1e3) : 0;
}

std::string bytes_text(int64_t b) {
  if (b >= (int64_t{1} << 20) && b % (int64_t{1} << 20) == 0) return with_commas(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0) return with_commas(b >> 10) + " KiB";
  return with_commas(b) + " B";
}

const char* kCss = R"(
:root { --ink: #1f2328; --muted: #59636e; --line: #d8dee4; --card: #ffffff; --bg: #f3f5f7;
  --accent: #0072B2; --warn: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.5 system-ui, 'Segoe UI', Roboto, 'DejaVu Sans', Helvetica, Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 20px 40px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 0 0 8px; }
h3 { font-size: 16px; margin: 18px 0 6px; }
.sub { color: var(--muted); margin: 0 0 18px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 18px 22px; margin: 0 0 20px; box-shadow: 0 1px 2px rgba(0,0,0,0.04); }
.explain { margin: 0 0 10px; max-width: 100ch; }
.cmd { margin: 0 0 12px; font-size: 13px; color: var(--muted); }
code, .mono { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12.5px; }
.cmd code { background: #f0f2f4; border: 1px solid var(--line); border-radius: 5px;
  padding: 2px 6px; color: var(--ink); word-break: break-all; }
.tiles { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; }
.tile { border: 1px solid var(--line); border-left: 4px solid var(--accent); border-radius: 8px;
  padding: 10px 12px; background: #fbfcfd; }
.tile .k { font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
.tile .v { font-size: 22px; font-weight: 650; margin: 2px 0; }
.tile .n { font-size: 12.5px; color: var(--muted); }
table { border-collapse: collapse; width: 100%; font-size: 13px; margin: 8px 0 4px; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: right;
  vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; position: sticky; top: 0; }
td.l, th.l { text-align: left; }
td.map { text-align: left; font-family: 'DejaVu Sans Mono', Menlo, monospace; font-size: 11px;
  color: var(--muted); }
tr.front td { background: #fff6e0; }
details summary { cursor: pointer; color: var(--accent); margin: 8px 0; }
.note { border-left: 4px solid var(--warn); background: #fff8e6; padding: 8px 12px;
  border-radius: 6px; margin: 8px 0 12px; }
.chart { overflow-x: auto; margin: 6px 0; }
svg { display: block; max-width: 100%; height: auto; }
footer { color: var(--muted); font-size: 12.5px; text-align: center; }
)";

std::string tile(const std::string& key, const std::string& value, const std::string& note) {
  return "<div class=\"tile\"><div class=\"k\">" + escape(key) + "</div><div class=\"v\">" +
         escape(value) + "</div><div class=\"n\">" + escape(note) + "</div></div>";
}

std::string cmd_line(const std::string& command) {
  return "<p class=\"cmd\">Reproduce: <code>" + escape(command) + "</code></p>";
}

std::string th(const std::vector<std::string>& names, size_t left_columns) {
  std::string s = "<tr>";
  for (size_t i = 0; i < names.size(); ++i)
    s += std::string(i < left_columns ? "<th class=\"l\">" : "<th>") + escape(names[i]) + "</th>";
  return s + "</tr>";
}

std::string td(const std::string& v, bool left = false) {
  return std::string(left ? "<td class=\"l\">" : "<td>") + escape(v) + "</td>";
}

std::string section_open(const std::string& id, const std::string& title) {
  return "<section id=\"" + id + "\"><h2>" + escape(title) + "</h2>";
}

std::string base_flags(const Report& r) {
  return "--model " + shell_word(r.options.model_spec) + " --hw " + shell_word(r.options.hw_spec);
}

std::string summary_section(const Report& r) {
  const MappingsSection& m = r.mappings;
  const CodesignSection& c = r.codesign;
  std::string s = "<section id=\"section-summary\"><h2>Summary</h2><div class=\"tiles\">";
  s += tile("Model", r.model,
            std::to_string(r.model_layers) + " layers, " + svg::label(1e-9 * r.model_macs) +
                " GMACs, " + svg::label(1e-6 * r.model_params) + " M params");
  s += tile("Accelerator", r.hw.name,
            with_commas(r.hw.num_pes) + " PEs, L1 " + bytes_text(r.hw.l1_bytes) + "/PE, L2 " +
                bytes_text(r.hw.l2_bytes) + ", " + svg::label(r.hw.clock_mhz) + " MHz, " +
                fixed_finite(c.hw_area_mm2, 3) + " mm\u00b2");
  s += tile("Mapped runtime", short_num(m.runtime_cycles) + " cycles",
            fixed_finite(cycles_ms(m.runtime_cycles, r.hw.clock_mhz), 3) + " ms at clock; " +
                std::to_string(m.layers_ok) + "/" + std::to_string(m.layers.size()) +
                " GEMM layers mapped");
  s += tile("Energy", fixed_finite(m.energy_nj / 1e6, 3) + " mJ",
            "sum over mapped layers (cost model)");
  s += tile("PE utilisation", pct(m.utilisation_geomean_pct),
            "geomean over layers of MACs / (PEs \u00d7 cycles)");
  if (c.feasible) {
    const double sp =
        c.best.runtime_cycles > 0 && c.hw_runtime_cycles > 0
            ? static_cast<double>(c.hw_runtime_cycles) / static_cast<double>(c.best.runtime_cycles)
            : 0;
    s +=
        tile("Co-design best", short_num(c.best.runtime_cycles) + " cycles",
             with_commas(c.best.pes) + " PEs, " + fixed_finite(c.best.area_mm2, 3) + " mm\u00b2 (" +
                 c.platform + "); " + fixed_finite(sp, 2) + "\u00d7 vs " + r.hw.name);
  } else {
    s += tile("Co-design best", "none feasible", "no design met the " + c.platform + " budget");
  }
  if (r.nongemm.available && r.nongemm.total_ms > 0) {
    const double ng = 100.0 * (r.nongemm.total_ms - r.nongemm.gemm_ms) / r.nongemm.total_ms;
    std::string note = "of CPU operator time (libtorch)";
    if (r.nongemm.has_hw && r.nongemm.hw_total_ms > 0)
      note += "; " +
              pct(100.0 * (r.nongemm.hw_total_ms - r.nongemm.hw_gemm_ms) / r.nongemm.hw_total_ms) +
              " with GEMMs on " + r.nongemm.hw_name;
    s += tile("NonGEMM share", pct(ng), note);
  } else {
    const NongemmStatic& n = r.nongemm_static;
    const double tot = static_cast<double>(n.gemm_elements + n.nongemm_elements);
    s += tile("NonGEMM layers", std::to_string(n.nongemm_layers),
              pct(tot > 0 ? 100.0 * n.nongemm_elements / tot : 0) +
                  " of elements moved; time not measured");
  }
  double best = 0;
  std::string best_at;
  for (const auto& [f, by] : r.spmm.geomean)
    for (const auto& [t, v] : by)
      if (v > best) best = v, best_at = f + " at " + fixed_finite(100 * t, 0) + "% sparsity";
  s += tile("SpMM best speedup", r.spmm.rows.empty() ? "-" : fixed_finite(best, 2) + "\u00d7",
            r.spmm.rows.empty()
                ? "no weight GEMMs measured"
                : "geomean over " + std::to_string(r.spmm.shapes_measured) + " shapes, " + best_at +
                      (r.spmm.warning.empty() ? "" : " (busy machine: noisy)"));
  s += "</div></section>";
  return s;
}

std::string mappings_section(const Report& r) {
  const MappingsSection& m = r.mappings;
  std::string s = section_open("section-mappings", "1. Per-layer best mappings");
  s += "<p class=\"explain\">GAMMA (a genetic algorithm over MAESTRO-style data-centric mappings) "
       "searched each distinct GEMM-class layer shape of <b>" +
       escape(r.model) + "</b> on <b>" + escape(r.hw.name) + "</b> with " +
       with_commas(r.options.map_budget) +
       " cost-model samples per shape (repeated shapes reuse the result; " +
       std::to_string(m.distinct) + " distinct of " + std::to_string(m.layers.size()) +
       " layers; " + std::to_string(m.skipped) +
       " layers without MACs are not mapped). Bars: runtime of the best mapping in cycles "
       "(end to end, with NoC, off-chip traffic and pipeline fill); line: PE utilisation in % "
       "= MACs / (PEs &times; cycles). Energy in &micro;J from the cost model's per-access "
       "energies. Search time " +
       fixed_finite(m.wall_s, 2) + " s.</p>";
  s += cmd_line("sparsemap map " + base_flags(r) + " --budget " +
                std::to_string(r.options.map_budget) + " --seed " + std::to_string(r.options.seed) +
                " --threads " + std::to_string(r.options.threads));
  svg::BarChart c;
  c.title = "Runtime and PE utilisation per layer";
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerRow& l = m.layers[i];
    c.categories.push_back("#" + std::to_string(i) + " " + l.name + " (" + l.dims + ")");
    c.tick_labels.push_back(std::to_string(i));
    c.values.push_back(static_cast<double>(l.runtime_cycles));
    c.overlay.push_back(l.status == "ok" ? l.utilisation_pct : 0.0 / 0.0);
  }
  c.x_label = "GEMM-class layer, model order (#)";
  c.y.label = "runtime (cycles)";
  c.y2.label = "PE utilisation (%)";
  c.y2.hi = 100;
  c.height = 380;
  s += "<div class=\"chart\">" + svg::bar_chart(c) + "</div>";
  s += "<details><summary>Per-layer table (" + std::to_string(m.layers.size()) +
       " layers, with each mapping's directives)</summary><table>";
  s += th({"#", "layer", "kind", "dims", "MACs", "cycles", "energy (\u00b5J)", "util (%)",
           "PEs used", "samples", "mapping"},
          0) +
       "\n";
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerRow& l = m.layers[i];
    const bool ok = l.status == "ok";
    s += "<tr>" + td(std::to_string(i)) + td(l.name, true) + td(l.kind, true) + td(l.dims, true) +
         td(with_commas(l.macs)) + td(ok ? with_commas(l.runtime_cycles) : l.status) +
         td(ok ? fixed_finite(l.energy_nj / 1e3, 2) : "-") +
         td(ok ? fixed_finite(l.utilisation_pct, 1) : "-") +
         td(ok ? with_commas(l.pes_used) : "-") + td(l.reused ? "reused" : with_commas(l.samples)) +
         "<td class=\"map\">" + escape(ok ? l.mapping : l.reason) + "</td></tr>\n";
  }
  s += "<tr><td></td>" + td("total", true) + "<td></td><td></td>" + td(with_commas(m.macs)) +
       td(with_commas(m.runtime_cycles)) + td(fixed_finite(m.energy_nj / 1e3, 2)) +
       td(fixed_finite(m.utilisation_geomean_pct, 1) + " (geomean)") +
       "<td></td><td></td><td></td></tr>";
  s += "</table></details></section>\n";
  return s;
}

std::string codesign_section(const Report& r) {
  const CodesignSection& c = r.codesign;
  std::string s = section_open("section-codesign", "2. Co-design Pareto front");
  s += "<p class=\"explain\">DiGamma (dse/codesign) searched the accelerator's resources (PEs in "
       "steps of " +
       std::to_string(c.pe_step) + " up to " + with_commas(c.pe_limit) +
       ", L1 per PE and L2 sized to what the mappings need) jointly with a GAMMA mapping per "
       "layer, under the <b>" +
       escape(c.platform) + "</b> platform's area budget of " + fixed_finite(c.area_budget_mm2, 2) +
       " mm&sup2;, keeping the template's bandwidths, energies and clock from <b>" +
       escape(r.hw.name) + "</b>. Each grey point is one feasible design the search evaluated (" +
       with_commas(c.samples) + " whole-model samples, " + with_commas(c.infeasible) +
       " infeasible): x is its area in mm&sup2; (PEs plus SRAM, from the area model), y the "
       "model's runtime in cycles summed over its layers (log scale). The orange line is the "
       "Pareto front of the evaluated designs (none both smaller and faster); it is the search's "
       "own front, not an exhaustive sweep. The blue point is the --hw accelerator with the "
       "mapper's mappings of section 1. No design can beat the compute bound of " +
       with_commas(c.compute_bound_cycles) + " cycles (dashed). Search time " +
       fixed_finite(c.wall_s, 2) + " s.</p>";
  // Say so when the --hw accelerator beats the front at its own area: it lies outside the
  // searched space (more PEs than the platform allows, or buffers below the search's sizing).
  bool hw_below = false;
  for (const DesignPoint& d : c.front)
    hw_below = hw_below || (d.area_mm2 >= c.hw_area_mm2 && d.runtime_cycles > c.hw_runtime_cycles &&
                            c.hw_runtime_cycles > 0);
  if (hw_below)
    s += "<p class=\"note\">" + escape(r.hw.name) +
         " lies below the front: it is not in the "
         "searched space (" +
         with_commas(r.hw.num_pes) + " PEs against the platform's limit of " +
         with_commas(c.pe_limit) + "; L1 " + bytes_text(r.hw.l1_bytes) + " per PE and L2 " +
         bytes_text(r.hw.l2_bytes) +
         ", where the search sizes buffers to what its mappings "
         "need), so the front is the best the search found within the platform, not a bound on "
         "every accelerator.</p>";
  s += cmd_line("sparsemap codesign " + base_flags(r) + " --platform " + c.platform + " --budget " +
                std::to_string(r.options.codesign_budget) + " --seed " +
                std::to_string(r.options.seed) + " --baselines none");
  svg::ScatterChart ch;
  ch.title = "Runtime vs area of the designs evaluated";
  ch.x.label = "area (mm\u00b2)";
  ch.y.label = "runtime (cycles, log scale)";
  ch.y.log = true;
  svg::Series all;
  all.label = "evaluated designs (" + with_commas(static_cast<int64_t>(c.designs.size())) + ")";
  all.colour = "#b9c0c8";
  all.radius = 2.6;
  all.outline = false;
  // At most 2,000 points drawn (evenly spaced in area order); the JSON has every design.
  const size_t step = std::max<size_t>(1, (c.designs.size() + 1999) / 2000);
  for (size_t i = 0; i < c.designs.size(); i += step) {
    all.x.push_back(c.designs[i].area_mm2);
    all.y.push_back(static_cast<double>(c.designs[i].runtime_cycles));
  }
  svg::Series front;
  front.label = "Pareto front (" + std::to_string(c.front.size()) + " designs)";
  front.colour = "#E69F00";
  front.radius = 4.5;
  front.line = true;
  for (const DesignPoint& d : c.front) {
    front.x.push_back(d.area_mm2);
    front.y.push_back(static_cast<double>(d.runtime_cycles));
    front.tips.push_back(with_commas(d.pes) + " PEs, L1 " + with_commas(d.l1_bytes) + " B, L2 " +
                         with_commas(d.l2_bytes) + " B: " + fixed_finite(d.area_mm2, 4) + " mm2, " +
                         with_commas(d.runtime_cycles) + " cycles");
  }
  svg::Series best;
  best.label = "best design: " + with_commas(c.best.pes) + " PEs, " +
               fixed_finite(c.best.area_mm2, 3) + " mm\u00b2";
  best.colour = "#D55E00";
  best.radius = 7;
  if (c.feasible) {
    best.x.push_back(c.best.area_mm2);
    best.y.push_back(static_cast<double>(c.best.runtime_cycles));
  }
  svg::Series hw;
  hw.label = r.hw.name + " (--hw) with the mapper's mappings";
  hw.colour = "#0072B2";
  hw.radius = 7;
  if (c.hw_runtime_cycles > 0) {
    hw.x.push_back(c.hw_area_mm2);
    hw.y.push_back(static_cast<double>(c.hw_runtime_cycles));
  }
  ch.series = {all, front};
  if (c.feasible) ch.series.push_back(best);
  if (c.hw_runtime_cycles > 0) ch.series.push_back(hw);
  ch.x_marks.push_back(
      {c.area_budget_mm2, "area budget " + fixed_finite(c.area_budget_mm2, 2) + " mm\u00b2"});
  if (c.compute_bound_cycles > 0)
    ch.y_marks.push_back({static_cast<double>(c.compute_bound_cycles), "compute bound"});
  ch.legend = svg::ScatterChart::Corner::BottomLeft;  // a front leaves small-and-fast empty
  s += "<div class=\"chart\">" + svg::scatter_chart(ch) + "</div>";
  s += "<h3>The front</h3><table>" +
       th({"PEs", "L1 per PE", "L2", "area (mm\u00b2)", "runtime (cycles)", "runtime (ms)",
           "energy (\u00b5J)", "vs --hw"},
          0);
  const size_t shown = std::min<size_t>(c.front.size(), 24);
  for (size_t i = 0; i < shown; ++i) {
    // Evenly spaced rows when the front is longer than the table.
    const DesignPoint& d =
        c.front[shown < c.front.size() ? i * (c.front.size() - 1) / (shown - 1) : i];
    s += "<tr>" + td(with_commas(d.pes)) + td(bytes_text(d.l1_bytes)) + td(bytes_text(d.l2_bytes)) +
         td(fixed_finite(d.area_mm2, 4)) + td(with_commas(d.runtime_cycles)) +
         td(fixed_finite(cycles_ms(d.runtime_cycles, r.hw.clock_mhz), 3)) +
         td(fixed_finite(d.energy_nj / 1e3, 1)) +
         td(c.hw_runtime_cycles > 0 && d.runtime_cycles > 0
                ? fixed_finite(static_cast<double>(c.hw_runtime_cycles) / d.runtime_cycles, 2) +
                      "\u00d7"
                : "-") +
         "</tr>";
  }
  s += "</table></section>\n";
  return s;
}

std::string nongemm_section(const Report& r) {
  const NongemmMeasured& n = r.nongemm;
  const NongemmStatic& st = r.nongemm_static;
  std::string s = section_open("section-nongemm", "3. NonGEMM breakdown");
  s += "<p class=\"explain\">Operators other than matrix products and convolutions "
       "(normalisation, activations, softmax, pooling, element-wise arithmetic, memory "
       "operations) do not run on a GEMM accelerator and take a growing share of the time as "
       "GEMMs get faster (NonGEMM Bench). ";
  if (n.available)
    s += "Measured: the model ran in libtorch " + escape(n.torch_version) + " on the CPU (" +
         std::to_string(n.threads) + " thread" + (n.threads == 1 ? "" : "s") + ", " +
         std::to_string(n.runs) +
         " recorded inferences after a warm-up, seeded random weights), its top-level operators "
         "timed (per operator the fastest of the runs) and grouped by the taxonomy; bars are % "
         "of the summed operator time per inference (ms in the table)." +
         (n.has_hw ? " The second bar replaces each GEMM's measured time by the cost model's "
                     "runtime on <b>" +
                         escape(n.hw_name) +
                         "</b> (fastest built-in dataflow template per shape, at its clock) and "
                         "keeps the NonGEMM operators at their CPU time."
                   : std::string()) +
         " ";
  s += "The second chart needs no profiling: it counts the elements each operator group of the "
       "model description reads and writes (inputs &times; operands + outputs; GEMM-class: "
       "inputs + weights + outputs), in millions.</p>";
  if (n.available) {
    if (!n.warning.empty())
      s += "<p class=\"note\"><b>Noisy timings:</b> " + escape(n.warning) + "</p>";
    s += cmd_line(n.command);
    std::vector<std::string> groups;
    for (const auto& [g, _] : n.group_ms) groups.push_back(g);
    std::sort(groups.begin(), groups.end(), [&](const std::string& a, const std::string& b) {
      return n.group_ms.at(a) > n.group_ms.at(b);
    });
    svg::StackedBars sb;
    sb.title = "Share of operator time per inference";
    sb.segment_labels = {"GEMM"};
    sb.segment_colours = {"#0072B2"};
    const std::vector<std::string> cols = {"#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                           "#56B4E9", "#F0E442", "#999999", "#8C6D31"};
    for (size_t i = 0; i < groups.size(); ++i) {
      sb.segment_labels.push_back(groups[i]);
      sb.segment_colours.push_back(cols[i % cols.size()]);
    }
    auto row = [&](double total, double gemm, const std::map<std::string, double>& gm) {
      std::vector<double> v = {total > 0 ? 100 * gemm / total : 0};
      for (const auto& g : groups) {
        const auto it = gm.find(g);
        v.push_back(total > 0 && it != gm.end() ? 100 * it->second / total : 0);
      }
      return v;
    };
    sb.rows.push_back("CPU, measured");
    sb.values.push_back(row(n.total_ms, n.gemm_ms, n.group_ms));
    if (n.has_hw) {
      sb.rows.push_back("GEMMs on " + n.hw_name);
      sb.values.push_back(row(n.hw_total_ms, n.hw_gemm_ms, n.hw_group_ms));
    }
    sb.x.label = "share of operator time (%)";
    sb.x.hi = 100;
    sb.value_suffix = "%";
    s += "<div class=\"chart\">" + svg::stacked_bars(sb) + "</div><table>" +
         th({"group", "CPU (ms)", "CPU (%)", n.has_hw ? "GEMMs on " + n.hw_name + " (ms)" : "",
             n.has_hw ? "(%)" : ""},
            1);
    auto line = [&](const std::string& name, double ms, double hw_ms) {
      s +=
          "<tr>" + td(name, true) + td(fixed_finite(ms, 3)) +
          td(fixed_finite(n.total_ms > 0 ? 100 * ms / n.total_ms : 0, 1)) +
          td(n.has_hw ? fixed_finite(hw_ms, 3) : "") +
          td(n.has_hw ? fixed_finite(n.hw_total_ms > 0 ? 100 * hw_ms / n.hw_total_ms : 0, 1) : "") +
          "</tr>";
    };
    line("GEMM", n.gemm_ms, n.hw_gemm_ms);
    for (const auto& g : groups) {
      const auto it = n.hw_group_ms.find(g);
      line(g, n.group_ms.at(g), it != n.hw_group_ms.end() ? it->second : 0);
    }
    line("total", n.total_ms, n.hw_total_ms);
    s += "</table>";
  } else {
    s += "<p class=\"note\"><b>Measured breakdown absent:</b> " + escape(n.why_absent) + "</p>";
  }
  svg::BarChart c;
  c.title = "Elements read and written per operator group (model description)";
  c.categories.push_back("GEMM-class (" + std::to_string(st.gemm_layers) + " layers)");
  c.values.push_back(1e-6 * static_cast<double>(st.gemm_elements));
  c.tick_labels.push_back("GEMM-class");
  // At most 15 groups drawn (the most elements; the JSON has all of them).
  for (size_t i = 0; i < st.groups.size() && i < 15; ++i) {
    const NongemmGroup& g = st.groups[i];
    c.categories.push_back(g.name + " (" + g.kind + ", " + std::to_string(g.layers) + " layers)");
    c.tick_labels.push_back(g.name);
    c.values.push_back(1e-6 * static_cast<double>(g.elements));
  }
  c.x_label = "operator (GEMM-class: every convolution and matrix product)";
  c.y.label = "elements read + written (millions)";
  c.colour = "#009E73";
  c.height = 320;
  c.width = std::min(1100.0, 220.0 + 120.0 * static_cast<double>(c.values.size()));
  s += "<div class=\"chart\">" + svg::bar_chart(c) + "</div>";
  s += cmd_line("sparsemap show " + shell_word(r.options.model_spec) + " --json -");
  s += "</section>\n";
  return s;
}

std::string spmm_section(const Report& r) {
  const SpmmSection& p = r.spmm;
  std::string s = section_open("section-spmm", "4. SpMM speedup of the pruned layers");
  std::string shapes_arg;
  std::vector<const SpmmRow*> firsts;
  for (const SpmmRow& row : p.rows)
    if (firsts.empty() || firsts.back()->m != row.m || firsts.back()->k != row.k ||
        firsts.back()->n != row.n)
      firsts.push_back(&row);
  for (const SpmmRow* row : firsts)
    shapes_arg += (shapes_arg.empty() ? "" : ";") + std::to_string(row->m) + "," +
                  std::to_string(row->k) + "," + std::to_string(row->n);
  std::string formats, sparsities;
  for (const auto& f : r.options.spmm_formats) formats += (formats.empty() ? "" : ",") + f;
  for (double t : r.options.spmm_sparsities)
    sparsities += (sparsities.empty() ? "" : ",") + svg::label(t);
  s += "<p class=\"explain\">Each GEMM-class layer with a weight matrix (convolutions as im2col: "
       "M = output channels, K = input channels &times; R &times; S; linear layers: M = outputs, "
       "K = inputs) was given seeded N(0, 1) weights, pruned with the library's pruning "
       "(csr: magnitude; cvse:V: column vectors of V rows by L2 norm; nm: N:M) to each target "
       "sparsity, stored in the format and multiplied by the library's SpMM kernel with a "
       "random N(0, 1) activation of K &times; n, n = min(the layer's columns, " +
       with_commas(r.options.spmm_max_cols) +
       "). Time per product in ms is the fastest of at least 3 repeats over at least " +
       fixed_finite(r.options.spmm_min_ms, 0) +
       " ms (the minimum: robust when other processes share the machine); speedup = OpenBLAS sgemm "
       "time on the dense weight / SpMM time (same process, " +
       std::to_string(p.threads) + " thread" + (p.threads == 1 ? "" : "s") + ", ISA " +
       escape(p.isa) + ", OpenBLAS core " + escape(p.openblas_core) +
       "); above 1&times; the sparse kernel wins. Bounded: the " +
       std::to_string(p.shapes_measured) + " weight shapes with the most MACs of " +
       std::to_string(p.shapes_total) + " are measured" +
       (p.shapes_skipped
            ? " (" + std::to_string(p.shapes_skipped) +
                  " layers without a weight matrix skipped: " + escape(p.skipped_kinds) + ")"
            : std::string()) +
       ". Measurement time " + fixed_finite(p.wall_s, 2) + " s.</p>";
  if (!p.warning.empty())
    s += "<p class=\"note\"><b>Noisy timings:</b> " + escape(p.warning) + "</p>";
  if (!shapes_arg.empty())
    s += cmd_line("env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE sparsemap spmm-bench --shapes " +
                  shell_word(shapes_arg) + " --formats " + shell_word(formats) + " --sparsity " +
                  shell_word(sparsities) + " --threads " + std::to_string(p.threads) +
                  " --stat min");
  svg::ScatterChart ch;
  ch.title = "Geomean speedup over dense OpenBLAS vs sparsity";
  ch.x.label = "sparsity (% of weights pruned)";
  ch.y.label = "speedup over dense (\u00d7, log scale)";
  ch.y.log = true;
  size_t k = 0;
  for (const auto& [f, by] : p.geomean) {
    svg::Series sr;
    sr.label = f;
    sr.colour = svg::colour(k++);
    sr.line = true;
    sr.radius = 5;
    for (const auto& [t, v] : by) {
      sr.x.push_back(100 * t);
      sr.y.push_back(v);
      sr.tips.push_back(f + " at " + fixed_finite(100 * t, 0) + "%: " + fixed_finite(v, 2) + "x");
    }
    ch.series.push_back(sr);
  }
  // Every shape's own speedup, small and grey, behind the geomeans.
  svg::Series each;
  each.colour = "#c5ccd3";
  each.radius = 2.5;
  each.outline = false;
  for (const SpmmRow& row : p.rows) {
    each.x.push_back(100 * row.target_sparsity);
    each.y.push_back(row.speedup);
  }
  ch.series.insert(ch.series.begin(), each);
  ch.y_marks.push_back({1.0, "dense (1\u00d7)"});
  double lowest = 1;
  for (double t : r.options.spmm_sparsities) lowest = std::min(lowest, t);
  ch.x.lo = std::max(0.0, std::floor(10 * lowest) * 10 - 10);
  ch.x.hi = 100;
  ch.legend = svg::ScatterChart::Corner::TopLeft;
  ch.height = 380;
  s += "<div class=\"chart\">" + svg::scatter_chart(ch) + "</div>";
  s += "<details open><summary>Per-shape measurements (" + std::to_string(p.rows.size()) +
       ")</summary><table>" +
       th({"layer", "layers", "M \u00d7 K \u00d7 n", "format", "sparsity", "SpMM (ms)",
           "dense (ms)", "speedup", "max rel. error"},
          1);
  for (const SpmmRow& row : p.rows)
    s += "<tr>" + td(row.layer, true) + td(std::to_string(row.layers)) +
         td(std::to_string(row.m) + " \u00d7 " + std::to_string(row.k) + " \u00d7 " +
            std::to_string(row.n) +
            (row.n < row.n_full ? " (of " + with_commas(row.n_full) + ")" : "")) +
         td(row.format) + td(fixed_finite(100 * row.sparsity, 1) + "%") +
         td(fixed_finite(row.ms, 3)) + td(fixed_finite(row.dense_ms, 3)) +
         td(fixed_finite(row.speedup, 2) + "\u00d7") + td(fixed_finite(row.max_rel_err, 7)) +
         "</tr>";
  s += "</table></details></section>\n";
  return s;
}

}  // namespace

std::string render_html(const Report& r) {
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>sparsemap report: " +
      escape(r.model) + " on " + escape(r.hw.name) + "</title><style>" + kCss +
      "</style></head><body><main>\n";
  s += "<h1>" + escape(r.model) + " on " + escape(r.hw.name) + "</h1>";
  s += "<p class=\"sub\">sparsemap " + escape(r.version) +
       " report: mappings, co-design, "
       "NonGEMM operators and sparse kernels of one model, seed " +
       std::to_string(r.options.seed) + ", " + std::to_string(r.options.threads) + " thread" +
       (r.options.threads == 1 ? "" : "s") + ".</p>\n";
  s += summary_section(r) + "\n";
  s += mappings_section(r);
  s += codesign_section(r);
  s += nongemm_section(r);
  s += spmm_section(r);
  s += "<footer>Generated by <code>sparsemap report " + escape(base_flags(r)) + "</code> in " +
       fixed_finite(r.wall_s, 1) +
       " s. Self-contained: inline CSS and SVG, no scripts, no external resources.</footer>";
  s += "</main></body></html>\n";
  return s;
}

std::string summary_text(const Report& r) {
  std::ostringstream o;
  const MappingsSection& m = r.mappings;
  const CodesignSection& c = r.codesign;
  o << "report: " << r.model << " on " << r.hw.name << " (" << r.hw.num_pes << " PEs), "
    << fixed_finite(r.wall_s, 1) << " s\n";
  o << "  mappings  " << short_num(m.runtime_cycles) << " cycles, "
    << fixed_finite(m.energy_nj / 1e3, 1) << " uJ, geomean PE utilisation "
    << fixed_finite(m.utilisation_geomean_pct, 1) << "% (" << m.layers_ok << "/" << m.layers.size()
    << " layers, budget " << r.options.map_budget << ")\n";
  o << "  codesign  " << c.platform << ": "
    << (c.feasible
            ? "best " + short_num(c.best.runtime_cycles) + " cycles with " +
                  with_commas(c.best.pes) + " PEs, " + fixed_finite(c.best.area_mm2, 3) + " mm^2"
            : std::string("no feasible design"))
    << "; front of " << c.front.size() << " of " << c.designs.size() << " designs\n";
  if (r.nongemm.available && r.nongemm.total_ms > 0)
    o << "  nongemm   "
      << fixed_finite(100 * (r.nongemm.total_ms - r.nongemm.gemm_ms) / r.nongemm.total_ms, 1)
      << "% of CPU operator time (" << fixed_finite(r.nongemm.total_ms, 1)
      << " ms per inference)\n";
  else
    o << "  nongemm   " << r.nongemm_static.nongemm_layers
      << " NonGEMM layers; time not measured: " <<
        [&] {
          // The reason's first clause (the page has all of it).
          const std::string first = r.nongemm.why_absent.substr(0, r.nongemm.why_absent.find(", "));
          return first.size() <= 66 ? first : first.substr(0, 62) + " ...";
        }()
      << "\n";
  double best = 0;
  for (const auto& [f, by] : r.spmm.geomean)
    for (const auto& [t, v] : by) best = std::max(best, v);
  o << "  spmm      " << r.spmm.rows.size() << " measurements on " << r.spmm.shapes_measured
    << " shapes; best geomean speedup " << fixed_finite(best, 2) << "x\n";
  return o.str();
}

}  // namespace sparsemap::report
