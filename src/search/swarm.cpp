// Population searches without generations: differential evolution (DE/rand/1/bin) and particle
// swarm optimisation, both asynchronous (steady state), so any batch size is deterministic.
#include <algorithm>
#include <cmath>

#include "optimizer_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::search::detail {
namespace {

using nlohmann::json;

size_t clamp_size(size_t v, size_t lo, size_t hi) { return std::min(hi, std::max(lo, v)); }

// Role of an asked candidate: kInit (fills the population) or the index it competes with.
constexpr int64_t kInit = -1;

// DE/rand/1/bin, steady state. Population NP (OptimizerOptions::population, default
// clamp(5 dims, 10, 50), at least 4). The first NP candidates told (seeds, then uniform points)
// form the population; until it is full, asked candidates are uniform points. Then targets i
// cycle 0, 1, ..., NP - 1 across asks; the trial for target i, with r1, r2, r3 distinct
// indices other than i drawn uniformly, is
//   v = x_r1 + F (x_r2 - x_r3),  u_j = v_j if (U(0,1) < CR or j == j_rand) else x_i,j,
// reflected into [0, 1), F = 0.5, CR = 0.9. A told trial replaces its target when f <= f_i
// (immediately: later trials of the same ask were built from the population at the ask).
// Extra uniform candidates told to a full population replace its worst member when better.
class DifferentialEvolution final : public OptimizerBase {
 public:
  DifferentialEvolution(size_t dims, const OptimizerOptions& o)
      : OptimizerBase("de", dims, o),
        size_(std::max<size_t>(4, o.population ? o.population : clamp_size(5 * dims, 10, 50))) {}

 protected:
  void propose(size_t k, std::vector<Genome>& out) override {
    roles_.clear();
    for (size_t n = 0; n < k; ++n) {
      if (pop_.size() < size_) {  // the population is still being filled: uniform points
        out.push_back(random_genome(dims_, rng_));
        roles_.push_back(kInit);
        continue;
      }
      const size_t i = cursor_;
      cursor_ = (cursor_ + 1) % size_;
      size_t r[3];
      for (int m = 0; m < 3; ++m) {
        do {
          r[m] = uniform_index(rng_, size_);
        } while (r[m] == i || (m > 0 && r[m] == r[0]) || (m > 1 && r[m] == r[1]));
      }
      const size_t j_rand = uniform_index(rng_, dims_);
      Genome u = pop_[i].x;
      for (size_t j = 0; j < dims_; ++j)
        if (uniform01(rng_) < kCr || j == j_rand)
          u[j] = reflect_gene(pop_[r[0]].x[j] + kF * (pop_[r[1]].x[j] - pop_[r[2]].x[j]));
      out.push_back(std::move(u));
      roles_.push_back(static_cast<int64_t>(i));
    }
  }

  void observe(const std::vector<Genome>& xs, const std::vector<double>& f,
               size_t n_seeds) override {
    for (size_t n = 0; n < xs.size(); ++n) {
      const int64_t role = n < n_seeds ? kInit : roles_[n - n_seeds];
      if (role == kInit) {
        if (pop_.size() < size_) {
          pop_.push_back({xs[n], f[n]});
        } else {
          size_t worst = 0;
          for (size_t i = 1; i < pop_.size(); ++i)
            if (pop_[i].f > pop_[worst].f) worst = i;
          if (f[n] < pop_[worst].f) pop_[worst] = {xs[n], f[n]};
        }
      } else if (f[n] <= pop_[static_cast<size_t>(role)].f) {
        pop_[static_cast<size_t>(role)] = {xs[n], f[n]};
      }
    }
    roles_.clear();
  }

  json save_state() const override {
    return json{{"population", scored_to_json(pop_)}, {"cursor", cursor_}};
  }
  void load_state(const json& j) override {
    std::vector<Scored> pop = scored_from_json(j, "population", dims_);
    require_state(pop.size() <= size_, "the population is larger than the options allow");
    require_state(j.contains("cursor") && j["cursor"].is_number_integer() &&
                      j["cursor"].get<int64_t>() >= 0 && j["cursor"].get<size_t>() < size_,
                  "bad 'cursor'");
    pop_ = std::move(pop);
    cursor_ = j["cursor"].get<size_t>();
  }

