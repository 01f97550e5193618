// `sparsemap spmm-bench`'s measurement, aggregation and JSON (spmm_bench_run.h).
#include "sparsemap/measure/spmm_bench_run.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "sparsemap/error.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::measure::spmm_bench {

namespace {

using namespace sparsemap::sparse;

// The comma-separated items of `s`, empty ones dropped (spaces kept: " csr" is refused as a
// format, as the command always did).
std::vector<std::string> split_items(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<double> parse_sparsities(const std::string& text) {
  std::vector<double> out;
  for (const std::string& t : split_items(text)) {
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0' || !(v >= 0.0 && v <= 1.0))
      throw InputError({"<flag --sparsity>", 0, 0}, "'" + t + "' is not a sparsity in [0, 1]");
    out.push_back(v);
  }
  if (out.empty()) throw InputError({"<flag --sparsity>", 0, 0}, "no sparsity given");
  return out;
}

std::string dims(const GemmShape& sh) {
  return std::to_string(sh.m) + "x" + std::to_string(sh.k) + "x" + std::to_string(sh.n);
}

// Where the run stands, for the progress reports.
struct Counter {
  size_t shape = 0, shapes = 0;
  int64_t measured = 0, to_measure = 0;
  void report(search::Observer& o, const GemmShape& sh, const std::string& what) const {
    search::report_progress(o, {shape, shapes, measured, to_measure, 0, dims(sh) + " " + what});
  }
};

// One shape: dense sgemm timed before and after every (format, sparsity) run, so slow drifts
// hit both alike. Appends the shape's rows; returns the dense figures.
Dense measure_shape(const Plan& p, size_t si, search::Observer& observer, Counter& counter,
                    std::vector<Row>& rows) {
  const Options& o = p.options;
  const GemmShape& sh = p.shapes[si];
  const KernelOptions kopt{p.threads, Isa::Auto};
  const DenseMatrix w = random_normal(sh.m, sh.k, o.seed + 2 * si);
  const DenseMatrix b = random_normal(sh.k, sh.n, o.seed + 2 * si + 1);
  DenseMatrix c(sh.m, sh.n);
  auto dense_call = [&] { sgemm_openblas(w.view(), b.view(), c.view(), p.threads); };
  counter.report(observer, sh, "dense");
  Timing d1 = time_ms(dense_call, o.min_reps, o.min_ms);
  quiesce(200);
  std::vector<Row> shape_rows;
  for (const FormatSpec& spec : p.specs) {
    const double own = spec.intrinsic_sparsity();
    const std::vector<double> targets = own >= 0 ? std::vector<double>{own} : p.sparsities;
    for (double s : targets) {
      counter.report(observer, sh, spec.str() + " at " + fixed(100 * s, 0) + "%");
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
      ++counter.measured;
    }
  }
  quiesce(20);
  Timing d2 = time_ms(dense_call, o.min_reps, o.min_ms);
  quiesce(200);
  std::vector<double> all = d1.samples_ms;
  all.insert(all.end(), d2.samples_ms.begin(), d2.samples_ms.end());
  const double dense_min = *std::min_element(all.begin(), all.end());
  Dense d{sh, o.stat == "min" ? dense_min : median(all), 0};
  d.gflops = 2.0 * sh.m * sh.k * sh.n / (d.ms * 1e6);
  for (Row& r : shape_rows) {
    r.dense_ms = d.ms;
    r.dense_min_ms = dense_min;
    rows.push_back(r);
  }
  return d;
}

// Per format: the geomean speedup over the shapes at each target sparsity and the break-even.
std::vector<FormatSummary> summarise(const std::vector<Row>& rows,
                                     const std::vector<FormatSpec>& specs) {
  std::map<std::string, std::map<double, std::vector<double>>> speedups;
  for (const Row& r : rows) speedups[r.spec.str()][r.target].push_back(r.dense_ms / r.ms);
  std::vector<FormatSummary> out;
  for (const FormatSpec& spec : specs) {
    FormatSummary f;
    f.spec = spec;
    std::vector<std::pair<double, double>> sweep;
    for (const auto& [s, v] : speedups[spec.str()]) {
      sweep.emplace_back(s, geomean(v));
      f.geomean.push_back({s, geomean(v), v.size()});
    }
    f.break_even = break_even(sweep);
    f.wins_at_every_tested_sparsity =
        f.break_even >= 0 && !sweep.empty() && f.break_even <= sweep.front().first;
    out.push_back(f);
  }
  return out;
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

}  // namespace

double break_even(const std::vector<std::pair<double, double>>& sweep) {
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

Plan plan(const Options& o) {
  Plan p;
  p.options = o;
  p.shapes = parse_shapes(o.shapes);
  for (const std::string& f : split_items(o.formats)) p.specs.push_back(parse_format(f));
  if (p.specs.empty()) throw InputError({"<flag --formats>", 0, 0}, "no format given");
  p.sparsities = parse_sparsities(o.sparsity);
  if (o.threads < 0) throw InputError({"<flag --threads>", 0, 0}, "must be >= 0");
  p.threads = o.threads == 0 ? omp_get_max_threads() : o.threads;
  return p;
}

Result run(const Plan& p, search::Observer& observer) {
  Result r;
  r.options = p.options;
  r.threads = p.threads;
  r.isa = isa_name(detected_isa());
  r.openblas_core = openblas_core_name();
  r.openblas_config = openblas_config();
  if (const char* env = std::getenv("OPENBLAS_CORETYPE")) r.openblas_coretype_env = env;
  r.shapes = p.shapes;
  r.sparsities = p.sparsities;
  r.specs = p.specs;
  Counter counter;
  counter.shapes = p.shapes.size();
  for (const FormatSpec& spec : p.specs)
    counter.to_measure += spec.intrinsic_sparsity() >= 0 ? 1 : p.sparsities.size();
  counter.to_measure *= p.shapes.size();
  std::vector<double> gflops;
  for (size_t si = 0; si < p.shapes.size(); ++si) {
    if (observer.stop_requested()) throw search::Cancelled();
    counter.shape = si;
    r.dense.push_back(measure_shape(p, si, observer, counter, r.rows));
    const Dense& d = r.dense.back();
    gflops.push_back(d.gflops);
    observer.on_search_done();
    observer.on_note("  " + dims(d.shape) + " (" + d.shape.name + "): dense " + fixed(d.ms, 3) +
                     " ms, " + fixed(d.gflops, 1) + " GFLOP/s");
  }
  r.summary = summarise(r.rows, r.specs);
  r.dense_geomean_gflops = geomean(gflops);
  return r;
}

Result run(const Options& o, search::Observer& observer) { return run(plan(o), observer); }

nlohmann::json to_json(const Result& r) {
  nlohmann::json dense = nlohmann::json::array(), summary = nlohmann::json::array(),
                 results = nlohmann::json::array();
  for (const Dense& d : r.dense)
    dense.push_back({{"M", d.shape.m},
                     {"K", d.shape.k},
                     {"N", d.shape.n},
                     {"name", d.shape.name},
                     {"dense_ms", d.ms},
                     {"dense_gflops", d.gflops}});
  for (const FormatSummary& f : r.summary) {
    nlohmann::json per = nlohmann::json::array();
    for (const FormatSummary::Point& pt : f.geomean)
      per.push_back({{"sparsity", pt.sparsity},
                     {"geomean_speedup", pt.geomean_speedup},
                     {"shapes", pt.shapes}});
    summary.push_back({{"spec", f.spec.str()},
                       {"format", f.spec.family()},
                       {"geomean", per},
                       {"break_even_sparsity",
                        f.break_even >= 0 ? nlohmann::json(f.break_even) : nlohmann::json()},
                       {"wins_at_every_tested_sparsity", f.wins_at_every_tested_sparsity}});
  }
  for (const Row& row : r.rows) results.push_back(row_json(row));
  return {{"threads", r.threads},
          {"stat", r.options.stat},
          {"isa", r.isa},
          {"openblas_core", r.openblas_core},
          {"openblas_config", r.openblas_config},
          {"openblas_coretype_env", r.openblas_coretype_env},
          {"dense_geomean_gflops", r.dense_geomean_gflops},
          {"dense", dense},
          {"summary", summary},
          {"results", results}};
}

}  // namespace sparsemap::measure::spmm_bench
