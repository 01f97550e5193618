// Single-point searches: simulated annealing, the (1+1)-ES with the 1/5 success rule, and
// exhaustive enumeration of a small discrete space.
#include <algorithm>
#include <cmath>
#include <limits>

#include "optimizer_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::search::detail {
namespace {

using nlohmann::json;

// Samples the SA schedule is spread over when the caller gives no budget.
constexpr int64_t kDefaultBudget = 10000;

// Simulated annealing over [0, 1)^d.
// - Neighbour of the current point: each gene, with probability 1/2 (and at least one gene),
//   moves by sigma N(0, 1), then is reflected into [0, 1); sigma(t) = 0.2 (0.01 / 0.2)^t.
// - Acceptance (Metropolis on the relative change, so the fitness unit does not matter):
//   accept when f <= f_cur, else with probability exp(-(f - f_cur) / (|f_cur| T(t))), where
//   T(t) = 0.1 (1e-4 / 0.1)^t (geometric cooling); t = samples told / budget, in [0, 1].
//   An infeasible current point moves to any candidate (a random walk out of infeasibility).
// - Candidates of one ask are all neighbours of the current point at the ask; tell applies
//   the acceptance rule to them in order. Seeds are judged by the same rule.
class SimulatedAnnealing final : public OptimizerBase {
 public:
  SimulatedAnnealing(size_t dims, const OptimizerOptions& o) : OptimizerBase("sa", dims, o) {}

 protected:
  void propose(size_t k, std::vector<Genome>& out) override {
    const double sigma = 0.2 * std::pow(0.01 / 0.2, progress(told_));
    for (size_t i = 0; i < k; ++i) {
      if (current_.empty()) {
        out.push_back(random_genome(dims_, rng_));
        continue;
      }
      Genome g = current_;
      const size_t forced = uniform_index(rng_, dims_);
      for (size_t j = 0; j < dims_; ++j)
        if (j == forced || uniform01(rng_) < 0.5)
          g[j] = reflect_gene(g[j] + sigma * gaussian(rng_));
      out.push_back(std::move(g));
    }
  }

  void observe(const std::vector<Genome>& xs, const std::vector<double>& f, size_t) override {
    const int64_t first = told_ - static_cast<int64_t>(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      const double u = uniform01(rng_);  // drawn for every candidate: a fixed Rng use per tell
      bool accept = current_.empty() || f[i] <= current_f_ || current_f_ >= kInfeasible;
      if (!accept && f[i] < kInfeasible) {
        const double t = 0.1 * std::pow(1e-4 / 0.1, progress(first + static_cast<int64_t>(i)));
        const double scale = std::max(std::fabs(current_f_), 1e-300);
        accept = u < std::exp(-(f[i] - current_f_) / (scale * t));
      }
      if (accept) {
        current_ = xs[i];
        current_f_ = f[i];
      }
    }
  }

  json save_state() const override {
    return json{{"current", current_}, {"current_f", current_f_}};
  }
  void load_state(const json& j) override {
    current_ = json_vector(j, "current");
    require_state(current_.empty() || current_.size() == dims_, "'current' has the wrong size");
    require_state(j.contains("current_f") && j["current_f"].is_number(), "no 'current_f'");
    current_f_ = j["current_f"].get<double>();
  }

 private:
  double progress(int64_t sample) const {
    const double b = static_cast<double>(budget_ > 0 ? budget_ : kDefaultBudget);
    return std::min(1.0, std::max(0.0, static_cast<double>(sample) / b));
  }

  Genome current_;  // empty before the first tell
  double current_f_ = kInfeasible;
};

// (1+1)-ES: one parent, offspring parent + sigma N(0, I) reflected into [0, 1); sigma starts
// at 0.2 and stays in [1e-12, 0.5]. The 1/5 success rule, per tell: with p the fraction of
// the told offspring better than the parent they were drawn from,
//   sigma *= exp((p - 1/5) 5/12),
// which for one offspring per ask is the classic exp(1/3) on success, exp(-1/12) on failure;
// the best told offspring replaces the parent when it is better (ties: the earlier one).
// With an infeasible parent the first feasible offspring, else the last one, replaces it and
// sigma is unchanged (a random walk out of infeasibility). Seeds only compete for the parent and
// leave sigma alone.
class OnePlusOne final : public OptimizerBase {
 public:
  OnePlusOne(size_t dims, const OptimizerOptions& o) : OptimizerBase("oneplusone", dims, o) {}

 protected:
  void propose(size_t k, std::vector<Genome>& out) override {
    for (size_t i = 0; i < k; ++i) {
      if (parent_.empty()) {
        out.push_back(random_genome(dims_, rng_));
        continue;
      }
      Genome g = parent_;
      for (double& v : g) v = reflect_gene(v + sigma_ * gaussian(rng_));
      out.push_back(std::move(g));
    }
  }

  void observe(const std::vector<Genome>& xs, const std::vector<double>& f,
               size_t n_seeds) override {
    const double parent_f = parent_f_;  // the parent the offspring were drawn from
    const bool walk = !parent_.empty() && parent_f >= kInfeasible;
    size_t successes = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (i >= n_seeds && f[i] < parent_f) ++successes;
      if (parent_.empty() || f[i] < parent_f_ ||
          (walk && i >= n_seeds && parent_f_ >= kInfeasible)) {
        parent_ = xs[i];
        parent_f_ = f[i];
      }
    }
    const size_t offspring = xs.size() - n_seeds;
    if (offspring == 0 || parent_f >= kInfeasible) return;
    const double p = static_cast<double>(successes) / static_cast<double>(offspring);
    sigma_ = std::min(0.5, std::max(1e-12, sigma_ * std::exp((p - 0.2) * 5.0 / 12.0)));
  }

