// `sparsemap map`'s work as a library call: options, loading, the search, the references,
// totals and the output files (run.h).
#include "sparsemap/dse/mapper/run.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/cost/utilisation.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/io/load_model.h"
#include "sparsemap/io/maestro_export.h"
#include "sparsemap/io/util.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::dse::mapper {

namespace {

// The layers to map: a MAESTRO file's (its warnings reported by the root) or a model's.
std::vector<workload::Layer> load_layers(const Options& a, bool root, std::string& model_name,
                                         search::Observer& observer) {
  std::vector<workload::Layer> layers;
  if (!a.mapping.empty()) {
    const io::DfslNetwork net = io::read_dfsl(a.mapping);
    if (root)
      for (const auto& w : net.warnings) observer.on_warning(w.str());
    model_name = net.name;
    for (const auto& l : net.layers) layers.push_back(l.layer);
    return layers;
  }
  std::vector<InputWarning> warnings;
  const workload::Model m =
      a.model_object ? *a.model_object : io::load_model(a.model, a.zoo, &warnings);
  for (const auto& w : warnings) observer.on_warning(w.str());
  model_name = m.name;
  return m.layers;
}

// Built-in dataflow templates (and the file's own dataflows), same buffer rule.
std::vector<Reference> reference_costs(const Options& a, const ModelOutcome& res,
                                       const arch::Arch& hw,
                                       const cost::SparsityOptions& sparsity) {
  std::vector<Reference> refs;
  cost::EvalOptions eo;
  eo.enforce_buffers = true;
  eo.sparsity = sparsity;
  for (const auto& t : cost::dataflow_templates()) {
    Reference r{t.name, {}};
    for (const auto& lo : res.layers)
      r.costs.push_back(
          cost::evaluate(lo.layer, hw, cost::dataflow_mapping(t.name, lo.layer, hw.num_pes), eo));
    refs.push_back(std::move(r));
  }
  if (!a.mapping.empty()) {
    const io::DfslNetwork net = io::read_dfsl(a.mapping);
    Reference r{"file", {}};
    mapping::Mapping prev;
    for (const auto& l : net.layers) {
      if (!workload::is_gemm_class(l.layer.kind)) continue;
      const mapping::Mapping& m = l.mapping.empty() ? prev : l.mapping;
      prev = m;
      cost::Cost c;
      if (m.empty()) {
        c.status = cost::Status::Invalid;
        c.reason = "no Dataflow block";
      } else {
        c = cost::evaluate(l.layer, hw, m, eo);
      }
      r.costs.push_back(c);
    }
    refs.push_back(std::move(r));
  }
  return refs;
}

Totals totals(const ModelOutcome& res, const std::vector<Reference>& refs, const arch::Arch& hw) {
  Totals t;
  double log_util = 0;
  for (const auto& lo : res.layers) {
    t.macs += lo.cost.macs;
    if (!lo.cost.ok()) continue;
    ++t.ok;
    t.runtime += lo.cost.runtime_cycles;
    t.energy += lo.cost.energy_nj;
    log_util += std::log(std::max(1e-9, cost::pe_utilisation_pct(lo.cost, hw.num_pes)));
  }
  t.geo_util = t.ok ? std::exp(log_util / static_cast<double>(t.ok)) : 0.0;
  t.ref_rt.assign(refs.size(), 0);
  t.ref_ok.assign(refs.size(), 0);
  t.ours_rt.assign(refs.size(), 0);
  t.ref_en.assign(refs.size(), 0);
  for (size_t k = 0; k < refs.size(); ++k)
    for (size_t i = 0; i < refs[k].costs.size(); ++i) {
      const cost::Cost& c = refs[k].costs[i];
      if (!c.ok()) continue;
      t.ref_rt[k] += c.runtime_cycles;
      t.ref_en[k] += c.energy_nj;
      ++t.ref_ok[k];
      if (i < res.layers.size()) t.ours_rt[k] += res.layers[i].cost.runtime_cycles;
    }
  return t;
}

// --algo exhaustive enumerates at most --budget points per layer, in mixed-radix order: a note
// names how many layers' spaces are larger, so a partial scan is never read as an exhaustive
// optimum.
void note_partial_exhaustive(const std::vector<workload::Layer>& layers, const arch::Arch& hw,
                             const MapperOptions& o, search::Observer& observer) {
  int gemm = 0, partial = 0;
  double largest = 0;
  for (const workload::Layer& l : layers) {
    if (!workload::is_gemm_class(l.kind)) continue;
    ++gemm;
    const int64_t n = search::space_size(MapSpace(l, hw, o.space).exhaustive_levels());
    if (n >= 0 && n <= o.budget) continue;
    ++partial;
    largest = std::max(largest, n < 0 ? 9.3e18 : static_cast<double>(n));
  }
  if (partial == 0) return;
  std::ostringstream big;
  big.precision(2);
  big << largest;
  std::ostringstream note;
  note << "--algo exhaustive: " << partial << " of " << gemm << " layers have more points than "
       << "--budget " << o.budget << " (up to "
       << (largest >= 9.3e18 ? "more than 9.2e+18" : big.str())
       << "): their scan is partial, not an optimum";
  observer.on_warning(note.str());
}

}  // namespace

