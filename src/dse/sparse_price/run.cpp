// sparse-price's run: load the design and model, prune each layer's seeded weights, map every
// distinct layer, price each mapping dense and sparse with the Sparseloop model, measure SpMM.
#include "sparsemap/dse/sparse_price/run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "sparsemap/dse/timeloop/network.h"
#include "sparsemap/error.h"
#include "sparsemap/io/load_model.h"
#include "sparsemap/io/timeloop.h"
#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::dse::sparse_price {

namespace {

namespace fs = std::filesystem;
namespace tl = dse::timeloop;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void check_options(const Options& o) {
  if (o.hw.empty()) throw InputError({"<flag --hw>"}, "expected a Sparseloop design (arch.yaml)");
  if (o.budget < 1 || o.budget > search::kMaxBudget)
    throw InputError({"<flag --budget>"}, "expected a budget in [1, " +
                                              std::to_string(search::kMaxBudget) +
                                              "] evaluations per distinct layer");
  if (o.threads < 1 || o.threads > search::kMaxThreads)
    throw InputError({"<flag --threads>"},
                     "expected 1 to " + std::to_string(search::kMaxThreads) + " threads");
  if (o.spmm_cols < 1 || o.spmm_cols > 4096)
    throw InputError({"<flag --spmm-cols>"}, "expected 1 to 4096 activation columns");
  if (!(o.spmm_min_ms > 0 && o.spmm_min_ms <= 10000))
    throw InputError({"<flag --spmm-min-ms>"}, "expected (0, 10000] milliseconds");
}

// "Inputs=0.5,Outputs=0.4" -> {Inputs: 0.5, Outputs: 0.4}.
std::map<std::string, double> parse_densities(const std::string& text) {
  std::map<std::string, double> out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    const size_t eq = item.find('=');
    double d = -1;
    size_t used = 0;
    try {
      if (eq != std::string::npos && eq > 0) d = std::stod(item.substr(eq + 1), &used);
    } catch (const std::exception&) {
      d = -1;
    }
    if (eq == std::string::npos || eq == 0 || used != item.size() - eq - 1 || !(d >= 0 && d <= 1))
      throw InputError(
          {"<flag --density>"},
          "expected DATASPACE=DENSITY[,...] with densities in [0, 1], found '" + item + "'");
    if (item.substr(0, eq) == "Weights")
      throw InputError({"<flag --density>"}, "Weights take the pruned density (--prune)");
    out[item.substr(0, eq)] = d;
    pos = end + 1;
  }
  return out;
}

// The design's architecture file and ERT: --hw a file or a folder holding arch.yaml; --ert,
// else the one *ERT.yaml beside it ("" when none).
std::pair<std::string, std::string> design_files(const Options& o) {
  std::error_code ec;
  const std::string arch =
      fs::is_directory(o.hw, ec) ? (fs::path(o.hw) / "arch.yaml").string() : o.hw;
  if (!fs::is_regular_file(arch, ec))
    throw InputError({"<flag --hw>"}, "no file '" + arch + "': expected a Sparseloop design");
  if (!o.ert.empty()) return {arch, o.ert};
  std::vector<std::string> found;
  const fs::path dir = fs::path(arch).parent_path().empty() ? "." : fs::path(arch).parent_path();
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() >= 8 && name.substr(name.size() - 8) == "ERT.yaml")
      found.push_back(e.path().string());
  }
  if (found.size() > 1)
    throw InputError({"<flag --ert>"},
                     "several *ERT.yaml files beside " + arch + ": expected --ert naming one");
  return {arch, found.empty() ? "" : found[0]};
}

std::vector<tl::Metric> metrics(const Options& o, const io::TimeloopInputs& hw) {
  if (!o.objective.empty())
    return {
        tl::parse_metric(o.objective == "latency" ? "delay" : o.objective, "<flag --objective>")};
  std::vector<tl::Metric> m;
  for (const auto& name : hw.optimization_metrics) m.push_back(tl::parse_metric(name, o.hw));
  if (m.empty()) m.push_back(tl::Metric::kEdp);
  return m;
}

