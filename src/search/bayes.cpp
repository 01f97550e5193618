// Bayesian optimisation: a Gaussian process on the told samples and batches that maximise
// expected improvement (kriging believer). Cost per ask: O(N^3) for the fit, O(N^2 C) for C
// candidates, so N is capped at kBoSampleCap.
// Eigen stays single-threaded so the numbers never depend on the thread count.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "optimizer_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::search::detail {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using nlohmann::json;

// The model, refitted at every ask from the told samples (nothing else is state):
// - data: the told samples, or the kBoSampleCap best of them (ties: the earlier);
// - targets: infeasible values become the worst feasible one; when every value is > 0 they are
//   log-transformed; then standardised to mean 0, variance 1;
// - kernel k(r) with unit signal variance, r = |x - x'|, length scale l:
//   Matern 5/2: (1 + sqrt5 r / l + 5 r^2 / (3 l^2)) exp(-sqrt5 r / l); RBF: exp(-r^2 / (2 l^2));
// - l fixed (BoOptions::length_scale > 0) or the best log marginal likelihood
//   -y^T K^-1 y / 2 - sum log L_ii over l = sqrt(dims) {0.03, 0.06, 0.12, 0.25, 0.5, 1};
// - K + 1e-6 I (more jitter, up to 1e-2, if the Cholesky factorisation fails), Eigen LLT.
// Acquisition: EI(x) = (y* - mu) Phi(z) + s phi(z), z = (y* - mu) / s, y* the best target.
// Candidates: half uniform points, half the top 5 samples perturbed by N(0, s^2), s drawn from
// {0.02, 0.05, 0.15}, reflected into [0, 1). A batch of m is picked one by one: the argmax of
// EI, then the posterior variance is updated as if that point had been observed at its mean
// (the kriging believer: the mean does not change, var'(x) = var(x) - cov(x, p)^2 / var(p)).
// The first max(10, 2 dims) (BoOptions::initial; at most max(10, budget / 4) when the budget is
// known) samples are uniform points (after any seeds),
// as are all candidates while no sample is feasible.
class BayesianOptimization final : public OptimizerBase {
 public:
  BayesianOptimization(size_t dims, const OptimizerOptions& o)
      : OptimizerBase("bo", dims, o), options_(o.bo) {
    if (options_.kernel != "matern52" && options_.kernel != "rbf")
      throw InputError({"<optimizer>", 0, 0},
                       "bo: unknown kernel '" + options_.kernel + "', expected matern52 or rbf");
    initial_ = options_.initial ? options_.initial : std::max<size_t>(10, 2 * dims);
    // With many genes (co-design: every layer's mapping) 2 dims can exceed the whole budget,
    // and BO would then be random search, sample for sample: at most a quarter of the budget
    // (and at least 10) is uniform.
    if (!options_.initial && o.budget > 0)
      initial_ = std::min(initial_, std::max<size_t>(10, static_cast<size_t>(o.budget) / 4));
    if (options_.candidates < 2) options_.candidates = 2;
  }

 protected:
  void propose(size_t k, std::vector<Genome>& out) override {
    size_t uniform = 0;
    while (uniform < k && static_cast<size_t>(told_) + out.size() + uniform < initial_) ++uniform;
    bool feasible = false;
    for (const Scored& s : data_) feasible = feasible || s.f < kInfeasible;
    if (!feasible) uniform = k;
    for (size_t i = 0; i < uniform; ++i) out.push_back(random_genome(dims_, rng_));
    if (uniform < k) pick_batch(k - uniform, out);
  }

  void observe(const std::vector<Genome>& xs, const std::vector<double>& f, size_t) override {
    for (size_t i = 0; i < xs.size(); ++i) data_.push_back({xs[i], f[i]});
  }

  json save_state() const override { return json{{"data", scored_to_json(data_)}}; }
  void load_state(const json& j) override { data_ = scored_from_json(j, "data", dims_); }

 private:
  double kernel(double r2, double l) const {
    if (options_.kernel == "rbf") return std::exp(-r2 / (2 * l * l));
    const double a = std::sqrt(5.0 * r2) / l;
    return (1 + a + a * a / 3) * std::exp(-a);
  }

  MatrixXd gram(const MatrixXd& x, double l) const {  // x: dims x N
    const Eigen::Index n = x.cols();
    MatrixXd k(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j <= i; ++j)
        k(i, j) = k(j, i) = kernel((x.col(i) - x.col(j)).squaredNorm(), l);
    return k;
  }

  // Cholesky of k + jitter I, raising the jitter until it succeeds; false if it never does.
  static bool factor(const MatrixXd& k, Eigen::LLT<MatrixXd>& llt) {
    for (double jitter = 1e-6; jitter <= 1e-2; jitter *= 10) {
      MatrixXd kj = k;
      kj.diagonal().array() += jitter;
      llt.compute(kj);
      if (llt.info() == Eigen::Success) return true;
    }
    return false;
  }

