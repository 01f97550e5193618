// N:M recipes: names, validation, the step plan (phases, beta(t), structure decay) and FLOPs.
#include "sparsemap/ml/train/recipe.h"

#include <algorithm>
#include <cmath>

#include "sparsemap/error.h"

namespace sparsemap::ml::train {

namespace {

std::string canonical(std::string s) {
  for (char& c : s) {
    if (c == '_') c = '-';
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

}  // namespace

const char* recipe_name(RecipeKind k) {
  switch (k) {
    case RecipeKind::Dense:
      return "dense";
    case RecipeKind::Ste:
      return "ste";
    case RecipeKind::SrSte:
      return "srste";
    case RecipeKind::MdgfLinear:
      return "mdgf-linear";
    case RecipeKind::MdgfExp:
      return "mdgf-exp";
    case RecipeKind::SdgfSparsify:
      return "sdgf-sparsify";
    case RecipeKind::SdgfFine:
      return "sdgf-fine";
  }
  return "dense";
}

std::vector<RecipeKind> all_recipes() {
  return {RecipeKind::Dense,      RecipeKind::Ste,     RecipeKind::SrSte,
          RecipeKind::MdgfLinear, RecipeKind::MdgfExp, RecipeKind::SdgfSparsify,
          RecipeKind::SdgfFine};
}

RecipeKind parse_recipe(const std::string& text) {
  const std::string c = canonical(text);
  if (c == "sr-ste") return RecipeKind::SrSte;
  for (RecipeKind k : all_recipes())
    if (c == recipe_name(k)) return k;
  throw InputError({"<flag --recipe>", 0, 0},
                   "unknown recipe '" + text +
                       "'; expected dense, ste, srste, mdgf-linear, mdgf-exp, sdgf-sparsify or "
                       "sdgf-fine");
}

NmRatio parse_nm(const std::string& text, const std::string& flag) {
  const size_t colon = text.find(':');
  auto bad = [&] {
    return InputError({flag, 0, 0}, quote_input(text) +
                                        ": expected N:M with 1 <= N <= M <= 255 (e.g. 2:4, 1:16)");
  };
  if (colon == std::string::npos || colon == 0 || colon + 1 >= text.size() || text.size() > 9)
    throw bad();
  const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
  if (a.find_first_not_of("0123456789") != std::string::npos ||
      b.find_first_not_of("0123456789") != std::string::npos)
    throw bad();
  const int n = std::stoi(a), m = std::stoi(b);
  if (n < 1 || m > 255 || n > m) throw bad();
  return {n, m};
}

void Recipe::validate() const {
  auto fail = [](const std::string& why) { throw InputError({"<recipe>", 0, 0}, why); };
  if (!(dense_fraction >= 0 && dense_fraction <= 1 && fine_fraction >= 0 && fine_fraction <= 1))
    fail("phase fractions must be in [0, 1]");
  if (dense_fraction + fine_fraction > 1 + 1e-12)
    fail("the dense and fine-tune fractions sum above 1");
  if (!(srste_lambda >= 0)) fail("lambda_W must be >= 0");
  if (!(alpha == alpha) || alpha > 1e6) fail("alpha must be a number <= 1e6");
  if (nm.n < 1 || nm.m > 255 || nm.n > nm.m) fail("N:M needs 1 <= N <= M <= 255");
  for (const NmRatio& r : sequence)
    if (r.n < 1 || r.m > 255 || r.n > r.m)
      fail("every ratio of the sequence needs 1 <= N <= M <= 255");
  if (!sequence.empty() && !(sequence.back() == nm))
    fail("the structure-decay sequence must end at " + nm.str());
}

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::Dense:
      return "dense";
    case Phase::Sparse:
      return "sparse";
    case Phase::Fine:
      return "fine-tune";
  }
  return "dense";
}

std::vector<NmRatio> sparsify_sequence(NmRatio t) {
  std::vector<NmRatio> s = {{t.m, t.m}};
  auto push = [&](int n) {
    if (n > t.n && n < s.back().n) s.push_back({n, t.m});
  };
  push(t.m - 1);
  for (int n = t.m / 2; n > t.n; n /= 2) push(n);
  if (!(s.back() == t)) s.push_back(t);
  return s;
}

std::vector<NmRatio> fine_sequence(NmRatio t) {
  std::vector<NmRatio> s;
  for (int k : {8, 4, 2})
    if (t.m * k <= 255) s.push_back({t.n * k, t.m * k});
  s.push_back(t);
  return s;
}

Plan::Plan(Recipe recipe, int64_t total_steps) : recipe_(std::move(recipe)), total_(total_steps) {
  recipe_.validate();
  if (total_ < 1) throw InputError({"<recipe>", 0, 0}, "a run needs at least one step");
  const double t = static_cast<double>(total_);
  sparse_start_ =
      std::clamp<int64_t>(static_cast<int64_t>(std::floor(recipe_.dense_fraction * t)), 0, total_);
  fine_start_ = std::clamp<int64_t>(
      static_cast<int64_t>(std::floor((1.0 - recipe_.fine_fraction) * t + 1e-9)), sparse_start_,
      total_);
  const double sparse_steps =
      static_cast<double>(std::max<int64_t>(1, fine_start_ - sparse_start_));
  alpha_ = recipe_.alpha;
  if (alpha_ <= 0)
    alpha_ = recipe_.kind == RecipeKind::MdgfExp ? 5.0 / (0.75 * sparse_steps)
                                                 : 1.0 / (0.75 * sparse_steps);
  if (!recipe_.sequence.empty())
    sequence_ = recipe_.sequence;
  else if (recipe_.kind == RecipeKind::SdgfSparsify)
    sequence_ = sparsify_sequence(recipe_.nm);
  else if (recipe_.kind == RecipeKind::SdgfFine)
    sequence_ = fine_sequence(recipe_.nm);
  else
    sequence_ = {recipe_.nm};
}

Phase Plan::phase(int64_t step) const {
  if (step < sparse_start_) return Phase::Dense;
  return step < fine_start_ ? Phase::Sparse : Phase::Fine;
}

double Plan::beta(int64_t step) const {
  const RecipeKind k = recipe_.kind;
  if (k != RecipeKind::MdgfLinear && k != RecipeKind::MdgfExp) return 0.0;
  const Phase p = phase(step);
  if (p == Phase::Dense) return 1.0;
  if (p == Phase::Fine) return 0.0;
  const double t = static_cast<double>(step - sparse_start_);
  return k == RecipeKind::MdgfLinear ? std::max(0.0, 1.0 - alpha_ * t) : std::exp(-alpha_ * t);
}

NmRatio Plan::ratio_at(int64_t step) const {
  const Phase p = phase(step);
  if (p == Phase::Dense) return {recipe_.nm.m, recipe_.nm.m};
  if (p == Phase::Fine) return recipe_.nm;
  const int64_t span = fine_start_ - sparse_start_;
  const int64_t stages = static_cast<int64_t>(sequence_.size());
  const int64_t i =
      std::min(stages - 1, (step - sparse_start_) * stages / std::max<int64_t>(span, 1));
  return sequence_[static_cast<size_t>(i)];
}

double step_flops(const Plan& plan, int64_t step, double pruned_macs, double dense_macs,
                  int64_t batch) {
  double d_fwd = 1.0, d_wgt = 1.0;
  if (plan.recipe().sparse()) {
    const Phase p = plan.phase(step);
    const NmRatio r = plan.ratio_at(step);
    const double density = static_cast<double>(r.n) / r.m;
    if (p == Phase::Sparse) {
      d_fwd = plan.beta(step) > 0 ? 1.0 : density;
    } else if (p == Phase::Fine) {
      d_fwd = density;
      d_wgt = density;
    }
  }
  const double b = static_cast<double>(batch);
  return 2.0 * b * (3.0 * dense_macs + (2.0 * d_fwd + d_wgt) * pruned_macs);
}

double training_flops(const Plan& plan, double pruned_macs, double dense_macs, int64_t batch) {
  double sum = 0;
  for (int64_t s = 0; s < plan.total_steps(); ++s)
    sum += step_flops(plan, s, pruned_macs, dense_macs, batch);
  return sum;
}

}  // namespace sparsemap::ml::train
