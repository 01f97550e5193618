// The optimiser factory, the shared helpers of optimizer_internal.h, the generic genetic
// operators and random search.
#include "sparsemap/search/optimizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "optimizer_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::search {

void Optimizer::ask_each(size_t n, std::vector<Genome>& out,
                         const std::function<void(size_t)>& made) {
  out = ask(n);
  for (size_t i = 0; i < out.size(); ++i) made(i);
}

namespace detail {

using nlohmann::json;

// Box-Muller: sqrt(-2 ln u1) cos(2 pi u2), u1 in (0, 1].
double gaussian(Rng& rng) {
  const double u1 = 1.0 - uniform01(rng);
  const double u2 = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

double reflect_gene(double x) {
  if (!std::isfinite(x)) return clip_gene(x);
  double r = std::fmod(std::fabs(x), 2.0);  // |x| mod 2 in [0, 2)
  if (r > 1.0) r = 2.0 - r;
  return clip_gene(r);
}

Genome random_genome(size_t dims, Rng& rng) {
  Genome g(dims);
  for (double& v : g) v = uniform01(rng);
  return g;
}

double sanitize_fitness(double f) {
  if (std::isnan(f) || !(f <= kInfeasible)) return kInfeasible;
  if (f < -kInfeasible) return -kInfeasible;
  return f;
}

std::string rng_to_string(const Rng& rng) {
  std::ostringstream out;
  out << rng;
  return out.str();
}

void rng_from_string(Rng& rng, const std::string& text) {
  std::istringstream in(text);
  Rng r;
  in >> r;
  require_state(!in.fail(), "the random engine state is not a saved mt19937_64");
  rng = r;
}

void require_state(bool cond, const std::string& what) {
  if (!cond) throw InputError({"<checkpoint>", 0, 0}, "bad optimiser state: " + what);
}

std::vector<double> json_vector(const json& j, const char* key, size_t size) {
  require_state(j.is_object() && j.contains(key) && j[key].is_array(),
                std::string("'") + key + "' is not an array");
  const json& a = j[key];
  require_state(size == 0 || a.size() == size, std::string("'") + key + "' has " +
                                                   std::to_string(a.size()) +
                                                   " entries, expected " + std::to_string(size));
  std::vector<double> v;
  v.reserve(a.size());
  for (const json& e : a) {
    require_state(e.is_number(), std::string("'") + key + "' holds a non-number");
    v.push_back(e.get<double>());
  }
  return v;
}

namespace {

// A genome read back from a checkpoint: every gene in [0, 1], as ask() hands them out (a gene
// of 1e300 would otherwise reach the decoders' float-to-integer conversions).
Genome checked_genome(Genome g, const char* key) {
  for (double x : g)
    require_state(x >= 0.0 && x <= 1.0, std::string("'") + key + "' holds a gene outside [0, 1]");
  return g;
}

}  // namespace

std::vector<Genome> json_genomes(const json& j, const char* key, size_t dims) {
  require_state(j.is_object() && j.contains(key) && j[key].is_array(),
                std::string("'") + key + "' is not an array");
  std::vector<Genome> out;
  for (const json& e : j[key]) out.push_back(json_vector(json{{"g", e}}, "g", dims));
  return out;
}

void sort_scored(std::vector<Scored>& v) {
  std::stable_sort(v.begin(), v.end(), [](const Scored& a, const Scored& b) { return a.f < b.f; });
}

json scored_to_json(const std::vector<Scored>& v) {
  json a = json::array();
  for (const Scored& s : v) a.push_back(json{{"x", s.x}, {"f", s.f}});
  return a;
}

std::vector<Scored> scored_from_json(const json& j, const char* key, size_t dims) {
  require_state(j.is_object() && j.contains(key) && j[key].is_array(),
                std::string("'") + key + "' is not an array");
  std::vector<Scored> out;
  for (const json& e : j[key]) {
    require_state(e.is_object() && e.contains("f") && e["f"].is_number(),
                  std::string("'") + key + "' holds an entry without a fitness");
    out.push_back({checked_genome(json_vector(e, "x", dims), key), e["f"].get<double>()});
  }
  return out;
}

OptimizerBase::OptimizerBase(std::string name, size_t dims, const OptimizerOptions& options,
                             const std::vector<Genome>& extra_seeds)
    : dims_(dims), rng_(options.seed), budget_(options.budget), name_(std::move(name)) {
  if (dims == 0) throw InputError({"<optimizer>", 0, 0}, "an optimiser needs at least one gene");
  auto add = [&](const std::vector<Genome>& from, const char* what) {
    for (size_t i = 0; i < from.size(); ++i) {
      if (from[i].size() != dims)
        throw InputError({"<optimizer>", 0, 0}, std::string(what) + " " + std::to_string(i) +
                                                    " has " + std::to_string(from[i].size()) +
                                                    " genes, expected " + std::to_string(dims));
      Genome g = from[i];
      for (double& v : g) v = clip_gene(v);
      seeds_.push_back(std::move(g));
    }
  };
  add(options.seeds, "warm-start seed");
  add(extra_seeds, "operator seed");
}

std::vector<Genome> OptimizerBase::ask(size_t n) {
  std::vector<Genome> out;
  ask_each(n, out, [](size_t) {});
  return out;
}

void OptimizerBase::ask_each(size_t n, std::vector<Genome>& out,
                             const std::function<void(size_t)>& made) {
  SPARSEMAP_ASSERT(n >= 1);
  SPARSEMAP_ASSERT(asked_ == 0);  // ask and tell alternate
  out.clear();
  out.reserve(n);
  while (out.size() < n && next_seed_ < seeds_.size()) {
    out.push_back(seeds_[next_seed_++]);
    made(out.size() - 1);
  }
  asked_seeds_ = out.size();
  propose_each(n - out.size(), out, made);
  SPARSEMAP_ASSERT(out.size() == n);
  asked_ = n;
}

void OptimizerBase::propose_each(size_t k, std::vector<Genome>& out,
                                 const std::function<void(size_t)>& made) {
  const size_t first = out.size();
  propose(k, out);
  for (size_t i = first; i < out.size(); ++i) made(i);
}

void OptimizerBase::tell(const std::vector<Genome>& xs, const std::vector<double>& fitness) {
  SPARSEMAP_ASSERT(asked_ != 0 && xs.size() == asked_ && fitness.size() == asked_);
  std::vector<double> f(fitness.size());
  for (size_t i = 0; i < f.size(); ++i) f[i] = sanitize_fitness(fitness[i]);
  const size_t n_seeds = asked_seeds_;
  asked_ = 0;
  asked_seeds_ = 0;
  told_ += static_cast<int64_t>(xs.size());
  observe(xs, f, n_seeds);
}

json OptimizerBase::save() const {
  SPARSEMAP_ASSERT(asked_ == 0);  // between a tell and the next ask
  return json{{"name", name_},           {"dims", dims_},          {"rng", rng_to_string(rng_)},
              {"next_seed", next_seed_}, {"seeds", seeds_.size()}, {"told", told_},
              {"state", save_state()}};
}

void OptimizerBase::load(const json& j) {
  require_state(j.is_object(), "not an object");
  const std::string saved_name =
      j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : "?";
  require_state(saved_name == name_,
                "saved by optimiser '" + saved_name + "', not '" + name_ + "'");
  require_state(
      j.contains("dims") && j["dims"].is_number_integer() && j["dims"].get<size_t>() == dims_,
      "saved with another number of genes");
  require_state(j.contains("seeds") && j["seeds"].is_number_integer() &&
                    j["seeds"].get<size_t>() == seeds_.size(),
                "saved with another number of warm-start seeds");
  require_state(j.contains("next_seed") && j["next_seed"].is_number_integer() &&
                    j["next_seed"].get<int64_t>() >= 0 &&
                    j["next_seed"].get<size_t>() <= seeds_.size(),
                "bad 'next_seed'");
  require_state(
      j.contains("told") && j["told"].is_number_integer() && j["told"].get<int64_t>() >= 0,
      "bad 'told'");
  require_state(j.contains("rng") && j["rng"].is_string(), "no 'rng'");
  require_state(j.contains("state") && j["state"].is_object(), "no 'state'");
  Rng rng;
  rng_from_string(rng, j["rng"].get<std::string>());
  load_state(j["state"]);
  rng_ = rng;
  next_seed_ = j["next_seed"].get<size_t>();
  told_ = j["told"].get<int64_t>();
  asked_ = 0;
  asked_seeds_ = 0;
}

namespace {

// Random search: seeds, then independent uniform points of the unit cube.
class RandomSearch final : public OptimizerBase {
 public:
  RandomSearch(size_t dims, const OptimizerOptions& o) : OptimizerBase("random", dims, o) {}

 protected:
  void propose(size_t k, std::vector<Genome>& out) override {
    for (size_t i = 0; i < k; ++i) out.push_back(random_genome(dims_, rng_));
  }
  void observe(const std::vector<Genome>&, const std::vector<double>&, size_t) override {}
  json save_state() const override { return json::object(); }
  void load_state(const json&) override {}
};

}  // namespace

std::unique_ptr<Optimizer> make_random(size_t dims, const OptimizerOptions& o) {
  return std::make_unique<RandomSearch>(dims, o);
}

}  // namespace detail

// Uniform crossover: each gene from `a` or `b` with probability 1/2.
Genome GeneticOperators::crossover(const Genome& a, const Genome& b, Rng& rng) const {
  SPARSEMAP_ASSERT(a.size() == b.size());
  Genome c(a.size());
  for (size_t i = 0; i < a.size(); ++i) c[i] = detail::uniform01(rng) < 0.5 ? a[i] : b[i];
  return c;
}

// Per-gene resampling: each gene, with probability `rate`, gets a fresh uniform value.
void GeneticOperators::mutate(Genome& g, double rate, Rng& rng) const {
  for (double& v : g)
    if (detail::uniform01(rng) < rate) v = detail::uniform01(rng);
}

const std::vector<std::string>& optimizer_names() {
  static const std::vector<std::string> names = {"ga",    "random",     "sa", "de",        "pso",
                                                 "cmaes", "oneplusone", "bo", "exhaustive"};
  return names;
}

int64_t space_size(const std::vector<int64_t>& levels) {
  int64_t n = 1;
  for (size_t i = 0; i < levels.size(); ++i) {
    if (levels[i] < 1)
      throw InputError({"<optimizer>", 0, 0}, "exhaustive: gene " + std::to_string(i) + " has " +
                                                  std::to_string(levels[i]) +
                                                  " levels, expected at least 1");
    if (n > std::numeric_limits<int64_t>::max() / levels[i]) n = -1;
    if (n >= 0) n *= levels[i];
  }
  return n;
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& name, size_t dims,
                                          const OptimizerOptions& options,
                                          const std::vector<int64_t>& levels) {
  if (name == "ga") return detail::make_ga(dims, options);
  if (name == "random") return detail::make_random(dims, options);
  if (name == "sa") return detail::make_sa(dims, options);
  if (name == "de") return detail::make_de(dims, options);
  if (name == "pso") return detail::make_pso(dims, options);
  if (name == "cmaes") return detail::make_cmaes(dims, options);
  if (name == "oneplusone") return detail::make_oneplusone(dims, options);
  if (name == "bo") return detail::make_bo(dims, options);
  if (name == "exhaustive") return detail::make_exhaustive(dims, options, levels);
  std::string known;
  for (const std::string& n : optimizer_names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError({"<flag --algo>", 0, 0},
                   "unknown optimiser '" + name + "', expected one of: " + known);
}

}  // namespace sparsemap::search
