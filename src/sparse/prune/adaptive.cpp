// Adaptive column-vector pruning (rule in adaptive.h).
#include "sparsemap/sparse/prune/adaptive.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sparsemap/error.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::sparse {

namespace {

[[noreturn]] void fail(const std::string& m) { throw InputError({"<adaptive>", 0, 0}, m); }

void check(double sparsity, double beta, const std::vector<VCandidate>& candidates) {
  if (candidates.empty()) fail("no candidate vector lengths");
  for (const VCandidate& c : candidates)
    if (!valid_cvse_v(c.v)) fail("V must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(c.v));
  if (!(beta >= 0.0)) fail("the error budget must be >= 0");
  if (!(sparsity >= 0.0 && sparsity <= 1.0)) fail("sparsity must be in [0, 1]");
}

}  // namespace

AdaptiveChoice choose_vector_length(ConstMatrixView w, double sparsity, double beta,
                                    const std::vector<VCandidate>& candidates) {
  check(sparsity, beta, candidates);
  AdaptiveChoice out;
  out.unstructured_error = relative_error(w, magnitude_mask(w, sparsity));
  for (const VCandidate& c : candidates)
    out.errors.push_back(c.v == 1 ? out.unstructured_error
                                  : relative_error(w, column_vector_mask(w, c.v, sparsity)));
  out.v = pick_vector_length(candidates, out.errors, out.unstructured_error, beta);
  out.rel_error = out.unstructured_error;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].v == out.v) out.rel_error = out.errors[i];
  return out;
}

int pick_vector_length(const std::vector<VCandidate>& candidates, const std::vector<double>& errors,
                       double unstructured_error, double beta) {
  check(0.0, beta, candidates);
  if (errors.size() != candidates.size()) fail("one error per candidate expected");
  // A tiny slack so that V = 1 (err == limit when beta = 0) always qualifies.
  const double limit = (1.0 + beta) * unstructured_error * (1.0 + 1e-12) + 1e-15;
  int v = 1;
  bool found = false;
  double best_cost = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const VCandidate& c = candidates[i];
    if (errors[i] > limit) continue;
    if (!found || c.cost < best_cost || (c.cost == best_cost && c.v > v)) {
      found = true;
      best_cost = c.cost;
      v = c.v;
    }
  }
  return v;  // 1 when nothing qualifies (only possible without V = 1 among the candidates)
}

// Speedup over dense sgemm at 90% sparsity, geomean of three dl shapes (768x3072, 2048x512,
// 256x2304, N = 256), one thread, AVX-512 (Zen 5), thread CPU time: csr 2.90, cvse:2 4.62,
// cvse:4 6.14, cvse:8 7.39, cvse:16 7.53, cvse:32 8.01. cost = 1 / speedup. Only the order and
// the rough ratios matter to the rule; pass measured costs when you have them.
double cvse_cost_model(int v) {
  switch (v) {
    case 1:
      return 1.0 / 2.90;
    case 2:
      return 1.0 / 4.62;
    case 4:
      return 1.0 / 6.14;
    case 8:
      return 1.0 / 7.39;
    case 16:
      return 1.0 / 7.53;
    case 32:
      return 1.0 / 8.01;
    default:
      fail("V must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(v));
  }
}

AdaptiveCvse adaptive_cvse(ConstMatrixView w, double sparsity, double beta,
                           const std::vector<VCandidate>& candidates, int64_t panel_rows) {
  check(sparsity, beta, candidates);
  check_view(w, "W");
  int max_v = 1;
  for (const VCandidate& c : candidates) max_v = std::max(max_v, c.v);
  if (panel_rows < 1 || panel_rows % max_v != 0)
    fail("panel rows (" + std::to_string(panel_rows) + ") must be a positive multiple of the " +
         "longest candidate V (" + std::to_string(max_v) + ")");
  AdaptiveCvse out;
  out.rows = w.rows;
  out.cols = w.cols;
  out.panel_rows = panel_rows;
  for (int64_t r0 = 0; r0 < w.rows; r0 += panel_rows) {
    const ConstMatrixView p{w.data + r0 * w.ld, std::min(panel_rows, w.rows - r0), w.cols, w.ld};
    AdaptiveChoice choice = choose_vector_length(p, sparsity, beta, candidates);
    const Mask m =
        choice.v == 1 ? magnitude_mask(p, sparsity) : column_vector_mask(p, choice.v, sparsity);
    out.panels.push_back(cvse_from_dense(p, choice.v, &m));
    out.choices.push_back(std::move(choice));
  }
  return out;
}

DenseMatrix to_dense(const AdaptiveCvse& a) {
  DenseMatrix d(a.rows, a.cols);
  for (size_t i = 0; i < a.panels.size(); ++i) {
    const DenseMatrix p = to_dense(a.panels[i]);
    std::copy(p.values.begin(), p.values.end(),
              d.values.begin() + static_cast<int64_t>(i) * a.panel_rows * a.cols);
  }
  return d;
}

void spmm_adaptive(const AdaptiveCvse& a, ConstMatrixView b, MatrixView c,
                   const KernelOptions& opt) {
  check_view(c, "C");
  if (c.rows != a.rows)
    throw InputError({"<spmm adaptive>", 0, 0}, "shape mismatch: C has " + std::to_string(c.rows) +
                                                    " rows, A has " + std::to_string(a.rows));
  for (const CvseMatrix& p : a.panels)
    if (p.cols != a.cols || p.rows > a.panel_rows)
      throw InputError({"<spmm adaptive>", 0, 0}, "panel sizes do not match the matrix");
  // Panels in parallel, each on one thread: a panel is too small to split further.
  const int64_t panels = static_cast<int64_t>(a.panels.size());
  const int threads = opt.threads == 0 ? omp_get_max_threads() : opt.threads;
  if (threads < 0) throw InputError({"<threads>", 0, 0}, "thread count must be >= 0");
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t i = 0; i < panels; ++i) {
    const CvseMatrix& p = a.panels[static_cast<size_t>(i)];
    spmm_cvse(p, b, MatrixView{c.data + i * a.panel_rows * c.ld, p.rows, c.cols, c.ld},
              {1, opt.isa});
  }
}

}  // namespace sparsemap::sparse