// Options::free_keep false: a level keeping some data spaces and bypassing none bypasses the rest.
void keep_only_what_is_listed(arch::Hierarchy& h, const workload::Einsum& p) {
  for (auto& s : h.storage) {
    auto& c = s.constraints;
    if (c.keep.empty() || !c.bypass.empty()) continue;
    for (const auto& ds : p.data_spaces)
      if (std::find(c.keep.begin(), c.keep.end(), ds.name) == c.keep.end())
        c.bypass.push_back(ds.name);
  }
}

Priced priced(const cost::SparseLoopResult& r) {
  return {r.cycles,          r.energy_pj,      r.algorithmic_computes,
          r.actual_computes, r.gated_computes, r.skipped_computes};
}

// OpenBLAS against our kernel on the pruned matrix, as the report measures it (the dense
// timing before and after the sparse one, the best of all).
SpmmMeasure measure_spmm(const sparse::DenseMatrix& w, const sparse::Mask& keep,
                         const PruneSpec& spec, int64_t cols, uint64_t seed, const Options& o) {
  SpmmMeasure out;
  out.cols = cols;
  const sparse::DenseMatrix b = measure::random_normal(w.cols, cols, seed);
  sparse::DenseMatrix c(w.rows, cols);
  auto dense = [&] { sparse::sgemm_openblas(w.view(), b.view(), c.view(), o.threads); };
  const measure::Timing d1 = measure::time_ms(dense, 3, o.spmm_min_ms, 50);
  const sparse::AnySparse a = sparse::convert(w.view(), spec.format, &keep);
  const measure::SpmmRun run = measure::run_spmm(
      a, b.view(), sparse::KernelOptions{o.threads, sparse::Isa::Auto}, o.spmm_min_ms, 3);
  const measure::Timing d2 = measure::time_ms(dense, 3, o.spmm_min_ms, 50);
  out.dense_ms = std::min(d1.min_ms, d2.min_ms);
  out.sparse_ms = run.timing.min_ms;
  out.max_rel_err = run.max_rel_err;
  return out;
}

// Prunes layer i's seeded weights, prices its mapping dense and sparse, measures its SpMM.
void price_layer(LayerRow& row, const tl::MapperResult& mapped, size_t i, const Options& o,
                 const Result& res, const io::TimeloopInputs& hw,
                 const arch::SparseOptimizations& sparse) {
  const workload::Einsum& p = row.problem;
  const sparse::DenseMatrix w =
      measure::random_normal(weight_rows(p), weight_cols(p), o.seed + 2 * static_cast<uint64_t>(i));
  const sparse::Mask keep = sparse::prune_mask(w.view(), res.prune.format, res.prune.sparsity);
  row.weights = keep.rows * keep.cols;
  row.weight_nonzeros = keep.kept();
  row.weight_density =
      row.weights > 0 ? static_cast<double>(row.weight_nonzeros) / static_cast<double>(row.weights)
                      : 1;
  if (o.spmm) {
    const int64_t cols = std::min(o.spmm_cols, p.bound("N") * p.bound("P") * p.bound("Q"));
    row.spmm = measure_spmm(w, keep, res.prune, std::max<int64_t>(1, cols),
                            o.seed + 2 * static_cast<uint64_t>(i) + 1, o);
  }
  row.evaluations = mapped.evaluations;
  if (!mapped.found) {
    row.reason = "no mapping fits";
    return;
  }
  std::map<std::string, workload::DensityModel> densities;
  densities["Weights"] = weights_density(p, keep, row.name);
  for (const auto& [ds, d] : res.densities) {
    workload::DensityModel m;
    m.distribution = workload::DensityDistribution::kHypergeometric;
    m.density = d;
    densities[ds] = m;
  }
  const arch::EnergyTable* ert = hw.ert ? &*hw.ert : nullptr;
  const auto dense = cost::evaluate_sparseloop(p, *hw.arch, mapped.mapping, ert, sparse, {});
  const auto thin = cost::evaluate_sparseloop(p, *hw.arch, mapped.mapping, ert, sparse, densities);
  if (!dense.ok() || !thin.ok()) {
    row.reason = "the sparse model refuses the mapping: " + (dense.ok() ? thin : dense).reason;
    return;
  }
  row.found = true;
  row.dense = priced(dense);
  row.sparse = priced(thin);
}

