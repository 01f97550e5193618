// `sparsemap prune-study`'s measurement and aggregation (prune_study.h).
#include "sparsemap/measure/prune_study.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "sparsemap/error.h"
#include "sparsemap/sparse/format/matrix_io.h"
#include "sparsemap/sparse/prune/adaptive.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::measure::prune_study {

namespace {

using namespace sparsemap::sparse;

// The comma-separated numbers of `text` (empty items skipped) as T; InputError at "<flag F>"
// for a non-number or an empty list.
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

// The shapes to study: the --weights matrix (with --n columns of B, read into `given`), or
// --shapes.
std::vector<GemmShape> study_shapes(const Options& o, DenseMatrix& given) {
  if (o.weights.empty()) return parse_shapes(o.shapes);
  given = ends_with(o.weights, ".npy") ? read_npy(o.weights)
          : ends_with(o.weights, ".mtx")
              ? read_mtx_dense(o.weights)
              : throw InputError({o.weights, 0, 0}, "expected a .npy or .mtx file");
  if (o.n < 1) throw InputError({"<flag --n>", 0, 0}, "must be >= 1");
  return {{given.rows, given.cols, o.n, o.weights}};
}

// One shape: dense sgemm timed before and after the sparse runs (so slow drifts hit both
// alike), then every sparsity x V; appends the points and returns the dense time (ms).
double measure_shape(const Plan& p, size_t si, Result& r) {
  const Options& o = p.options;
  const GemmShape& sh = p.shapes[si];
  const KernelOptions kopt{p.threads, Isa::Auto};
  const DenseMatrix w = p.weights.rows ? p.weights : random_normal(sh.m, sh.k, o.seed + 2 * si);
  const DenseMatrix b = random_normal(sh.k, sh.n, o.seed + 2 * si + 1);
  DenseMatrix c(sh.m, sh.n);
  auto dense = [&] { sgemm_openblas(w.view(), b.view(), c.view(), p.threads); };
  Timing d1 = time_ms(dense, 5, o.min_ms);
  quiesce(200);
  std::vector<Point> mine;
  for (double s : p.sparsities) {
    std::vector<int> all{1};
    all.insert(all.end(), p.vs.begin(), p.vs.end());
    for (int v : all) {
      const Mask mask = v == 1 ? magnitude_mask(w.view(), s) : column_vector_mask(w.view(), v, s);
      const AnySparse a = v == 1 ? AnySparse(csr_from_dense(w.view(), &mask))
                                 : AnySparse(cvse_from_dense(w.view(), v, &mask));
      const SpmmRun run = run_spmm(a, b.view(), kopt, o.min_ms, 5);
      mine.push_back({si, s, v, run.timing.median_ms, 0, relative_error(w.view(), mask)});
    }
  }
  quiesce(20);
  Timing d2 = time_ms(dense, 5, o.min_ms);
  quiesce(200);
  std::vector<double> all = d1.samples_ms;
  all.insert(all.end(), d2.samples_ms.begin(), d2.samples_ms.end());
  const double dense_ms = median(all);
  for (Point& pt : mine) {
    pt.dense_ms = dense_ms;
    r.points.push_back(pt);
  }
  return dense_ms;
}

// Aggregates at sparsity s: geomean speedup over dense per V, the best V, its gain over
// unstructured, and the adaptive choice per shape (costs = the measured times of that shape).
SparsitySummary summarise_sparsity(const Result& r, double s) {
  SparsitySummary out;
  out.sparsity = s;
  std::map<int, double>& geo = out.geomean_speedup;
  std::vector<int> all{1};
  all.insert(all.end(), r.vs.begin(), r.vs.end());
  for (int v : all) {
    std::vector<double> sp;
    for (size_t si = 0; si < r.shapes.size(); ++si)
      sp.push_back(r.find(si, s, v).dense_ms / r.find(si, s, v).ms);
    geo[v] = geomean(sp);
  }
  int best = r.vs.empty() ? 1 : r.vs.front();
  for (int v : r.vs)
    if (geo[v] > geo[best]) best = v;
  out.best_v = best;
  std::vector<double> gain, adaptive_gain, error_ratio;
  for (size_t si = 0; si < r.shapes.size(); ++si) {
    const Point& u = r.find(si, s, 1);
    gain.push_back(u.ms / r.find(si, s, best).ms);
    // The adaptive rule on the errors and times measured above (costs = this shape's times).
    std::vector<VCandidate> cand{{1, u.ms}};
    std::vector<double> errors{u.rel_error};
    for (int v : r.vs) {
      cand.push_back({v, r.find(si, s, v).ms});
      errors.push_back(r.find(si, s, v).rel_error);
    }
    const int pick = pick_vector_length(cand, errors, u.rel_error, r.options.budget);
    const Point& chosen = r.find(si, s, pick);
    ++out.histogram[pick];
    adaptive_gain.push_back(u.ms / chosen.ms);
    error_ratio.push_back(u.rel_error > 0 ? chosen.rel_error / u.rel_error : 1.0);
    out.adaptive.push_back({si, pick, chosen.ms, chosen.rel_error, u.ms / chosen.ms});
  }
  out.gain_vs_unstructured = geomean(gain);
  out.adaptive_gain_vs_unstructured = geomean(adaptive_gain);
  out.adaptive_error_ratio_geomean = geomean(error_ratio);
  return out;
}

}  // namespace

const Point& Result::find(size_t si, double s, int v) const {
  for (const Point& p : points)
    if (p.shape == si && p.sparsity == s && p.v == v) return p;
  SPARSEMAP_ASSERT(false);
  return points.front();
}

Plan plan(const Options& o) {
  Plan p;
  p.options = o;
  p.shapes = study_shapes(o, p.weights);
  p.vs = parse_list<int>(o.vs, "--v");
  p.vs.erase(std::remove(p.vs.begin(), p.vs.end(), 1), p.vs.end());  // V = 1: unstructured
  for (int v : p.vs)
    if (!valid_cvse_v(v))
      throw InputError({"<flag --v>", 0, 0},
                       "V must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(v));
  p.sparsities = parse_list<double>(o.sparsity, "--sparsity");
  for (double s : p.sparsities)
    if (!(s >= 0 && s <= 1)) throw InputError({"<flag --sparsity>", 0, 0}, "must be in [0, 1]");
  if (!(o.budget >= 0)) throw InputError({"<flag --budget>", 0, 0}, "must be >= 0");
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
  r.shapes = p.shapes;
  r.vs = p.vs;
  r.sparsities = p.sparsities;
  for (size_t si = 0; si < p.shapes.size(); ++si) {
    if (observer.stop_requested()) throw search::Cancelled();
    const GemmShape& sh = p.shapes[si];
    const double dense_ms = measure_shape(p, si, r);
    observer.on_note("  " + std::to_string(sh.m) + "x" + std::to_string(sh.k) + "x" +
                     std::to_string(sh.n) + ": dense " + fixed(dense_ms, 3) + " ms");
    search::report_progress(observer, {si + 1, p.shapes.size(), static_cast<int64_t>(si + 1),
                                       static_cast<int64_t>(p.shapes.size()), 0, "prune-study"});
  }
  for (double s : r.sparsities) r.summary.push_back(summarise_sparsity(r, s));
  return r;
}

Result run(const Options& o, search::Observer& observer) { return run(plan(o), observer); }

}  // namespace sparsemap::measure::prune_study