 private:
  static constexpr double kF = 0.5;
  static constexpr double kCr = 0.9;
  size_t size_;
  std::vector<Scored> pop_;
  size_t cursor_ = 0;
  std::vector<int64_t> roles_;  // of the non-seed candidates of the last ask
};

// PSO with the constriction coefficients of Clerc and Kennedy (w = 0.7298, c1 = c2 = 1.49618),
// asynchronous: particles move one at a time, cycling 0, 1, ..., S - 1 across asks, each against
// its own best and the swarm's best at the moment it moves:
//   v = w v + c1 U (p_i - x) + c2 U' (g - x)  (U, U' uniform per gene),  |v_j| <= 0.25,
//   x = x + v, reflected into [0, 1) (the reflected velocity component changes sign).
// Swarm size S = OptimizerOptions::population, default clamp(2 dims + 10, 10, 40). The first S
// candidates told (seeds, then uniform points) become the particles, with velocities uniform in
// [-0.1, 0.1) drawn when they join; extra uniform points only compete for the swarm's best.
class ParticleSwarm final : public OptimizerBase {
 public:
  ParticleSwarm(size_t dims, const OptimizerOptions& o)
      : OptimizerBase("pso", dims, o),
        size_(
            std::max<size_t>(2, o.population ? o.population : clamp_size(2 * dims + 10, 10, 40))) {}

 protected:
  void propose(size_t k, std::vector<Genome>& out) override {
    roles_.clear();
    for (size_t n = 0; n < k; ++n) {
      if (particles_.size() < size_) {
        out.push_back(random_genome(dims_, rng_));
        roles_.push_back(kInit);
        continue;
      }
      const size_t p = cursor_;
      cursor_ = (cursor_ + 1) % size_;
      Particle& q = particles_[p];
      for (size_t j = 0; j < dims_; ++j) {
        double v = kW * q.v[j] + kC * uniform01(rng_) * (q.best[j] - q.x[j]) +
                   kC * uniform01(rng_) * (best_.x[j] - q.x[j]);
        v = std::min(kVmax, std::max(-kVmax, v));
        double x = q.x[j] + v;
        if (x < 0.0 || x > kGeneMax) v = -v;
        q.x[j] = reflect_gene(x);
        q.v[j] = v;
      }
      out.push_back(q.x);
      roles_.push_back(static_cast<int64_t>(p));
    }
  }

  void observe(const std::vector<Genome>& xs, const std::vector<double>& f,
               size_t n_seeds) override {
    for (size_t n = 0; n < xs.size(); ++n) {
      const int64_t role = n < n_seeds ? kInit : roles_[n - n_seeds];
      if (role == kInit && particles_.size() < size_) {
        Particle q{xs[n], Genome(dims_), xs[n], f[n]};
        for (double& v : q.v) v = (uniform01(rng_) - 0.5) * 0.2;
        particles_.push_back(std::move(q));
      } else if (role != kInit) {
        Particle& q = particles_[static_cast<size_t>(role)];
        if (f[n] < q.best_f) {
          q.best = xs[n];
          q.best_f = f[n];
        }
      }
      if (best_.x.empty() || f[n] < best_.f) best_ = {xs[n], f[n]};
    }
    roles_.clear();
  }

  json save_state() const override {
    json ps = json::array();
    for (const Particle& q : particles_)
      ps.push_back(json{{"x", q.x}, {"v", q.v}, {"best", q.best}, {"best_f", q.best_f}});
    return json{{"particles", ps}, {"best", best_.x}, {"best_f", best_.f}, {"cursor", cursor_}};
  }
  void load_state(const json& j) override {
    require_state(
        j.contains("particles") && j["particles"].is_array() && j["particles"].size() <= size_,
        "bad 'particles'");
    std::vector<Particle> ps;
    for (const json& e : j["particles"]) {
      require_state(e.is_object() && e.contains("best_f") && e["best_f"].is_number(),
                    "a particle without 'best_f'");
      ps.push_back({json_vector(e, "x", dims_), json_vector(e, "v", dims_),
                    json_vector(e, "best", dims_), e["best_f"].get<double>()});
    }
    Genome best = json_vector(j, "best");
    require_state(best.empty() ? ps.empty() : best.size() == dims_, "'best' has the wrong size");
    require_state(j.contains("best_f") && j["best_f"].is_number(), "no 'best_f'");
    require_state(j.contains("cursor") && j["cursor"].is_number_integer() &&
                      j["cursor"].get<int64_t>() >= 0 && j["cursor"].get<size_t>() < size_,
                  "bad 'cursor'");
    particles_ = std::move(ps);
    best_ = {best, j["best_f"].get<double>()};
    cursor_ = j["cursor"].get<size_t>();
  }

 private:
  struct Particle {
    Genome x, v, best;
    double best_f;
  };
  static constexpr double kW = 0.7298;
  static constexpr double kC = 1.49618;
  static constexpr double kVmax = 0.25;
  size_t size_;
  std::vector<Particle> particles_;
  Scored best_;  // the swarm's best (x empty before the first tell)
  size_t cursor_ = 0;
  std::vector<int64_t> roles_;
};

}  // namespace

std::unique_ptr<Optimizer> make_de(size_t dims, const OptimizerOptions& o) {
  return std::make_unique<DifferentialEvolution>(dims, o);
}
std::unique_ptr<Optimizer> make_pso(size_t dims, const OptimizerOptions& o) {
  return std::make_unique<ParticleSwarm>(dims, o);
}

}  // namespace sparsemap::search::detail
