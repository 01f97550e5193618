// The report's measurements: mapper, co-design, the model's NonGEMM layers, and SpMM timings.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "sparsemap/dse/codesign/codesign.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/error.h"
#include "sparsemap/measure/spmm_bench.h"
#include "sparsemap/report/report.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::report {

namespace {

namespace mp = dse::mapper;
namespace cd = dse::codesign;
using workload::Dim;
using workload::OpKind;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "K64 C3 224x224 7x7 s2", "M128 N768 K768", "G12 M128 N128 K64", "K1000 C2048".
std::string dims_text(const workload::Layer& l) {
  const auto d = [&](Dim x) { return std::to_string(l.dim(x)); };
  switch (l.kind) {
    case OpKind::Gemm:
      return "M" + d(Dim::M) + " N" + d(Dim::N) + " K" + d(Dim::K);
    case OpKind::BatchedGemm:
      return "G" + d(Dim::G) + " M" + d(Dim::M) + " N" + d(Dim::N) + " K" + d(Dim::K);
    case OpKind::Fc:
      return "K" + d(Dim::K) + " C" + d(Dim::C);
    default: {
      std::string s = (l.kind == OpKind::DsConv ? "" : "K" + d(Dim::K) + " ") + "C" + d(Dim::C) +
                      " " + d(Dim::Y) + "x" + d(Dim::X) + " " + d(Dim::R) + "x" + d(Dim::S);
      if (l.dim(Dim::G) > 1) s = "G" + d(Dim::G) + " " + s;
      if (l.stride.y > 1 || l.stride.x > 1) s += " s" + std::to_string(l.stride.y);
      return s;
    }
  }
}

void tick(const ReportOptions& o, const std::string& stage, int64_t done, int64_t total) {
  if (o.progress) o.progress(stage, done, total);
}

}  // namespace

std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./:=,+@%-").find(c) != std::string_view::npos;
  });
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void check_options(const ReportOptions& o) {
  if (o.map_budget < 1 || o.map_budget > search::kMaxBudget)
    throw InputError({"<flag --budget>", 0, 0},
                     "expected a budget in [1, " + std::to_string(search::kMaxBudget) +
                         "] samples per distinct layer, found " + std::to_string(o.map_budget));
  if (o.codesign_budget < 1 || o.codesign_budget > search::kMaxBudget)
    throw InputError({"<flag --codesign-budget>", 0, 0},
                     "expected a budget in [1, " + std::to_string(search::kMaxBudget) +
                         "] designs, found " + std::to_string(o.codesign_budget));
  if (o.threads < 1 || o.threads > search::kMaxThreads)
    throw InputError({"<flag --threads>", 0, 0},
                     "expected 1 to " + std::to_string(search::kMaxThreads) + " threads, found " +
                         std::to_string(o.threads));
  (void)cd::platform(o.platform);
  if (o.spmm_formats.empty())
    throw InputError({"<flag --spmm-formats>", 0, 0}, "expected at least one format");
  for (const std::string& f : o.spmm_formats) {
    const sparse::FormatSpec spec = sparse::parse_format(f);
    if (spec.kind == sparse::FormatKind::Dense)
      throw InputError({"<flag --spmm-formats>", 0, 0},
                       "dense is the baseline; expected a sparse format (csr, cvse:V, bsr:HxW, "
                       "nm:N:M, vnm:V:N:M)");
  }
  if (o.spmm_sparsities.empty())
    throw InputError({"<flag --spmm-sparsity>", 0, 0}, "expected at least one sparsity");
  for (double s : o.spmm_sparsities)
    if (!(s >= 0 && s < 1))
      throw InputError({"<flag --spmm-sparsity>", 0, 0},
                       "expected sparsities in [0, 1), found " + std::to_string(s));
  if (o.spmm_max_cols < 1 || o.spmm_max_cols > 4096)
    throw InputError({"<flag --spmm-cols>", 0, 0}, "expected 1 to 4096 activation columns");
  if (o.spmm_max_shapes < 0 || o.spmm_max_shapes > 1000)
    throw InputError({"<flag --spmm-shapes>", 0, 0}, "expected 0 to 1000 shapes");
  if (!(o.spmm_min_ms > 0 && o.spmm_min_ms <= 10000))
    throw InputError({"<flag --spmm-min-ms>", 0, 0}, "expected (0, 10000] milliseconds");
}

