// CMA-ES (Hansen's standard (mu/mu_w, lambda) version, "The CMA Evolution Strategy: A
// Tutorial", 2016), with reflection into the unit cube.
// Eigen stays single-threaded so the numbers never depend on the thread count.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "optimizer_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::search::detail {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using nlohmann::json;

std::vector<double> to_std(const VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}
VectorXd to_eigen(const std::vector<double>& v) {
  return Eigen::Map<const VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}
json matrix_json(const MatrixXd& m) {
  json rows = json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) rows.push_back(to_std(m.row(i).transpose()));
  return rows;
}
MatrixXd matrix_from_json(const json& j, const char* key, size_t n) {
  const std::vector<Genome> rows = json_genomes(j, key, n);
  require_state(rows.size() == n, std::string("'") + key + "' is not square");
  MatrixXd m(n, n);
  for (size_t i = 0; i < n; ++i)
    m.row(static_cast<Eigen::Index>(i)) = to_eigen(rows[i]).transpose();
  return m;
}

// State: mean m (0.5 in every gene, or the best warm-start seed), step size sigma (0.3),
// covariance C = B diag(D)^2 B^T, evolution paths p_c, p_sigma.
// Sampling: x = m + sigma B (D .* z), z ~ N(0, I), then every gene reflected into [0, 1).
// A generation is every candidate drawn from one distribution: they gather until at least
// lambda (OptimizerOptions::population, default 4 + floor(3 ln n)) are told, then all L of
// them update the distribution with mu = floor(L / 2) and the tutorial's weights and rates
// for that L, using the reflected points (so ask(lambda) per step is textbook CMA-ES):
//   w_i = ln(mu + 1/2) - ln i (normalised), mu_eff = 1 / sum w_i^2,
//   m' = sum w_i x_(i),
//   p_s = (1 - c_s) p_s + sqrt(c_s (2 - c_s) mu_eff) C^(-1/2) (m' - m) / sigma,
//   h_s = [|p_s| / sqrt(1 - (1 - c_s)^(2 (g + 1))) < (1.4 + 2 / (n + 1)) E|N(0, I)|],
//   p_c = (1 - c_c) p_c + h_s sqrt(c_c (2 - c_c) mu_eff) (m' - m) / sigma,
//   C = (1 - c_1 - c_mu) C + c_1 (p_c p_c^T + (1 - h_s) c_c (2 - c_c) C)
//       + c_mu sum w_i y_i y_i^T,  y_i = (x_(i) - m) / sigma,
//   sigma *= exp((c_s / d_s) (|p_s| / E|N(0, I)| - 1)), kept in [1e-12, 1].
// Seeds do not join a generation: while no update has happened, the best seed told so far
// becomes the mean (and the candidates drawn around the old mean, including the rest of that
// ask, are dropped from the generation; they still count as samples).
class CmaEs final : public OptimizerBase {
 public:
  CmaEs(size_t dims, const OptimizerOptions& o)
      : OptimizerBase("cmaes", dims, o),
        lambda_(std::max<size_t>(
            2, o.population ? o.population
                            : 4 + static_cast<size_t>(std::floor(3.0 * std::log(double(dims)))))),
        mean_(VectorXd::Constant(static_cast<Eigen::Index>(dims), 0.5)),
        c_(MatrixXd::Identity(static_cast<Eigen::Index>(dims), static_cast<Eigen::Index>(dims))),
        b_(c_),
        d_(VectorXd::Ones(static_cast<Eigen::Index>(dims))),
        pc_(VectorXd::Zero(static_cast<Eigen::Index>(dims))),
        ps_(VectorXd::Zero(static_cast<Eigen::Index>(dims))) {}

 protected:
  void propose(size_t k, std::vector<Genome>& out) override {
    const Eigen::Index n = static_cast<Eigen::Index>(dims_);
    VectorXd z(n);
    for (size_t i = 0; i < k; ++i) {
      for (Eigen::Index j = 0; j < n; ++j) z[j] = gaussian(rng_);
      const VectorXd x = mean_ + sigma_ * (b_ * d_.cwiseProduct(z));
      Genome g(dims_);
      for (size_t j = 0; j < dims_; ++j) g[j] = reflect_gene(x[static_cast<Eigen::Index>(j)]);
      out.push_back(std::move(g));
    }
  }

  void observe(const std::vector<Genome>& xs, const std::vector<double>& f,
               size_t n_seeds) override {
    bool moved = false;  // the mean moved to a seed: this ask's samples belong to the old one
    for (size_t i = 0; i < n_seeds; ++i) {
      if (generation_ == 0 && f[i] < seed_f_) {
        seed_f_ = f[i];
        mean_ = to_eigen(xs[i]);
        pool_.clear();
        moved = true;
      }
    }
    if (!moved)
      for (size_t i = n_seeds; i < xs.size(); ++i) pool_.push_back({xs[i], f[i]});
    if (pool_.size() >= lambda_) update();
  }

