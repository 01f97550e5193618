// Algorithm names, traits, updater configuration checks and defaults.
#include "sparsemap/ml/prune/algorithm.h"

#include <algorithm>
#include <cmath>

#include "sparsemap/error.h"
#include "text_util.h"

namespace sparsemap::ml::prune {

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Named {
  Algorithm a;
  const char* name;
};
constexpr Named kNames[] = {
    {Algorithm::NoPrune, "no_prune"},
    {Algorithm::Magnitude, "magnitude"},
    {Algorithm::Random, "random"},
    {Algorithm::Saliency, "saliency"},
    {Algorithm::MagnitudeSte, "magnitude_ste"},
    {Algorithm::RandomSte, "random_ste"},
    {Algorithm::GlobalMagnitude, "global_magnitude"},
    {Algorithm::GlobalSaliency, "global_saliency"},
    {Algorithm::StaticSparse, "static_sparse"},
    {Algorithm::Set, "set"},
    {Algorithm::Rigl, "rigl"},
    {Algorithm::SrSte, "sr_ste"},
};

}  // namespace

const char* algorithm_name(Algorithm a) {
  for (const Named& n : kNames)
    if (n.a == a) return n.name;
  return "no_prune";
}

Algorithm parse_algorithm(const std::string& text) {
  const std::string t = canonical_name(text);
  if (t == "dense" || t == "none") return Algorithm::NoPrune;
  if (t == "srste") return Algorithm::SrSte;
  if (t == "snip") return Algorithm::Saliency;
  for (const Named& n : kNames)
    if (t == n.name) return n.a;
  std::string names;
  for (const Named& n : kNames) names += std::string(names.empty() ? "" : ", ") + n.name;
  throw InputError({"<flag --algo>", 0, 0},
                   "unknown algorithm '" + text + "'; expected one of: " + names + " (or dense)");
}

std::vector<Algorithm> all_algorithms() {
  std::vector<Algorithm> out;
  for (const Named& n : kNames) out.push_back(n.a);
  return out;
}

bool is_ste(Algorithm a) {
  return a == Algorithm::MagnitudeSte || a == Algorithm::RandomSte || a == Algorithm::SrSte;
}
bool is_global(Algorithm a) {
  return a == Algorithm::GlobalMagnitude || a == Algorithm::GlobalSaliency;
}
bool is_dynamic(Algorithm a) { return a == Algorithm::Set || a == Algorithm::Rigl; }
bool needs_gradients(Algorithm a) {
  return a == Algorithm::Saliency || a == Algorithm::GlobalSaliency || a == Algorithm::Rigl;
}

void UpdaterConfig::validate() const {
  const SourceLocation where{"<updater>", 0, 0};
  if (!(sparsity >= 0.0 && sparsity <= 1.0))
    throw InputError(where, "sparsity must be in [0, 1], got " + std::to_string(sparsity));
  if ((is_global(algorithm) || is_dynamic(algorithm)) && type.kind != SparsityKind::Unstructured)
    throw InputError(where, std::string(algorithm_name(algorithm)) +
                                " supports unstructured sparsity only, got " + type.str());
  if (!(drop_fraction >= 0.0 && drop_fraction <= 1.0))
    throw InputError(where, "the drop fraction must be in [0, 1]");
  if (!(srste_decay >= 0.0)) throw InputError(where, "the SR-STE decay must be >= 0");
  schedule.validate();
}

double UpdaterConfig::drop_fraction_at(int64_t step) const {
  if (!cosine_drop || schedule.end_step <= 0) return drop_fraction;
  const double t = std::clamp(static_cast<double>(step) / schedule.end_step, 0.0, 1.0);
  return drop_fraction / 2.0 * (1.0 + std::cos(kPi * t));
}

UpdaterConfig default_config(Algorithm a, double sparsity, int64_t total_steps) {
  UpdaterConfig c;
  c.algorithm = a;
  c.sparsity = sparsity;
  const int64_t t = std::max<int64_t>(total_steps, 1);
  switch (a) {
    case Algorithm::NoPrune:
      c.schedule = Schedule::no_update();
      break;
    case Algorithm::StaticSparse:
      c.schedule = Schedule::no_update();
      c.mask_gradients = true;
      break;
    case Algorithm::Set:
    case Algorithm::Rigl: {
      const int64_t freq = std::clamp<int64_t>(t / 20, 2, 100);  // >= 2: never skip every step
      c.schedule = Schedule::periodic(freq, 0, std::max<int64_t>(freq, (t * 3 / 4) / freq * freq));
      c.mask_gradients = true;
      c.skip_step_on_update = true;
      c.grow = a == Algorithm::Rigl ? GrowKind::Gradient : GrowKind::Random;
      break;
    }
    default: {
      // Gradual: 10% .. 75% of training, about 21 updates.
      const int64_t freq = std::max<int64_t>(1, (t * 65 / 100) / 20);
      const int64_t start = (t / 10) / freq * freq;
      const int64_t end = std::max(start, (t * 3 / 4) / freq * freq);
      c.schedule = Schedule::polynomial(freq, start, end, 3);
      break;
    }
  }
  return c;
}

}  // namespace sparsemap::ml::prune