MappingsSection compute_mappings(const workload::Model& m, const arch::Arch& hw,
                                 const ReportOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  mp::MapperOptions mo;
  mo.algo = "gamma";
  mo.budget = o.map_budget;
  mo.seed = o.seed;
  mo.threads = o.threads;
  if (o.progress)
    mo.progress = [&o](size_t u, size_t n, int64_t, int64_t, double) {
      tick(o, "mappings", static_cast<int64_t>(u), static_cast<int64_t>(n));
    };
  const mp::ModelOutcome res = mp::map_layers(m.layers, hw, mo);
  MappingsSection s;
  s.skipped = res.skipped.size();
  s.distinct = res.unique_layers;
  double log_util = 0;
  for (const auto& lo : res.layers) {
    LayerRow r;
    r.name = lo.layer.name;
    r.kind = lower(workload::op_kind_name(lo.layer.kind));
    r.dims = dims_text(lo.layer);
    r.macs = lo.layer.macs();
    r.status = std::string(cost::status_name(lo.cost.status));
    r.reason = lo.cost.ok() ? "" : lo.cost.reason;
    r.samples = lo.samples;
    r.reused = lo.reused;
    s.macs += r.macs;
    if (lo.cost.ok()) {
      r.runtime_cycles = lo.cost.runtime_cycles;
      r.energy_nj = lo.cost.energy_nj;
      r.pes_used = lo.cost.pes_used;
      r.utilisation_pct =
          lo.cost.runtime_cycles > 0
              ? 100.0 * static_cast<double>(lo.cost.macs) /
                    (static_cast<double>(hw.num_pes) * static_cast<double>(lo.cost.runtime_cycles))
              : 0;
      r.mapping = mp::mapping_text(lo.mapping);
      s.runtime_cycles += r.runtime_cycles;
      s.energy_nj += r.energy_nj;
      ++s.layers_ok;
      log_util += std::log(std::max(1e-9, r.utilisation_pct));
    }
    s.layers.push_back(std::move(r));
  }
  s.utilisation_geomean_pct =
      s.layers_ok ? std::exp(log_util / static_cast<double>(s.layers_ok)) : 0;
  s.wall_s = seconds_since(t0);
  return s;
}

CodesignSection compute_codesign(const workload::Model& m, const arch::Arch& hw,
                                 const ReportOptions& o, int64_t hw_runtime_cycles) {
  const auto t0 = std::chrono::steady_clock::now();
  const cd::Platform p = cd::platform(o.platform);
  cd::CodesignOptions co;
  co.area_budget_mm2 = p.area_budget_mm2;
  co.pe_limit = p.pe_limit;
  co.pe_step = p.pe_limit > 1024 ? 64 : 8;  // as `sparsemap codesign` chooses
  auto space = std::make_shared<cd::CodesignSpace>(m.layers, hw, co);
  const cd::CodesignSpace& sp = *space;
  // `sparsemap codesign ... --baselines none`, recording every feasible design it evaluates.
  std::set<std::tuple<double, int64_t, int64_t, int64_t, int64_t>> seen;
  CodesignSection s;
  cd::RunOptions ro;
  ro.budget = o.codesign_budget;
  ro.seed = o.seed;
  ro.threads = o.threads;
  ro.on_evaluated = [&](const cd::DesignEval& e) {
    if (!e.feasible) {
      ++s.infeasible;
    } else if (seen.emplace(e.area_mm2, e.runtime_cycles, e.pes, e.l1_bytes, e.l2_bytes).second) {
      s.designs.push_back(
          {e.pes, e.l1_bytes, e.l2_bytes, e.area_mm2, e.runtime_cycles, e.energy_nj});
    }
  };
  if (o.progress)
    ro.progress = [&o](int64_t done, double) { tick(o, "codesign", done, o.codesign_budget); };
  const cd::CodesignResult cr = cd::run_codesign(space, ro);
  std::sort(s.designs.begin(), s.designs.end(), [](const DesignPoint& a, const DesignPoint& b) {
    return std::tie(a.area_mm2, a.runtime_cycles, a.pes, a.l1_bytes, a.l2_bytes) <
           std::tie(b.area_mm2, b.runtime_cycles, b.pes, b.l1_bytes, b.l2_bytes);
  });
  // Front: by area ascending, each point strictly faster than every smaller one (a point equal
  // in both to an earlier one is dominated, as in cd::run_codesign).
  for (const DesignPoint& d : s.designs) {
    if (!s.front.empty() && s.front.back().area_mm2 == d.area_mm2) continue;
    if (s.front.empty() || d.runtime_cycles < s.front.back().runtime_cycles) s.front.push_back(d);
  }
  s.platform = p.name;
  s.area_budget_mm2 = co.area_budget_mm2;
  s.pe_limit = co.pe_limit;
  s.pe_step = co.pe_step;
  s.samples = cr.samples;
  s.compute_bound_cycles = cd::compute_bound_cycles(sp);
  if (!cr.best.empty()) {
    const cd::DesignEval& e = cr.design;
    s.feasible = e.feasible;
    s.best = {e.pes, e.l1_bytes, e.l2_bytes, e.area_mm2, e.runtime_cycles, e.energy_nj};
  }
  s.hw_area_mm2 = arch::area_mm2(hw);
  s.hw_runtime_cycles = hw_runtime_cycles;
  s.wall_s = seconds_since(t0);
  return s;
}

