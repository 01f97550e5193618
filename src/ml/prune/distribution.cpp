// Uniform and ERK sparsity distributions, the custom map and the default filter.
#include "sparsemap/ml/prune/distribution.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "sparsemap/error.h"
#include "text_util.h"

namespace sparsemap::ml::prune {

namespace {

[[noreturn]] void fail(const std::string& message) {
  throw InputError({"<distribution>", 0, 0}, message);
}

bool in_unit(double s) { return s >= 0.0 && s <= 1.0; }

}  // namespace

int64_t ParamShape::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool default_prunable(const ParamShape& p) {
  if (p.shape.size() < 2) return false;
  for (const char* word : {"bias", "norm", "bn"})
    if (p.name.find(word) != std::string::npos) return false;
  return true;
}

std::vector<std::optional<double>> layer_sparsities(const std::vector<ParamShape>& params,
                                                    double sparsity, const Distribution& dist) {
  if (!in_unit(sparsity)) fail("sparsity must be in [0, 1], got " + std::to_string(sparsity));
  for (const auto& [name, s] : dist.custom) {
    if (!in_unit(s)) fail("custom sparsity of '" + name + "' must be in [0, 1]");
    if (std::none_of(params.begin(), params.end(),
                     [&](const ParamShape& p) { return p.name == name; }))
      fail("custom sparsity names '" + name + "', which is no parameter of the model");
  }
  const size_t n = params.size();
  std::vector<std::optional<double>> out(n);
  std::vector<size_t> ruled;  // pruned by the uniform/ERK rule (not custom)
  for (size_t i = 0; i < n; ++i) {
    const ParamShape& p = params[i];
    if (auto it = dist.custom.find(p.name); it != dist.custom.end()) {
      out[i] = it->second;
      continue;
    }
    bool prunable = default_prunable(p);
    for (const std::string& k : dist.keep_dense)
      if (!k.empty() && p.name.find(k) != std::string::npos) prunable = false;
    if (prunable) ruled.push_back(i);
  }
  if (dist.kind == DistributionKind::Uniform) {
    for (size_t i : ruled) out[i] = sparsity;
    return out;
  }

  // ERK.
  if (ruled.empty()) fail("ERK needs at least one prunable parameter");
  if (!(dist.erk_power > 0.0)) fail("the ERK power must be > 0");
  std::vector<double> raw(n, 0.0);
  for (size_t i : ruled) {
    const ParamShape& p = params[i];
    double sum = 0.0;
    for (int64_t d : p.shape) sum += static_cast<double>(d);
    raw[i] = std::pow(sum / static_cast<double>(p.numel()), dist.erk_power);
  }
  std::set<size_t> dense;
  double eps = 0.0;
  while (true) {
    double divisor = 0.0, rhs = 0.0;
    for (size_t i : ruled) {
      const double np = static_cast<double>(params[i].numel());
      const double zeros = std::floor(sparsity * np);
      if (dense.count(i)) {
        rhs -= zeros;
      } else {
        rhs += np - zeros;
        divisor += raw[i] * np;
      }
    }
    if (divisor <= 0.0) break;  // every layer dense
    eps = rhs / divisor;
    double max_raw = 0.0;
    for (size_t i : ruled)
      if (!dense.count(i)) max_raw = std::max(max_raw, raw[i]);
    if (max_raw * eps <= 1.0) break;
    for (size_t i : ruled)
      if (!dense.count(i) && raw[i] == max_raw) dense.insert(i);
  }
  for (size_t i : ruled) out[i] = dense.count(i) ? 0.0 : std::clamp(1.0 - eps * raw[i], 0.0, 1.0);
  return out;
}

DistributionKind parse_distribution(const std::string& text) {
  const std::string t = canonical_name(text);
  if (t == "uniform") return DistributionKind::Uniform;
  if (t == "erk") return DistributionKind::Erk;
  throw InputError({"<flag --dist>", 0, 0}, "'" + text + "': expected uniform or erk");
}

const char* distribution_name(DistributionKind kind) {
  return kind == DistributionKind::Erk ? "erk" : "uniform";
}

std::map<std::string, double> parse_custom_map(const std::string& text) {
  const SourceLocation where{"<flag --layer-sparsity>", 0, 0};
  std::map<std::string, double> out;
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) continue;
    const size_t eq = item.rfind('=');
    double s = 0.0;
    if (eq == std::string::npos || eq == 0 || !parse_double(item.substr(eq + 1), s) || !in_unit(s))
      throw InputError(where, "'" + item + "': expected NAME=S with S in [0, 1]");
    out[item.substr(0, eq)] = s;
  }
  return out;
}

}  // namespace sparsemap::ml::prune