  void pick_batch(size_t m, std::vector<Genome>& out) {
    // Data: the kBoSampleCap best samples (stable, so ties keep the earlier ones).
    std::vector<Scored> data = data_;
    sort_scored(data);
    if (data.size() > static_cast<size_t>(kBoSampleCap)) data.resize(kBoSampleCap);
    const Eigen::Index n = static_cast<Eigen::Index>(data.size());
    const Eigen::Index d = static_cast<Eigen::Index>(dims_);
    MatrixXd x(d, n);
    VectorXd y(n);
    double worst = -kInfeasible, lowest = kInfeasible;
    for (const Scored& s : data)
      if (s.f < kInfeasible) worst = std::max(worst, s.f), lowest = std::min(lowest, s.f);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < d; ++j)
        x(j, i) = data[static_cast<size_t>(i)].x[static_cast<size_t>(j)];
      const double f = std::min(data[static_cast<size_t>(i)].f, worst);
      y[i] = lowest > 0 ? std::log(f) : f;
    }
    const double mean = y.mean();
    const double sd = std::sqrt((y.array() - mean).square().mean());
    y = (y.array() - mean) / (sd > 0 ? sd : 1.0);

    // Length scale and the factorisation.
    std::vector<double> grid;
    if (options_.length_scale > 0)
      grid = {options_.length_scale};
    else
      for (double g : {0.03, 0.06, 0.12, 0.25, 0.5, 1.0})
        grid.push_back(g * std::sqrt(double(dims_)));
    double l = grid.front(), best_ml = -std::numeric_limits<double>::infinity();
    Eigen::LLT<MatrixXd> llt;
    bool ok = false;
    for (double g : grid) {
      Eigen::LLT<MatrixXd> trial;
      if (!factor(gram(x, g), trial)) continue;
      const VectorXd a = trial.solve(y);
      const MatrixXd& lm = trial.matrixLLT();
      const double ml = -0.5 * y.dot(a) - lm.diagonal().array().log().sum();
      if (!ok || ml > best_ml) best_ml = ml, l = g, llt = trial, ok = true;
    }
    if (!ok) {  // no factorisation at all: fall back to uniform points
      for (size_t i = 0; i < m; ++i) out.push_back(random_genome(dims_, rng_));
      return;
    }
    const VectorXd alpha = llt.solve(y);

    // Candidates.
    const size_t c = options_.candidates;
    const size_t top = std::min<size_t>(5, data.size());
    std::vector<Genome> cand;
    cand.reserve(c);
    for (size_t i = 0; i < c; ++i) {
      if (i < c / 2) {
        cand.push_back(random_genome(dims_, rng_));
        continue;
      }
      Genome g = data[uniform_index(rng_, top)].x;
      static const double kSteps[] = {0.02, 0.05, 0.15};
      const double s = kSteps[uniform_index(rng_, 3)];
      for (double& v : g) v = reflect_gene(v + s * gaussian(rng_));
      cand.push_back(std::move(g));
    }
    const Eigen::Index ci = static_cast<Eigen::Index>(c);
    MatrixXd xc(d, ci);
    for (Eigen::Index i = 0; i < ci; ++i)
      for (Eigen::Index j = 0; j < d; ++j)
        xc(j, i) = cand[static_cast<size_t>(i)][static_cast<size_t>(j)];
    MatrixXd kc(n, ci);
    for (Eigen::Index i = 0; i < ci; ++i)
      for (Eigen::Index j = 0; j < n; ++j)
        kc(j, i) = kernel((x.col(j) - xc.col(i)).squaredNorm(), l);
    const VectorXd mu = kc.transpose() * alpha;
    const MatrixXd v = llt.matrixL().solve(kc);  // L^-1 k(X, candidates)
    VectorXd var = (1.0 - v.colwise().squaredNorm().transpose().array()).max(0.0);
    const double y_best = y.minCoeff();

    // Sequential picks with the kriging believer's variance updates.
    std::vector<VectorXd> u;  // u_t(x) = cov_{t-1}(x, p_t) / sqrt(var_{t-1}(p_t))
    for (size_t pick = 0; pick < m; ++pick) {
      Eigen::Index arg = -1;
      double best_ei = 0;
      for (Eigen::Index i = 0; i < ci; ++i) {
        const double s = std::sqrt(var[i]);
        if (s < 1e-9) continue;
        const double z = (y_best - mu[i]) / s;
        const double ei = (y_best - mu[i]) * 0.5 * std::erfc(-z / std::sqrt(2.0)) +
                          s * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
        if (ei > best_ei) best_ei = ei, arg = i;
      }
      if (arg < 0) {  // nothing left to gain: a uniform point
        out.push_back(random_genome(dims_, rng_));
        continue;
      }
      out.push_back(cand[static_cast<size_t>(arg)]);
      VectorXd cov(ci);
      for (Eigen::Index i = 0; i < ci; ++i)
        cov[i] = kernel((xc.col(i) - xc.col(arg)).squaredNorm(), l);
      cov -= v.transpose() * v.col(arg);
      for (const VectorXd& ut : u) cov -= ut * ut[arg];
      const double vp = var[arg];
      VectorXd ut = cov / std::sqrt(vp);
      var = (var.array() - ut.array().square()).max(0.0);
      var[arg] = 0;
      u.push_back(std::move(ut));
    }
  }

  BoOptions options_;
  size_t initial_;
  std::vector<Scored> data_;  // every told sample, in order
};

}  // namespace

std::unique_ptr<Optimizer> make_bo(size_t dims, const OptimizerOptions& o) {
  return std::make_unique<BayesianOptimization>(dims, o);
}

}  // namespace sparsemap::search::detail