NongemmStatic compute_nongemm_static(const workload::Model& m) {
  NongemmStatic s;
  std::map<std::string, NongemmGroup> groups;
  for (const auto& l : m.layers) {
    if (workload::is_gemm_class(l.kind)) {
      ++s.gemm_layers;
      s.gemm_elements += l.input_elems() + l.weight_elems() + l.output_elems();
      continue;
    }
    const std::string kind = lower(workload::op_kind_name(l.kind));
    const std::string name = l.op.empty() ? kind : lower(l.op);
    NongemmGroup& g = groups[name];
    g.name = name;
    g.kind = kind;
    ++g.layers;
    g.elements += l.input_elems() + l.output_elems();
    ++s.nongemm_layers;
    s.nongemm_elements += l.input_elems() + l.output_elems();
  }
  for (auto& [_, g] : groups) s.groups.push_back(g);
  std::sort(s.groups.begin(), s.groups.end(), [](const NongemmGroup& a, const NongemmGroup& b) {
    return a.elements != b.elements ? a.elements > b.elements : a.name < b.name;
  });
  return s;
}

namespace {

// A weight matrix of a GEMM-class layer as SpMM sees it: W (m x k) times activations (k x n).
struct WeightShape {
  int64_t m = 0, k = 0, n = 0;
  std::string first;
  int64_t layers = 0;
  int64_t macs = 0;
};

// Largest weight measured (elements): 16 Mi floats (64 MiB dense, before the formats' copies).
constexpr int64_t kMaxWeightElems = int64_t{1} << 24;

}  // namespace

