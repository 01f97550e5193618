// `sparsemap spmm-bench`: times the sparse kernels against OpenBLAS sgemm on the same matrices,
// in the same process, and prints speedups and the break-even sparsity of each format.
//
// The dense baseline must be measured with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset: the
// machines here set them for old OpenBLAS builds, which makes OpenBLAS pick a kernel up to 2x
// slower. Run it as `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE sparsemap spmm-bench ...`;
// the command warns when they are set. (It never changes them itself.) On a machine shared with
// other busy processes, multi-threaded timings are unfair (see busy_machine_warning); the
// numbers in the note were taken under `chrt -f 1`.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::cli {

namespace {

using namespace sparsemap::sparse;
using namespace sparsemap::measure;

struct Options {
  std::string shapes = "dl";
  std::string formats = "csr,cvse:4,cvse:8";
  std::string sparsity = "0.5,0.7,0.8,0.9,0.95,0.98";
  int threads = 0;
  uint64_t seed = 1;
  double min_ms = 60;
  int min_reps = 5;
  bool detail = false;
  std::string stat = "median";
  std::string json;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<double> parse_sparsities(const std::string& text) {
  std::vector<double> out;
  for (const std::string& t : split_list(text)) {
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0' || !(v >= 0.0 && v <= 1.0))
      throw InputError({"<flag --sparsity>", 0, 0}, "'" + t + "' is not a sparsity in [0, 1]");
    out.push_back(v);
  }
  if (out.empty()) throw InputError({"<flag --sparsity>", 0, 0}, "no sparsity given");
  return out;
}

struct Row {
  GemmShape shape;
  FormatSpec spec;
  double target = 0, sparsity = 0, ms = 0, dense_ms = 0, max_err = 0;
  double min_ms = 0, dense_min_ms = 0;
  int64_t footprint = 0, stored = 0;
};

// Sparsity where the geomean speedup reaches 1, interpolated in log(speedup) between sweep
// points; -1 when no point of the sweep beats dense; the lowest point when all do (the break-even
// is then at or below it: see break_even_text).
double break_even(const std::vector<std::pair<double, double>>& sweep) {
  // sweep: (sparsity, geomean speedup), ascending sparsity.
  for (size_t i = 0; i < sweep.size(); ++i) {
    bool all_above = true;
    for (size_t j = i; j < sweep.size(); ++j) all_above = all_above && sweep[j].second >= 1.0;
    if (!all_above) continue;
    if (i == 0) return sweep[0].first;
    const auto [s0, v0] = sweep[i - 1];
    const auto [s1, v1] = sweep[i];
    const double t = -std::log(v0) / (std::log(v1) - std::log(v0));
    return s0 + t * (s1 - s0);
  }
  return -1.0;
}

// The table's cell: "none" (no tested sparsity beats dense), "<= 50%" (every tested sparsity
// does, so the break-even is at or below the lowest), else the interpolated sparsity.
std::string break_even_text(double be, const std::vector<std::pair<double, double>>& sweep) {
  if (be < 0) return "none";
  if (!sweep.empty() && be <= sweep.front().first) return "<= " + fixed(100 * be, 0) + "%";
  return fixed(100 * be, 1) + "%";
}

// Progress: one line redrawn in place, on a terminal only.
struct Progress {
  bool bar = false;
  size_t measured = 0, to_measure = 0;
  void show(const GemmShape& sh, const std::string& what) const {
    if (bar)
      std::fprintf(stderr, "\r[%zu/%zu] %lldx%lldx%lld %-24s", measured, to_measure,
                   static_cast<long long>(sh.m), static_cast<long long>(sh.k),
                   static_cast<long long>(sh.n), what.c_str());
  }
};

// One shape: dense sgemm timed before and after every (format, sparsity) run, so slow drifts
// hit both alike. Appends the shape's rows; returns the dense figures.
nlohmann::json measure_shape(const Options& o, size_t si, const GemmShape& sh,
                             const std::vector<FormatSpec>& specs,
                             const std::vector<double>& sparsities, int threads, Progress& progress,
                             std::vector<Row>& rows) {
  const KernelOptions kopt{threads, Isa::Auto};
  const DenseMatrix w = random_normal(sh.m, sh.k, o.seed + 2 * si);
  const DenseMatrix b = random_normal(sh.k, sh.n, o.seed + 2 * si + 1);
  DenseMatrix c(sh.m, sh.n);
  auto dense_call = [&] { sgemm_openblas(w.view(), b.view(), c.view(), threads); };
  progress.show(sh, "dense");
  Timing d1 = time_ms(dense_call, o.min_reps, o.min_ms);
  quiesce(200);
  std::vector<Row> shape_rows;
  for (const FormatSpec& spec : specs) {
    const double own = spec.intrinsic_sparsity();
    const std::vector<double> targets = own >= 0 ? std::vector<double>{own} : sparsities;
    for (double s : targets) {
      progress.show(sh, spec.str() + " at " + fixed(100 * s, 0) + "%");
      const Mask mask = prune_mask(w.view(), spec, own >= 0 ? -1.0 : s);
      const AnySparse a = convert(w.view(), spec, &mask);
      const SpmmRun r = run_spmm(a, b.view(), kopt, o.min_ms, o.min_reps);
      Row row;
      row.shape = sh;
      row.spec = spec;
      row.target = s;
      row.sparsity = mask.sparsity();
      row.ms = o.stat == "min" ? r.timing.min_ms : r.timing.median_ms;
      row.min_ms = r.timing.min_ms;
      row.max_err = r.max_rel_err;
      row.footprint = footprint(a).total();
      row.stored = stored_values(a);
      shape_rows.push_back(row);
      ++progress.measured;
    }
  }
  quiesce(20);
  Timing d2 = time_ms(dense_call, o.min_reps, o.min_ms);
  quiesce(200);
  std::vector<double> all = d1.samples_ms;
  all.insert(all.end(), d2.samples_ms.begin(), d2.samples_ms.end());
  const double dense_min = *std::min_element(all.begin(), all.end());
  const double dense_ms = o.stat == "min" ? dense_min : median(all);
  const double gf = 2.0 * sh.m * sh.k * sh.n / (dense_ms * 1e6);
  for (Row& r : shape_rows) {
    r.dense_ms = dense_ms;
    r.dense_min_ms = dense_min;
    rows.push_back(r);
  }
  if (progress.bar) std::fprintf(stderr, "\r%70s\r", "");
  if (o.json != "-" && progress.bar)
    std::cerr << "  " << sh.m << "x" << sh.k << "x" << sh.n << " (" << sh.name << "): dense "
              << fixed(dense_ms, 3) << " ms, " << fixed(gf, 1) << " GFLOP/s\n";
  return {{"M", sh.m},         {"K", sh.k}, {"N", sh.n}, {"name", sh.name}, {"dense_ms", dense_ms},
          {"dense_gflops", gf}};
}

// One measurement's JSON object.
nlohmann::json row_json(const Row& r) {
  nlohmann::json j = {{"M", r.shape.m},
                      {"K", r.shape.k},
                      {"N", r.shape.n},
                      {"shape", r.shape.name},
                      {"format", r.spec.family()},
                      {"spec", r.spec.str()},
                      {"sparsity", r.sparsity},
                      {"target_sparsity", r.target},
                      {"ms", r.ms},
                      {"dense_ms", r.dense_ms},
                      {"speedup", r.dense_ms / r.ms},
                      {"min_ms", r.min_ms},
                      {"dense_min_ms", r.dense_min_ms},
                      {"gflops_useful",
                       2.0 * r.shape.m * r.shape.k * r.shape.n * (1.0 - r.sparsity) / (r.ms * 1e6)},
                      {"footprint_bytes", r.footprint},
                      {"stored_values", r.stored},
                      {"max_rel_err", r.max_err}};
  if (r.spec.kind == FormatKind::Cvse || r.spec.kind == FormatKind::Vnm) j["v"] = r.spec.v;
  if (r.spec.kind == FormatKind::Nm || r.spec.kind == FormatKind::Vnm) {
    j["n"] = r.spec.n;
    j["m"] = r.spec.m;
  }
  return j;
}

// Per format: the geomean speedup over the shapes at each target sparsity and the break-even
// sparsity, as a table row and as JSON.
Table summarise(const std::vector<Row>& rows, const std::vector<FormatSpec>& specs,
                const std::vector<double>& sparsities, nlohmann::json& summary) {
  std::map<std::string, std::map<double, std::vector<double>>> speedups;
  for (const Row& r : rows) speedups[r.spec.str()][r.target].push_back(r.dense_ms / r.ms);
  std::vector<std::string> header{"format"};
  for (double s : sparsities) header.push_back(fixed(100 * s, 0) + "%");
  header.push_back("break-even");
  Table table(header);
  for (const FormatSpec& spec : specs) {
    const auto& by_s = speedups[spec.str()];
    std::vector<std::pair<double, double>> sweep;
    nlohmann::json per = nlohmann::json::array();
    for (const auto& [s, v] : by_s) {
      sweep.emplace_back(s, geomean(v));
      per.push_back({{"sparsity", s}, {"geomean_speedup", geomean(v)}, {"shapes", v.size()}});
    }
    const double be = break_even(sweep);
    summary.push_back({{"spec", spec.str()},
                       {"format", spec.family()},
                       {"geomean", per},
                       {"break_even_sparsity", be >= 0 ? nlohmann::json(be) : nlohmann::json()},
                       {"wins_at_every_tested_sparsity",
                        be >= 0 && !sweep.empty() && be <= sweep.front().first}});
    std::vector<std::string> cells{spec.str()};
    for (double s : sparsities) {
      auto it = by_s.find(spec.intrinsic_sparsity() >= 0 ? spec.intrinsic_sparsity() : s);
      cells.push_back(it != by_s.end() && (spec.intrinsic_sparsity() < 0 ||
                                           std::fabs(s - spec.intrinsic_sparsity()) < 1e-9)
                          ? fixed(geomean(it->second), 2) + "x"
                          : "-");
    }
    cells.push_back(break_even_text(be, sweep));
    table.add(cells);
  }
  return table;
}

void run(const Options& o) {
  const std::vector<GemmShape> shapes = parse_shapes(o.shapes);
  std::vector<FormatSpec> specs;
  for (const std::string& f : split_list(o.formats)) specs.push_back(parse_format(f));
  if (specs.empty()) throw InputError({"<flag --formats>", 0, 0}, "no format given");
  const std::vector<double> sparsities = parse_sparsities(o.sparsity);
  if (o.threads < 0) throw InputError({"<flag --threads>", 0, 0}, "must be >= 0");
  const int threads = o.threads == 0 ? omp_get_max_threads() : o.threads;
  const bool quiet_table = o.json == "-";
  Progress progress;
  progress.bar = isatty(fileno(stderr)) != 0;
  for (const FormatSpec& spec : specs)
    progress.to_measure += spec.intrinsic_sparsity() >= 0 ? 1 : sparsities.size();
  progress.to_measure *= shapes.size();
  warn_timing_environment("spmm-bench");

  std::vector<Row> rows;
  std::vector<double> dense_gflops;
  nlohmann::json dense_json = nlohmann::json::array();
  for (size_t si = 0; si < shapes.size(); ++si) {
    dense_json.push_back(
        measure_shape(o, si, shapes[si], specs, sparsities, threads, progress, rows));
    dense_gflops.push_back(dense_json.back()["dense_gflops"].get<double>());
  }
  nlohmann::json results = nlohmann::json::array(), summary = nlohmann::json::array();
  for (const Row& r : rows) results.push_back(row_json(r));
  const Table table = summarise(rows, specs, sparsities, summary);
  const double dense_geo = geomean(dense_gflops);
  if (!quiet_table) {
    if (o.detail) {
      Table t({"M", "K", "N", "format", "sparsity", "ms", "dense_ms", "speedup", "max_rel_err"});
      for (const Row& r : rows)
        t.add({std::to_string(r.shape.m), std::to_string(r.shape.k), std::to_string(r.shape.n),
               r.spec.str(), fixed(r.sparsity, 3), fixed(r.ms, 4), fixed(r.dense_ms, 4),
               fixed(r.dense_ms / r.ms, 2), fixed(r.max_err, 7)});
      std::cout << t.str() << "\n";
    }
    std::cout << "Geomean speedup over OpenBLAS sgemm on " << shapes.size() << " shapes, "
              << threads << " threads (ISA " << isa_name(detected_isa()) << ", OpenBLAS core "
              << openblas_core_name() << ")\n"
              << table.str() << "dense: geomean " << fixed(dense_geo, 1) << " GFLOP/s\n"
              << "break-even: the sparsity where a format starts beating dense (\"<= S\": it wins "
                 "at every tested sparsity; \"none\": at none)\n";
  }
  if (!o.json.empty())
    write_json({{"threads", threads},
                {"stat", o.stat},
                {"isa", isa_name(detected_isa())},
                {"openblas_core", openblas_core_name()},
                {"openblas_config", openblas_config()},
                {"openblas_coretype_env",
                 std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : ""},
                {"dense_geomean_gflops", dense_geo},
                {"dense", dense_json},
                {"summary", summary},
                {"results", results}},
               o.json);
}

}  // namespace

void register_spmm_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "spmm-bench",
      "Time sparse kernels against OpenBLAS sgemm (run with env -u OPENBLAS_CORETYPE -u "
      "OPENBLAS_L2_SIZE)");
  auto o = std::make_shared<Options>();
  cmd->add_option("--shapes", o->shapes, "dl (dl:256), dl:N, or M,K,N;M,K,N;...");
  cmd->add_option("--formats", o->formats,
                  "Comma-separated: csr, cvse:V, bsr:HxW, nm:N:M[:col], vnm:V:N:M, dense");
  cmd->add_option("--sparsity", o->sparsity, "Comma-separated target sparsities in [0, 1]");
  cmd->add_option("--threads", o->threads, "Threads for both kernels and OpenBLAS (0 = all)");
  cmd->add_option("--seed", o->seed, "Seed of the random matrices");
  cmd->add_option("--min-ms", o->min_ms, "Minimum time per measurement, ms (median of repeats)");
  cmd->add_option("--min-reps", o->min_reps, "Minimum repeats per measurement");
  cmd->add_option("--stat", o->stat, "Statistic of the repeats: median or min")
      ->check(CLI::IsMember({"median", "min"}));
  cmd->add_flag("--detail", o->detail, "Print one line per shape, format and sparsity");
  cmd->add_option("--json", o->json, "Write JSON to FILE, or - for stdout");
  cmd->callback([o] { run(*o); });
}

}  // namespace sparsemap::cli