  json save_state() const override {
    return json{{"parent", parent_}, {"parent_f", parent_f_}, {"sigma", sigma_}};
  }
  void load_state(const json& j) override {
    parent_ = json_vector(j, "parent");
    require_state(parent_.empty() || parent_.size() == dims_, "'parent' has the wrong size");
    require_state(j.contains("parent_f") && j["parent_f"].is_number() && j.contains("sigma") &&
                      j["sigma"].is_number(),
                  "no 'parent_f' or 'sigma'");
    parent_f_ = j["parent_f"].get<double>();
    sigma_ = j["sigma"].get<double>();
  }

 private:
  Genome parent_;
  double parent_f_ = kInfeasible;
  double sigma_ = 0.2;
};

// Exhaustive enumeration: a mixed-radix counter over `levels`, gene 0 fastest; gene i of digit
// k is (k + 0.5) / levels[i]. After the last point, ask returns copies of the best told so far.
class Exhaustive final : public OptimizerBase {
 public:
  Exhaustive(size_t dims, const OptimizerOptions& o, const std::vector<int64_t>& levels)
      : OptimizerBase("exhaustive", dims, o), levels_(levels), digits_(dims, 0) {
    if (levels.size() != dims)
      throw InputError({"<optimizer>", 0, 0}, "exhaustive: " + std::to_string(levels.size()) +
                                                  " levels for " + std::to_string(dims) + " genes");
    space_size(levels);  // throws for a level < 1
  }

 protected:
  void propose(size_t k, std::vector<Genome>& out) override {
    for (size_t i = 0; i < k; ++i) {
      if (exhausted_) {
        out.push_back(best_.empty() ? point() : best_);
        continue;
      }
      out.push_back(point());
      ++emitted_;
      size_t j = 0;
      while (j < dims_ && ++digits_[j] == levels_[j]) digits_[j++] = 0;
      exhausted_ = j == dims_;
      if (exhausted_) digits_.assign(dims_, 0);
    }
  }

  void observe(const std::vector<Genome>& xs, const std::vector<double>& f, size_t) override {
    for (size_t i = 0; i < xs.size(); ++i)
      if (best_.empty() || f[i] < best_f_) {
        best_ = xs[i];
        best_f_ = f[i];
      }
  }

  json save_state() const override {
    return json{{"digits", digits_}, {"exhausted", exhausted_}, {"emitted", emitted_},
                {"best", best_},     {"best_f", best_f_},       {"levels", levels_}};
  }
  void load_state(const json& j) override {
    require_state(j.contains("levels") && j["levels"] == json(levels_),
                  "saved with other exhaustive levels");
    require_state(j.contains("digits") && j["digits"].is_array() && j["digits"].size() == dims_,
                  "bad 'digits'");
    std::vector<int64_t> digits;
    for (size_t i = 0; i < dims_; ++i) {
      const json& d = j["digits"][i];
      require_state(d.is_number_integer() && d.get<int64_t>() >= 0 && d.get<int64_t>() < levels_[i],
                    "bad 'digits'");
      digits.push_back(d.get<int64_t>());
    }
    require_state(j.contains("exhausted") && j["exhausted"].is_boolean() && j.contains("emitted") &&
                      j["emitted"].is_number_integer() && j.contains("best_f") &&
                      j["best_f"].is_number(),
                  "bad exhaustive state");
    Genome best = json_vector(j, "best");
    require_state(best.empty() || best.size() == dims_, "'best' has the wrong size");
    digits_ = digits;
    exhausted_ = j["exhausted"].get<bool>();
    emitted_ = j["emitted"].get<int64_t>();
    best_ = best;
    best_f_ = j["best_f"].get<double>();
  }

 private:
  Genome point() const {
    Genome g(dims_);
    for (size_t i = 0; i < dims_; ++i)
      g[i] = clip_gene((static_cast<double>(digits_[i]) + 0.5) / static_cast<double>(levels_[i]));
    return g;
  }

  std::vector<int64_t> levels_;
  std::vector<int64_t> digits_;  // the next point; gene 0 is the fastest digit
  bool exhausted_ = false;
  int64_t emitted_ = 0;  // points of the space handed out
  Genome best_;
  double best_f_ = kInfeasible;
};

}  // namespace

std::unique_ptr<Optimizer> make_sa(size_t dims, const OptimizerOptions& o) {
  return std::make_unique<SimulatedAnnealing>(dims, o);
}
std::unique_ptr<Optimizer> make_oneplusone(size_t dims, const OptimizerOptions& o) {
  return std::make_unique<OnePlusOne>(dims, o);
}
std::unique_ptr<Optimizer> make_exhaustive(size_t dims, const OptimizerOptions& o,
                                           const std::vector<int64_t>& levels) {
  return std::make_unique<Exhaustive>(dims, o, levels);
}

}  // namespace sparsemap::search::detail