  json save_state() const override {
    return json{
        {"mean", to_std(mean_)}, {"sigma", sigma_},           {"c", matrix_json(c_)},
        {"b", matrix_json(b_)},  {"d", to_std(d_)},           {"pc", to_std(pc_)},
        {"ps", to_std(ps_)},     {"generation", generation_}, {"pool", scored_to_json(pool_)},
        {"seed_f", seed_f_}};
  }
  void load_state(const json& j) override {
    const VectorXd mean = to_eigen(json_vector(j, "mean", dims_));
    const MatrixXd c = matrix_from_json(j, "c", dims_), b = matrix_from_json(j, "b", dims_);
    const VectorXd d = to_eigen(json_vector(j, "d", dims_));
    const VectorXd pc = to_eigen(json_vector(j, "pc", dims_)),
                   ps = to_eigen(json_vector(j, "ps", dims_));
    std::vector<Scored> pool = scored_from_json(j, "pool", dims_);
    require_state(j.contains("sigma") && j["sigma"].is_number() && j.contains("seed_f") &&
                      j["seed_f"].is_number() && j.contains("generation") &&
                      j["generation"].is_number_integer(),
                  "no 'sigma', 'seed_f' or 'generation'");
    mean_ = mean;
    c_ = c;
    b_ = b;
    d_ = d;
    pc_ = pc;
    ps_ = ps;
    pool_ = std::move(pool);
    sigma_ = j["sigma"].get<double>();
    seed_f_ = j["seed_f"].get<double>();
    generation_ = j["generation"].get<int64_t>();
  }

 private:
  void update() {
    const double n = static_cast<double>(dims_);
    const Eigen::Index ni = static_cast<Eigen::Index>(dims_);
    sort_scored(pool_);
    const size_t mu = std::max<size_t>(1, pool_.size() / 2);
    VectorXd w(static_cast<Eigen::Index>(mu));
    for (size_t i = 0; i < mu; ++i)
      w[static_cast<Eigen::Index>(i)] = std::log(double(mu) + 0.5) - std::log(double(i + 1));
    w /= w.sum();
    const double mueff = 1.0 / w.squaredNorm();
    const double cc = (4 + mueff / n) / (n + 4 + 2 * mueff / n);
    const double cs = (mueff + 2) / (n + mueff + 5);
    const double c1 = 2 / ((n + 1.3) * (n + 1.3) + mueff);
    const double cmu = std::min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((n + 2) * (n + 2) + mueff));
    const double damps = 1 + 2 * std::max(0.0, std::sqrt((mueff - 1) / (n + 1)) - 1) + cs;
    const double chi_n = std::sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n));

    const VectorXd old = mean_;
    MatrixXd y(ni, static_cast<Eigen::Index>(mu));
    for (size_t i = 0; i < mu; ++i)
      y.col(static_cast<Eigen::Index>(i)) = (to_eigen(pool_[i].x) - old) / sigma_;
    const VectorXd step = y * w;  // (m' - m) / sigma
    mean_ = old + sigma_ * step;
    const MatrixXd inv_sqrt_c = b_ * d_.cwiseInverse().asDiagonal() * b_.transpose();
    ps_ = (1 - cs) * ps_ + std::sqrt(cs * (2 - cs) * mueff) * (inv_sqrt_c * step);
    const double norm_ps = ps_.norm();
    const bool hsig = norm_ps / std::sqrt(1 - std::pow(1 - cs, 2.0 * double(generation_ + 1))) <
                      (1.4 + 2 / (n + 1)) * chi_n;
    pc_ = (1 - cc) * pc_ + (hsig ? std::sqrt(cc * (2 - cc) * mueff) : 0.0) * step;
    c_ = (1 - c1 - cmu) * c_ + c1 * (pc_ * pc_.transpose() + (hsig ? 0.0 : cc * (2 - cc)) * c_) +
         cmu * y * w.asDiagonal() * y.transpose();
    c_ = 0.5 * (c_ + c_.transpose());  // exact symmetry before the eigensolver
    sigma_ *= std::exp((cs / damps) * (norm_ps / chi_n - 1));
    sigma_ = std::min(1.0, std::max(1e-12, sigma_));

    Eigen::SelfAdjointEigenSolver<MatrixXd> eig(c_);
    if (eig.info() == Eigen::Success) {
      b_ = eig.eigenvectors();
      d_ = eig.eigenvalues().cwiseMax(1e-30).cwiseSqrt();
    } else {  // numerically broken: restart the shape, keep mean and step
      c_.setIdentity();
      b_.setIdentity();
      d_.setOnes();
    }
    pool_.clear();
    ++generation_;
  }

  size_t lambda_;
  VectorXd mean_;
  double sigma_ = 0.3;
  MatrixXd c_, b_;
  VectorXd d_, pc_, ps_;
  int64_t generation_ = 0;
  std::vector<Scored> pool_;  // told candidates of the current generation
  double seed_f_ = kInfeasible;
};

}  // namespace

std::unique_ptr<Optimizer> make_cmaes(size_t dims, const OptimizerOptions& o) {
  return std::make_unique<CmaEs>(dims, o);
}

}  // namespace sparsemap::search::detail