SpmmSection compute_spmm(const workload::Model& m, const ReportOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  SpmmSection s;
  std::map<std::tuple<int64_t, int64_t, int64_t>, WeightShape> by_shape;
  std::set<std::string> skipped;
  for (const auto& l : m.layers) {
    if (!workload::is_gemm_class(l.kind)) continue;
    WeightShape w;
    if (l.kind == OpKind::Conv && l.dim(Dim::G) == 1) {
      w.m = l.dim(Dim::K);
      w.k = l.dim(Dim::C) * l.dim(Dim::R) * l.dim(Dim::S);
      w.n = l.dim(Dim::N) * l.out_y() * l.out_x();
    } else if (l.kind == OpKind::Fc) {
      w.m = l.dim(Dim::K), w.k = l.dim(Dim::C), w.n = l.dim(Dim::N);
    } else if (l.kind == OpKind::Gemm) {
      w.m = l.dim(Dim::N), w.k = l.dim(Dim::K), w.n = l.dim(Dim::M);
    } else {
      ++s.shapes_skipped;
      skipped.insert(lower(workload::op_kind_name(l.kind)));
      continue;
    }
    if (w.m < 1 || w.k < 1 || w.n < 1 || w.m * w.k > kMaxWeightElems) {
      ++s.shapes_skipped;
      skipped.insert("weights over 16M elements");
      continue;
    }
    WeightShape& e = by_shape[{w.m, w.k, w.n}];
    if (e.layers == 0) e = {w.m, w.k, w.n, l.name, 0, 0};
    ++e.layers;
    e.macs += l.macs();
  }
  for (const auto& k : skipped) s.skipped_kinds += (s.skipped_kinds.empty() ? "" : ", ") + k;
  std::vector<WeightShape> shapes;
  for (auto& [_, w] : by_shape) shapes.push_back(w);
  std::stable_sort(shapes.begin(), shapes.end(),
                   [](const WeightShape& a, const WeightShape& b) { return a.macs > b.macs; });
  s.shapes_total = static_cast<int64_t>(shapes.size());
  if (static_cast<int64_t>(shapes.size()) > o.spmm_max_shapes)
    shapes.resize(static_cast<size_t>(o.spmm_max_shapes));
  s.shapes_measured = static_cast<int64_t>(shapes.size());
  s.threads = o.threads;
  s.isa = sparse::isa_name(sparse::detected_isa());
  s.openblas_core = sparse::openblas_core_name();
  s.warning = measure::busy_machine_warning();
  for (const char* var : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"})
    if (const char* v = std::getenv(var))
      s.warning += std::string(s.warning.empty() ? "" : "; ") + var + "=" + v +
                   " is set, so OpenBLAS may run a kernel slower than its best";
  const sparse::KernelOptions kopt{o.threads, sparse::Isa::Auto};
  std::vector<sparse::FormatSpec> specs;
  for (const auto& f : o.spmm_formats) specs.push_back(sparse::parse_format(f));
  int64_t per_shape = 0;
  for (const auto& spec : specs)
    per_shape +=
        spec.intrinsic_sparsity() >= 0 ? 1 : static_cast<int64_t>(o.spmm_sparsities.size());
  const int64_t total = per_shape * s.shapes_measured;
  int64_t done = 0;
  std::map<std::string, std::map<double, std::vector<double>>> speedups;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const WeightShape& w = shapes[i];
    const int64_t n = std::min(w.n, o.spmm_max_cols);
    const sparse::DenseMatrix wt = measure::random_normal(w.m, w.k, o.seed + 2 * i);
    const sparse::DenseMatrix b = measure::random_normal(w.k, n, o.seed + 2 * i + 1);
    sparse::DenseMatrix c(w.m, n);
    auto dense = [&] { sparse::sgemm_openblas(wt.view(), b.view(), c.view(), o.threads); };
    measure::Timing d1 = measure::time_ms(dense, 3, o.spmm_min_ms, 50);
    std::vector<SpmmRow> rows;
    for (const auto& spec : specs) {
      const double own = spec.intrinsic_sparsity();
      const std::vector<double> targets = own >= 0 ? std::vector<double>{own} : o.spmm_sparsities;
      for (double target : targets) {
        const sparse::Mask mask = sparse::prune_mask(wt.view(), spec, own >= 0 ? -1.0 : target);
        const sparse::AnySparse a = sparse::convert(wt.view(), spec, &mask);
        const measure::SpmmRun run = measure::run_spmm(a, b.view(), kopt, o.spmm_min_ms, 3);
        SpmmRow r;
        r.layer = w.first;
        r.layers = w.layers;
        r.m = w.m, r.k = w.k, r.n = n, r.n_full = w.n;
        r.format = spec.str();
        r.target_sparsity = target;
        r.sparsity = mask.sparsity();
        r.ms = run.timing.min_ms;
        r.max_rel_err = run.max_rel_err;
        rows.push_back(r);
        tick(o, "spmm", ++done, total);
      }
    }
    measure::Timing d2 = measure::time_ms(dense, 3, o.spmm_min_ms, 50);
    std::vector<double> all = d1.samples_ms;
    all.insert(all.end(), d2.samples_ms.begin(), d2.samples_ms.end());
    const double dense_ms = *std::min_element(all.begin(), all.end());
    for (SpmmRow& r : rows) {
      r.dense_ms = dense_ms;
      r.speedup = r.ms > 0 ? dense_ms / r.ms : 0;
      speedups[r.format][r.target_sparsity].push_back(r.speedup);
      s.rows.push_back(r);
    }
  }
  for (const auto& [f, by] : speedups)
    for (const auto& [t, v] : by) s.geomean[f][t] = geomean(v);
  s.wall_s = seconds_since(t0);
  return s;
}

Report build_report(const workload::Model& m, const arch::Arch& hw, const ReportOptions& o) {
  check_options(o);
  const auto t0 = std::chrono::steady_clock::now();
  Report r;
  r.model = m.name;
  r.version = SPARSEMAP_VERSION;
  r.hw = hw;
  r.options = o;
  r.options.progress = nullptr;
  r.model_macs = m.total_macs();
  r.model_params = m.total_params();
  r.model_layers = m.layers.size();
  r.mappings = compute_mappings(m, hw, o);
  r.codesign = compute_codesign(m, hw, o, r.mappings.runtime_cycles);
  r.nongemm_static = compute_nongemm_static(m);
  r.spmm = compute_spmm(m, o);
  r.nongemm.why_absent = "not measured";
  r.wall_s = seconds_since(t0);
  return r;
}

}  // namespace sparsemap::report