MapperOptions mapper_options(const Options& a) {
  const bool has_model = !a.model.empty() || a.model_object.has_value();
  if (has_model == !a.mapping.empty())
    throw InputError({"<flags>", 0, 0}, "expected either --model NAME or --mapping FILE.m");
  check_algo(a.algo);
  MapperOptions o;
  o.algo = a.algo;
  o.objective = parse_objective(a.objective);
  if (a.budget < 1) throw InputError({"<flag --budget>", 0, 0}, "expected a positive budget");
  if (a.threads < 1) throw InputError({"<flag --threads>", 0, 0}, "expected at least 1 thread");
  o.budget = a.budget;
  o.seed = a.seed;
  o.threads = a.threads;
  o.space.max_levels = a.levels;
  o.space.divisors_only = a.divisors_only;
  o.space.maestro_compatible = a.maestro_compatible;
  o.space.constraint = parse_constraint(a.constraint);
  if (o.space.constraint != Constraint::None && a.levels < 2)
    throw InputError({"<flag --levels>", 0, 0}, "a constraint class needs --levels >= 2");
  if (a.levels < 1 || a.levels > 4)
    throw InputError({"<flag --levels>", 0, 0}, "expected 1 to 4 cluster levels");
  if (!a.density.empty()) cost::parse_density_flag(a.density, o.sparsity);
  if (!a.structure.empty()) cost::parse_structure_flag(a.structure, o.sparsity);
  o.sparsity.mode = cost::parse_sparse_mode(a.sparse_mode);
  o.worst_case = a.worst_case;
  o.warm_start = a.warm_start;
  if (!a.mapping_db.empty()) {
    if (!a.warm_start)
      throw InputError({"<flag --mapping-db>", 0, 0}, "--mapping-db needs --warm-start");
    o.mapping_db = read_mapping_db(a.mapping_db);
  }
  o.population = a.population;
  o.mutation_rate = a.mutation_rate;
  o.spatial_seeds = a.spatial_seeds;
  if (!a.checkpoint.empty() && !a.resume.empty() && a.checkpoint != a.resume)
    throw InputError({"<flag --resume>", 0, 0}, "--checkpoint and --resume name different files");
  o.checkpoint_file = !a.resume.empty() ? a.resume : a.checkpoint;
  o.resume = !a.resume.empty();
  o.checkpoint_every = a.checkpoint_every;
  return o;
}

Result run(const Options& a, search::Observer& observer) {
  search::MpiSession mpi;  // before any thread; only the root reports and returns a result
  Result r;
  r.root = mpi.is_root();
  r.options = a;
  r.options.model_object.reset();
  r.options.arch_object.reset();
  r.mapper = mapper_options(a);
  r.hw = a.arch_object ? *a.arch_object : io::load_arch(a.hw);
  const std::vector<workload::Layer> layers = load_layers(a, r.root, r.model_name, observer);

  if (r.root && r.mapper.algo == "exhaustive")
    note_partial_exhaustive(layers, r.hw, r.mapper, observer);
  MapperOptions o = r.mapper;
  if (r.root)
    o.progress = [&observer](size_t u, size_t n, int64_t s, int64_t b, double best) {
      search::report_progress(observer, {u, n, s, b, best, ""});
    };
  const auto t0 = std::chrono::steady_clock::now();
  r.outcome = map_layers(layers, r.hw, o);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.root) return r;
  if (a.compare) r.references = reference_costs(a, r.outcome, r.hw, r.mapper.sparsity);
  r.totals = totals(r.outcome, r.references, r.hw);
  return r;
}

WarmStartSums warm_start_sums(const ModelOutcome& res, int64_t budget) {
  WarmStartSums s;
  for (const auto& lo : res.layers)
    if (!lo.reused && lo.cold_samples_to_target >= 0) {
      ++s.layers;
      s.cold += lo.cold_samples_to_target;
      const int64_t w = lo.warm_samples_to_target >= 0 ? lo.warm_samples_to_target : budget;
      s.warm += w;
      s.faster += w < lo.cold_samples_to_target;
    }
  return s;
}

void write_outputs(const Result& r) {
  const Options& a = r.options;
  if (!a.emit_m.empty()) {  // every check before the first byte is written
    std::vector<io::MappedLayer> mapped;
    for (const auto& lo : r.outcome.layers) mapped.push_back({lo.layer, lo.mapping});
    const std::string text = io::write_maestro_network(r.model_name, mapped);
    std::string note;
    const std::string hw_file = io::write_maestro_hw(r.hw, &note);
    std::string stem = r.model_name;
    for (char& ch : stem)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
    io::make_output_dir(a.emit_m, "--emit-m");
    io::write_text_file((std::filesystem::path(a.emit_m) / (stem + "_" + a.algo + ".m")).string(),
                        text);
    io::write_text_file((std::filesystem::path(a.emit_m) / "accelerator.m").string(), hw_file);
    if (!note.empty()) std::cerr << "sparsemap: accelerator.m: " << note << "\n";
  }
  if (!a.mapping_db_out.empty()) {
    std::vector<DbEntry> db;
    for (const auto& lo : r.outcome.layers)
      if (!lo.reused && lo.fitness < search::kInfeasible) db.push_back({lo.layer, lo.decoded});
    write_mapping_db(db, a.mapping_db_out);
  }
}

void require_some_feasible(const Result& r) {
  const auto& layers = r.outcome.layers;
  for (const auto& lo : layers)
    if (lo.cost.ok()) return;
  if (layers.empty()) return;
  throw InputError({r.options.hw.empty() ? r.hw.name : r.options.hw, 0, 0},
                   "none of the " + std::to_string(layers.size()) +
                       " layers has a feasible mapping on this accelerator, so there is no total "
                       "(first: " +
                       layers.front().cost.reason + ")");
}

}  // namespace sparsemap::dse::mapper
