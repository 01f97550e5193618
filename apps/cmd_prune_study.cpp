// `sparsemap prune-study`: the hardware-aware pruning study of Castro et al. (PACT 2022) on the
// CPU. For each shape and sparsity it prunes the weights unstructured (magnitude, run with the
// CSR kernel) and in column vectors of each length V (run with the CVSE kernel), times every
// kernel against OpenBLAS sgemm, and reports the best V per sparsity, the speed that
// performance-aware pruning gains over unstructured pruning at equal sparsity, the
// reconstruction error each pruning costs, and what adaptive V selection picks (adaptive.h).
// Like spmm-bench, measure with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/plot/gnuplot.h"
#include "sparsemap/sparse/format/matrix_io.h"
#include "sparsemap/sparse/prune/adaptive.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::cli {

namespace {

using namespace sparsemap::sparse;
using namespace sparsemap::measure;

struct Options {
  std::string shapes = "dl";
  std::string weights;  // .npy or .mtx: study this matrix instead of random ones
  int64_t n = 256;      // columns of B with --weights
  std::string vs = "2,4,8,16,32";
  std::string sparsity = "0.5,0.6,0.7,0.8,0.9,0.95";
  double budget = 0.1;
  int threads = 0;
  uint64_t seed = 1;
  double min_ms = 40;
  std::string json, plot;
};

template <class T>
std::vector<T> parse_list(const std::string& text, const std::string& flag) {
  std::vector<T> out;
  std::stringstream ss(text);
  std::string t;
  while (std::getline(ss, t, ',')) {
    if (t.empty()) continue;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0' || !std::isfinite(v))
      throw InputError({"<flag " + flag + ">", 0, 0}, "'" + t + "' is not a number");
    out.push_back(static_cast<T>(v));
  }
  if (out.empty()) throw InputError({"<flag " + flag + ">", 0, 0}, "empty list");
  return out;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Point {  // one shape, one sparsity, one pruning
  size_t shape = 0;
  double sparsity = 0;
  int v = 1;  // 1: unstructured (CSR kernel)
  double ms = 0, dense_ms = 0, rel_error = 0;
};

// Writes the plot's data and renders it with gnuplot; throws InputError (after the data is
// written) when gnuplot is missing or fails.
void render_plot(const std::string& path, const std::vector<double>& sparsities,
                 const std::vector<int>& vs,
                 const std::map<int, std::map<double, double>>& geo_speedup) {
  const std::string data = path + ".dat";
  {
    std::ofstream out(data);
    out << "# sparsity unstructured";
    for (int v : vs) out << " V=" << v;
    out << "\n";
    for (double s : sparsities) {
      out << s;
      out << " " << geo_speedup.at(1).at(s);
      for (int v : vs) out << " " << geo_speedup.at(v).at(s);
      out << "\n";
    }
    if (!out) throw InputError({data, 0, 0}, "cannot write the plot data");
  }
  if (!plot::is_plot_path(path))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file name");
  std::ostringstream gp;
  gp << plot::gnuplot_header(path)
     << "set title 'SpMM speedup over OpenBLAS sgemm (geomean over shapes)'\n"
     << "set xlabel 'sparsity'\nset ylabel 'speedup'\nset logscale y\nset key left top\n"
     << "set grid\nplot 1 title 'dense' dt 2 lc rgb 'gray', " << plot::gnuplot_quote(data)
     << " using 1:2 with linespoints title 'unstructured (CSR)'";
  for (size_t i = 0; i < vs.size(); ++i)
    gp << ", '' using 1:" << i + 3 << " with linespoints title 'column vectors V=" << vs[i] << "'";
  gp << "\n";
  plot::render_gnuplot(gp.str(), path + ".gp", data);
}

// The shapes to study: the --weights matrix (with --n columns of B), or --shapes.
std::vector<GemmShape> study_shapes(const Options& o, DenseMatrix& given) {
  if (o.weights.empty()) return parse_shapes(o.shapes);
  given = ends_with(o.weights, ".npy") ? read_npy(o.weights)
          : ends_with(o.weights, ".mtx")
              ? read_mtx_dense(o.weights)
              : throw InputError({o.weights, 0, 0}, "expected a .npy or .mtx file");
  if (o.n < 1) throw InputError({"<flag --n>", 0, 0}, "must be >= 1");
  return {{given.rows, given.cols, o.n, o.weights}};
}

// What was measured: per shape, sparsity and V (V = 1: unstructured, CSR), and the dense time.
struct Study {
  std::vector<GemmShape> shapes;
  std::vector<int> vs;  // column-vector lengths, without 1
  std::vector<double> sparsities;
  std::vector<Point> points;
  const Point& find(size_t si, double s, int v) const {
    for (const Point& p : points)
      if (p.shape == si && p.sparsity == s && p.v == v) return p;
    SPARSEMAP_ASSERT(false);
    return points.front();
  }
};

// One shape: dense sgemm timed before and after the sparse runs (so slow drifts hit both
// alike), then every sparsity x V; appends the points.
void measure_shape(const Options& o, size_t si, const DenseMatrix& given, int threads, Study& st) {
  const GemmShape& sh = st.shapes[si];
  const KernelOptions kopt{threads, Isa::Auto};
  const DenseMatrix w = given.rows ? given : random_normal(sh.m, sh.k, o.seed + 2 * si);
  const DenseMatrix b = random_normal(sh.k, sh.n, o.seed + 2 * si + 1);
  DenseMatrix c(sh.m, sh.n);
  auto dense = [&] { sgemm_openblas(w.view(), b.view(), c.view(), threads); };
  Timing d1 = time_ms(dense, 5, o.min_ms);
  quiesce(200);
  std::vector<Point> mine;
  for (double s : st.sparsities) {
    std::vector<int> all{1};
    all.insert(all.end(), st.vs.begin(), st.vs.end());
    for (int v : all) {
      const Mask mask = v == 1 ? magnitude_mask(w.view(), s) : column_vector_mask(w.view(), v, s);
      const AnySparse a = v == 1 ? AnySparse(csr_from_dense(w.view(), &mask))
                                 : AnySparse(cvse_from_dense(w.view(), v, &mask));
      const SpmmRun r = run_spmm(a, b.view(), kopt, o.min_ms, 5);
      mine.push_back({si, s, v, r.timing.median_ms, 0, relative_error(w.view(), mask)});
    }
  }
  quiesce(20);
  Timing d2 = time_ms(dense, 5, o.min_ms);
  quiesce(200);
  std::vector<double> all = d1.samples_ms;
  all.insert(all.end(), d2.samples_ms.begin(), d2.samples_ms.end());
  const double dense_ms = median(all);
  for (Point& p : mine) {
    p.dense_ms = dense_ms;
    st.points.push_back(p);
  }
  if (o.json != "-")
    std::cerr << "  " << sh.m << "x" << sh.k << "x" << sh.n << ": dense " << fixed(dense_ms, 3)
              << " ms\n";
}

// Aggregates at sparsity s: geomean speedup over dense per V (into geo), the best V, its gain
// over unstructured, and the adaptive choice per shape (costs = the measured times of that
// shape). Adds a table row; returns the JSON.
nlohmann::json summarise_sparsity(const Options& o, const Study& st, double s,
                                  std::map<int, std::map<double, double>>& geo, Table& table) {
  std::vector<int> all{1};
  all.insert(all.end(), st.vs.begin(), st.vs.end());
  for (int v : all) {
    std::vector<double> sp;
    for (size_t si = 0; si < st.shapes.size(); ++si)
      sp.push_back(st.find(si, s, v).dense_ms / st.find(si, s, v).ms);
    geo[v][s] = geomean(sp);
  }
  int best = st.vs.empty() ? 1 : st.vs.front();
  for (int v : st.vs)
    if (geo[v][s] > geo[best][s]) best = v;
  std::vector<double> gain, adaptive_gain, error_ratio;
  nlohmann::json adaptive = nlohmann::json::array();
  std::map<int, int> histogram;
  for (size_t si = 0; si < st.shapes.size(); ++si) {
    const Point& u = st.find(si, s, 1);
    gain.push_back(u.ms / st.find(si, s, best).ms);
    // The adaptive rule on the errors and times measured above (costs = this shape's times).
    std::vector<VCandidate> cand{{1, u.ms}};
    std::vector<double> errors{u.rel_error};
    for (int v : st.vs) {
      cand.push_back({v, st.find(si, s, v).ms});
      errors.push_back(st.find(si, s, v).rel_error);
    }
    const int pick = pick_vector_length(cand, errors, u.rel_error, o.budget);
    const Point& chosen = st.find(si, s, pick);
    ++histogram[pick];
    adaptive_gain.push_back(u.ms / chosen.ms);
    error_ratio.push_back(u.rel_error > 0 ? chosen.rel_error / u.rel_error : 1.0);
    adaptive.push_back({{"shape", st.shapes[si].name},
                        {"v", pick},
                        {"ms", chosen.ms},
                        {"rel_error", chosen.rel_error},
                        {"speedup_vs_unstructured", u.ms / chosen.ms}});
  }
  std::string hist;
  for (const auto& [v, count] : histogram)
    hist += (hist.empty() ? "" : " ") + std::to_string(v) + "x" + std::to_string(count);
  std::vector<std::string> row{fixed(100 * s, 0) + "%", fixed(geo[1][s], 2) + "x"};
  for (int v : st.vs) row.push_back(fixed(geo[v][s], 2) + "x");
  row.push_back(std::to_string(best));
  row.push_back(fixed(geomean(gain), 2) + "x");
  row.push_back(hist);
  row.push_back(fixed(geomean(adaptive_gain), 2) + "x");
  table.add(row);
  nlohmann::json geo_json = nlohmann::json::object();
  geo_json["unstructured"] = geo[1][s];
  for (int v : st.vs) geo_json["v" + std::to_string(v)] = geo[v][s];
  return {{"sparsity", s},
          {"geomean_speedup_vs_dense", geo_json},
          {"best_v", best},
          {"gain_vs_unstructured", geomean(gain)},
          {"adaptive_budget", o.budget},
          {"adaptive_gain_vs_unstructured", geomean(adaptive_gain)},
          {"adaptive_error_ratio_geomean", geomean(error_ratio)},
          {"adaptive", adaptive}};
}

void run(const Options& o) {
  Study st;
  DenseMatrix given;
  st.shapes = study_shapes(o, given);
  st.vs = parse_list<int>(o.vs, "--v");
  st.vs.erase(std::remove(st.vs.begin(), st.vs.end(), 1), st.vs.end());  // V = 1: unstructured
  for (int v : st.vs)
    if (!valid_cvse_v(v))
      throw InputError({"<flag --v>", 0, 0},
                       "V must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(v));
  st.sparsities = parse_list<double>(o.sparsity, "--sparsity");
  for (double s : st.sparsities)
    if (!(s >= 0 && s <= 1)) throw InputError({"<flag --sparsity>", 0, 0}, "must be in [0, 1]");
  if (!(o.budget >= 0)) throw InputError({"<flag --budget>", 0, 0}, "must be >= 0");
  if (o.threads < 0) throw InputError({"<flag --threads>", 0, 0}, "must be >= 0");
  const int threads = o.threads == 0 ? omp_get_max_threads() : o.threads;
  const bool table_out = o.json != "-";
  warn_timing_environment("prune-study");
  for (size_t si = 0; si < st.shapes.size(); ++si) measure_shape(o, si, given, threads, st);

  std::map<int, std::map<double, double>> geo;  // v -> s -> geomean speedup over dense
  nlohmann::json per_sparsity = nlohmann::json::array();
  std::vector<std::string> header{"sparsity", "unstructured"};
  for (int v : st.vs) header.push_back("V=" + std::to_string(v));
  for (const char* h : {"best V", "gain vs unstr.", "adaptive V", "adaptive gain"})
    header.push_back(h);
  Table table(header);
  for (double s : st.sparsities) per_sparsity.push_back(summarise_sparsity(o, st, s, geo, table));
  nlohmann::json results = nlohmann::json::array();
  for (const Point& p : st.points)
    results.push_back({{"M", st.shapes[p.shape].m},
                       {"K", st.shapes[p.shape].k},
                       {"N", st.shapes[p.shape].n},
                       {"shape", st.shapes[p.shape].name},
                       {"sparsity", p.sparsity},
                       {"pruning", p.v == 1 ? "unstructured" : "column_vector"},
                       {"format", p.v == 1 ? "csr" : "cvse"},
                       {"v", p.v},
                       {"ms", p.ms},
                       {"dense_ms", p.dense_ms},
                       {"speedup", p.dense_ms / p.ms},
                       {"speedup_vs_unstructured", st.find(p.shape, p.sparsity, 1).ms / p.ms},
                       {"rel_error", p.rel_error}});
  if (table_out)
    std::cout << "Geomean speedup over OpenBLAS sgemm (" << threads << " threads, "
              << st.shapes.size() << " shapes); gain = unstructured time / best-V time at equal "
              << "sparsity;\nadaptive: V per shape (V x shapes) within error budget " << o.budget
              << "\n"
              << table.str();
  if (!o.json.empty())
    write_json({{"threads", threads},
                {"isa", isa_name(detected_isa())},
                {"openblas_core", openblas_core_name()},
                {"budget", o.budget},
                {"summary", per_sparsity},
                {"results", results}},
               o.json);
  if (!o.plot.empty()) render_plot(o.plot, st.sparsities, st.vs, geo);
}

}  // namespace

void register_prune_study(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "prune-study",
      "Hardware-aware pruning study: column-vector lengths x sparsity x shape vs unstructured");
  auto o = std::make_shared<Options>();
  cmd->add_option("--shapes", o->shapes, "dl, dl:N, or M,K,N;M,K,N;...");
  cmd->add_option("--weights", o->weights, "Study this weight matrix (.npy or .mtx) instead");
  cmd->add_option("--n", o->n, "Columns of B with --weights");
  cmd->add_option("--v", o->vs, "Column-vector lengths to try");
  cmd->add_option("--sparsity", o->sparsity, "Comma-separated sparsities in [0, 1]");
  cmd->add_option("--budget", o->budget,
                  "Adaptive pruning's error budget beta: err(V) <= (1 + beta) err(unstructured)");
  cmd->add_option("--threads", o->threads, "Threads for the kernels and OpenBLAS (0 = all)");
  cmd->add_option("--seed", o->seed, "Seed of the random matrices");
  cmd->add_option("--min-ms", o->min_ms, "Minimum time per measurement, ms");
  cmd->add_option("--json", o->json, "Write JSON to FILE, or - for stdout");
  cmd->add_option(
      "--plot", o->plot,
      "Render speedup vs sparsity to FILE.png or FILE.svg (gnuplot; also writes FILE.dat "
      "and FILE.gp beside it, replacing them)");
  cmd->callback([o] { run(*o); });
}

}  // namespace sparsemap::cli