void add_to_totals(Totals& t, const LayerRow& row) {
  ++t.layers;
  t.weights += row.weights;
  t.weight_nonzeros += row.weight_nonzeros;
  if (row.spmm) {
    t.spmm_dense_ms += row.spmm->dense_ms;
    t.spmm_sparse_ms += row.spmm->sparse_ms;
  }
  if (!row.found) return;
  ++t.priced;
  for (auto [to, from] : {std::pair{&t.dense, &row.dense}, std::pair{&t.sparse, &row.sparse}}) {
    to->cycles += from->cycles;
    to->energy_pj += from->energy_pj;
    to->algorithmic_computes += from->algorithmic_computes;
    to->actual_computes += from->actual_computes;
    to->gated_computes += from->gated_computes;
    to->skipped_computes += from->skipped_computes;
  }
}

}  // namespace

Result run(const Options& o, search::Observer& observer) {
  check_options(o);
  Result res;
  res.options = o;
  res.options.model_object.reset();
  res.prune = parse_prune(o.prune);
  res.densities = parse_densities(o.density);
  const auto [arch_file, ert_file] = design_files(o);
  res.arch_file = arch_file;
  res.ert_file = ert_file;
  io::TimeloopInputs hw = io::read_timeloop_files({arch_file});
  if (!hw.arch) throw InputError({arch_file}, "expected a Timeloop architecture");
  if (!hw.ert && !ert_file.empty()) hw.ert = io::read_timeloop_files({ert_file}).ert;
  if (!hw.ert) observer.on_warning("no ERT beside " + arch_file + " or given: energies are 0");
  const arch::SparseOptimizations sparse = hw.sparse ? *hw.sparse : arch::SparseOptimizations{};
  res.arch_name = hw.arch->name;
  const workload::Model model = o.model_object ? *o.model_object : io::load_model(o.model, o.zoo);
  res.model_name = model.name;
  std::vector<tl::NetworkLayer> layers;
  for (const auto& l : model.layers)
    if (workload::is_gemm_class(l.kind)) {
      // Unnamed problems: map_network searches each distinct shape once.
      layers.push_back({l.name, workload::to_einsum(l)});
      layers.back().problem.name = "layer";
    }
  if (layers.empty()) throw InputError({"<flag --model>"}, "expected a model with GEMM layers");
  for (const auto& [ds, d] : res.densities)
    if (layers.front().problem.data_space_index(ds) < 0)
      throw InputError({"<flag --density>"},
                       "no data space '" + ds + "': expected Inputs or Outputs");
  if (!o.free_keep) keep_only_what_is_listed(*hw.arch, layers.front().problem);
  tl::NetworkOptions no;
  no.mapper.algo = o.algo;
  no.mapper.budget = o.budget;
  no.mapper.metrics = metrics(o, hw);
  no.mapper.seed = o.seed;
  no.mapper.threads = o.threads;
  auto t0 = std::chrono::steady_clock::now();
  const tl::NetworkResult mapped =
      tl::map_network(layers, *hw.arch, hw.ert ? &*hw.ert : nullptr, no,
                      [&](size_t u, size_t n, int64_t evals, int64_t budget, double best) {
                        search::report_progress(observer, {u, n, evals, budget, best, "map"});
                      });
  observer.on_search_done();
  res.map_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  if (o.spmm) {
    res.isa = sparse::isa_name(sparse::detected_isa());
    res.spmm_warning = measure::busy_machine_warning();
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    LayerRow row;
    row.name = layers[i].name;
    row.same_as = mapped.rows[i].same_as;
    row.problem = layers[i].problem;
    row.problem.name = row.name;
    row.macs = row.problem.operations();
    price_layer(row, mapped.rows[i].r, i, o, res, hw, sparse);
    add_to_totals(res.total, row);
    res.layers.push_back(std::move(row));
    search::report_progress(
        observer, {i, layers.size(), static_cast<int64_t>(i + 1),
                   static_cast<int64_t>(layers.size()), 0, o.spmm ? "price+spmm" : "price"});
  }
  observer.on_search_done();
  res.price_s = seconds_since(t0);
  if (res.total.priced == 0)
    throw InputError({"<flag --hw>"}, "no layer of " + res.model_name + " has a mapping on " +
                                          arch_file + ": " + res.layers.front().reason);
  return res;
}

}  // namespace sparsemap::dse::sparse_price
