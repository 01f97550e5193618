// sparse-price's pieces that are not the run: --prune, a layer's weight matrix and its Weights
// tensor, the totals and the JSON.
#include <memory>

#include "sparsemap/dse/sparse_price/run.h"
#include "sparsemap/error.h"

namespace sparsemap::dse::sparse_price {

namespace {

[[noreturn]] void bad_prune(const std::string& text) {
  throw InputError({"<flag --prune>"},
                   "expected nm:N:M, vnm:V:N:M, unstructured:S, cvse:V:S or bsr:HxW:S (S a "
                   "sparsity in [0, 1)), found '" +
                       text + "'");
}

double sparsity_of(const std::string& s, const std::string& text) {
  size_t used = 0;
  double x = -1;
  try {
    x = std::stod(s, &used);
  } catch (const std::exception&) {
    bad_prune(text);
  }
  if (used != s.size() || !(x >= 0 && x < 1)) bad_prune(text);
  return x;
}

double ratio(double num, double den) { return den > 0 ? num / den : 0; }

nlohmann::json priced_json(const Priced& p) {
  return {{"cycles", p.cycles},
          {"energy_pj", p.energy_pj},
          {"algorithmic_computes", p.algorithmic_computes},
          {"actual_computes", p.actual_computes},
          {"gated_computes", p.gated_computes},
          {"skipped_computes", p.skipped_computes}};
}

}  // namespace

PruneSpec parse_prune(const std::string& text) {
  PruneSpec p;
  p.text = text;
  const size_t colon = text.find(':');
  const std::string head = text.substr(0, colon);
  if (colon == std::string::npos) bad_prune(text);
  std::string format = text;
  if (head == "unstructured") {
    format = "csr";
    p.sparsity = sparsity_of(text.substr(colon + 1), text);
  } else if (head == "cvse" || head == "bsr") {
    const size_t last = text.rfind(':');
    if (last == colon) bad_prune(text);
    format = text.substr(0, last);
    p.sparsity = sparsity_of(text.substr(last + 1), text);
  } else if (head != "nm" && head != "vnm") {
    bad_prune(text);
  }
  try {
    p.format = sparse::parse_format(format);
  } catch (const InputError&) {
    bad_prune(text);
  }
  if ((head == "nm" || head == "vnm") && p.format.intrinsic_sparsity() < 0) bad_prune(text);
  return p;
}

int64_t weight_rows(const workload::Einsum& p) { return p.bound("G") * p.bound("M"); }
int64_t weight_cols(const workload::Einsum& p) {
  return p.bound("C") * p.bound("R") * p.bound("S");
}

workload::DensityModel weights_density(const workload::Einsum& p, const sparse::Mask& keep,
                                       const std::string& source) {
  const int64_t c = p.bound("C"), m = p.bound("M"), r = p.bound("R"), s = p.bound("S"),
                g = p.bound("G");
  if (keep.rows != weight_rows(p) || keep.cols != weight_cols(p))
    throw InputError({source}, "expected a " + std::to_string(weight_rows(p)) + " x " +
                                   std::to_string(weight_cols(p)) + " weight mask, found " +
                                   std::to_string(keep.rows) + " x " + std::to_string(keep.cols));
  std::vector<uint8_t> nz(static_cast<size_t>(c * m * r * s * g));
  size_t i = 0;  // row-major over [C, M, R, S, G]
  for (int64_t ci = 0; ci < c; ++ci)
    for (int64_t mi = 0; mi < m; ++mi)
      for (int64_t ri = 0; ri < r; ++ri)
        for (int64_t si = 0; si < s; ++si)
          for (int64_t gi = 0; gi < g; ++gi) nz[i++] = keep.at(gi * m + mi, (ci * r + ri) * s + si);
  return workload::actual_density(std::make_shared<const workload::TensorOccupancy>(
      std::vector<int64_t>{c, m, r, s, g}, std::move(nz), source));
}

double LayerRow::speedup() const {
  return found && sparse.cycles > 0 ? static_cast<double>(dense.cycles) / sparse.cycles : 0;
}
double LayerRow::energy_ratio() const {
  return found ? ratio(sparse.energy_pj, dense.energy_pj) : 0;
}
double Totals::weight_density() const {
  return weights > 0 ? static_cast<double>(weight_nonzeros) / static_cast<double>(weights) : 1;
}
double Totals::speedup() const {
  return ratio(static_cast<double>(dense.cycles), static_cast<double>(sparse.cycles));
}
double Totals::energy_ratio() const { return ratio(sparse.energy_pj, dense.energy_pj); }

nlohmann::json to_json(const Result& r) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerRow& l : r.layers) {
    nlohmann::json j = {{"name", l.name},
                        {"macs", l.macs},
                        {"weights", l.weights},
                        {"weight_nonzeros", l.weight_nonzeros},
                        {"weight_density", l.weight_density},
                        {"found", l.found},
                        {"evaluations", l.evaluations}};
    if (!l.same_as.empty()) j["same_as"] = l.same_as;
    if (!l.reason.empty()) j["reason"] = l.reason;
    if (l.found) {
      j["dense"] = priced_json(l.dense);
      j["sparse"] = priced_json(l.sparse);
      j["speedup"] = l.speedup();
      j["energy_ratio"] = l.energy_ratio();
    }
    if (l.spmm)
      j["spmm"] = {{"cols", l.spmm->cols},
                   {"dense_ms", l.spmm->dense_ms},
                   {"sparse_ms", l.spmm->sparse_ms},
                   {"speedup", l.spmm->speedup()},
                   {"max_rel_err", l.spmm->max_rel_err}};
    layers.push_back(std::move(j));
  }
  const Totals& t = r.total;
  nlohmann::json total = {{"layers", t.layers},
                          {"priced", t.priced},
                          {"weights", t.weights},
                          {"weight_nonzeros", t.weight_nonzeros},
                          {"weight_density", t.weight_density()},
                          {"dense", priced_json(t.dense)},
                          {"sparse", priced_json(t.sparse)},
                          {"speedup", t.speedup()},
                          {"energy_ratio", t.energy_ratio()}};
  if (r.options.spmm)
    total["spmm"] = {{"dense_ms", t.spmm_dense_ms},
                     {"sparse_ms", t.spmm_sparse_ms},
                     {"speedup", ratio(t.spmm_dense_ms, t.spmm_sparse_ms)}};
  nlohmann::json densities = nlohmann::json::object();
  for (const auto& [k, v] : r.densities) densities[k] = v;
  return {{"model", r.model_name},
          {"hw", r.arch_file},
          {"arch", r.arch_name},
          {"ert", r.ert_file},
          {"prune", r.prune.text},
          {"seed", r.options.seed},
          {"budget", r.options.budget},
          {"algo", r.options.algo},
          {"strict_keep", !r.options.free_keep},
          {"objective", r.options.objective.empty() ? "design" : r.options.objective},
          {"densities", densities},
          {"layers", layers},
          {"total", total}};
}

}  // namespace sparsemap::dse::sparse_price
