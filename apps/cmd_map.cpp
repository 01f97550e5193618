// `sparsemap map`: searches the best mapping of every layer of a model on an accelerator (GAMMA
// or a baseline optimiser), with warm-start, density ranges, checkpoints and MPI; a per-layer
// table (beside the built-in dataflow templates with --compare-dataflows) and JSON.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/cost/utilisation.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/io/maestro_export.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::cli {
namespace {

namespace mp = dse::mapper;

struct MapArgs {
  std::string model, mapping, hw, algo = "gamma", objective = "latency";
  int64_t budget = 1000;
  uint64_t seed = 1;
  int threads = 1;
  int levels = 2;
  bool divisors_only = false, maestro_compatible = false;
  std::string constraint = "none";
  bool warm_start = false;
  std::string mapping_db, mapping_db_out;
  std::string density, structure, sparse_mode = "gate";
  bool worst_case = false;
  std::string checkpoint, resume;
  int64_t checkpoint_every = 2000;
  std::string json, emit_m;
  bool compare = false, quiet = false, wide = false;
  size_t population = 0;
  double mutation_rate = 0.6;
  size_t spatial_seeds = 0;
  workload::ZooOptions zoo;
};

double utilisation_pct(const cost::Cost& c, const arch::Arch& hw) {
  return cost::pe_utilisation_pct(c, hw.num_pes);
}

// A model none of whose layers has a feasible mapping has no total: say why (the first
// layer's reason) and exit 2, after the table and the JSON have shown every layer.
void require_some_feasible(const mp::ModelOutcome& res, const std::string& hw) {
  for (const auto& lo : res.layers)
    if (lo.cost.ok()) return;
  if (res.layers.empty()) return;
  throw InputError({hw, 0, 0}, "none of the " + std::to_string(res.layers.size()) +
                                   " layers has a feasible mapping on this accelerator, so there "
                                   "is no total (first: " +
                                   res.layers.front().cost.reason + ")");
}

// The mapper's options from the flags (every flag checked before anything runs).
mp::MapperOptions mapper_options(const MapArgs& a) {
  if (a.model.empty() == a.mapping.empty())
    throw InputError({"<flags>", 0, 0}, "expected either --model NAME or --mapping FILE.m");
  mp::check_algo(a.algo);
  mp::MapperOptions o;
  o.algo = a.algo;
  o.objective = mp::parse_objective(a.objective);
  if (a.budget < 1) throw InputError({"<flag --budget>", 0, 0}, "expected a positive budget");
  if (a.threads < 1) throw InputError({"<flag --threads>", 0, 0}, "expected at least 1 thread");
  o.budget = a.budget;
  o.seed = a.seed;
  o.threads = a.threads;
  o.space.max_levels = a.levels;
  o.space.divisors_only = a.divisors_only;
  o.space.maestro_compatible = a.maestro_compatible;
  o.space.constraint = mp::parse_constraint(a.constraint);
  if (o.space.constraint != mp::Constraint::None && a.levels < 2)
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
    o.mapping_db = mp::read_mapping_db(a.mapping_db);
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

// The layers to map: a MAESTRO file's (its warnings printed by the root) or a model's.
std::vector<workload::Layer> load_layers(const MapArgs& a, bool root, std::string& model_name) {
  std::vector<workload::Layer> layers;
  if (!a.mapping.empty()) {
    const io::DfslNetwork net = io::read_dfsl(a.mapping);
    if (root)
      for (const auto& w : net.warnings) std::cerr << "sparsemap: " << w.str() << "\n";
    model_name = net.name;
    for (const auto& l : net.layers) layers.push_back(l.layer);
  } else {
    const workload::Model m = load_model(a.model, a.zoo);
    model_name = m.name;
    layers = m.layers;
  }
  return layers;
}

// A reference the searched mappings are compared with (--compare): a dataflow template, or the
// MAESTRO file's own dataflows; one cost per mapped layer.
struct Ref {
  std::string name;
  std::vector<cost::Cost> costs;
};

// Built-in dataflow templates (and the file's own dataflows), same buffer rule.
std::vector<Ref> reference_costs(const MapArgs& a, const mp::ModelOutcome& res,
                                 const arch::Arch& hw, const cost::SparsityOptions& sparsity) {
  std::vector<Ref> refs;
  cost::EvalOptions eo;
  eo.enforce_buffers = true;
  eo.sparsity = sparsity;
  for (const auto& t : cost::dataflow_templates()) {
    Ref r{t.name, {}};
    for (const auto& lo : res.layers)
      r.costs.push_back(
          cost::evaluate(lo.layer, hw, cost::dataflow_mapping(t.name, lo.layer, hw.num_pes), eo));
    refs.push_back(std::move(r));
  }
  if (!a.mapping.empty()) {
    const io::DfslNetwork net = io::read_dfsl(a.mapping);
    Ref r{"file", {}};
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

// The model's totals over its feasible layers, and per reference its totals over the layers
// where it is feasible beside ours over the same layers.
struct Totals {
  int64_t runtime = 0, macs = 0, ok = 0;
  double energy = 0, geo_util = 0;
  std::vector<int64_t> ref_rt, ref_ok, ours_rt;
  std::vector<double> ref_en;
};

Totals totals(const mp::ModelOutcome& res, const std::vector<Ref>& refs, const arch::Arch& hw) {
  Totals t;
  double log_util = 0;
  for (const auto& lo : res.layers) {
    t.macs += lo.cost.macs;
    if (!lo.cost.ok()) continue;
    ++t.ok;
    t.runtime += lo.cost.runtime_cycles;
    t.energy += lo.cost.energy_nj;
    log_util += std::log(std::max(1e-9, utilisation_pct(lo.cost, hw)));
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

// Everything a table prints needs.
struct Report {
  const MapArgs& a;
  const mp::MapperOptions& o;
  const mp::ModelOutcome& res;
  const std::vector<Ref>& refs;
  const Totals& tot;
  const arch::Arch& hw;
  const std::string& model_name;
};

// What was mapped, the total, and the comparison with the templates.
void print_summary(const Report& r, double wall) {
  const MapArgs& a = r.a;
  const Totals& tot = r.tot;
  std::cout << "mapped " << r.model_name << " on " << r.hw.name << " (" << r.hw.num_pes
            << " PEs) with " << a.algo << ", " << a.objective << ", budget "
            << with_commas(r.o.budget) << " per distinct layer"
            << (a.algo == "bo" && r.o.budget > search::kBoSampleCap
                    ? " (BO capped at " + with_commas(search::kBoSampleCap) + ")"
                    : "")
            << "\n"
            << r.res.layers.size() << " layers, " << r.res.unique_layers
            << " distinct; total: " << with_commas(tot.runtime) << " cycles, "
            << fixed(tot.energy / 1e3, 1) << " uJ; geomean PE utilisation "
            << fixed(tot.geo_util, 1) << "%; " << fixed(wall, 2) << " s\n";
  if (r.refs.empty()) return;
  Table c({"dataflow", "layers it maps", "its cycles", "its uJ", "searched cycles there",
           "searched is faster"});
  for (size_t k = 0; k < r.refs.size(); ++k)
    c.add({r.refs[k].name,
           std::to_string(tot.ref_ok[k]) + "/" + std::to_string(r.refs[k].costs.size()),
           with_commas(tot.ref_rt[k]), fixed(tot.ref_en[k] / 1e3, 1), with_commas(tot.ours_rt[k]),
           tot.ref_ok[k] ? fixed(static_cast<double>(tot.ref_rt[k]) /
                                     static_cast<double>(std::max<int64_t>(1, tot.ours_rt[k])),
                                 2) +
                               "x"
                         : "-"});
  std::cout << "\nbeside the built-in dataflow templates (same buffer rule), on the layers each "
               "can map:\n"
            << c.str();
}

// Per layer. Default: the search's result and, per template, its cycles / ours (the template's
// status when it cannot map the layer); --wide: every column. Energy in uJ by default
// (narrower), nJ with --wide (as in the JSON).
void print_layers(const Report& r) {
  const MapArgs& a = r.a;
  const Totals& tot = r.tot;
  std::vector<std::string> header = {"#", "layer", "dims", "cycles", a.wide ? "nJ" : "uJ"};
  if (a.wide) header.push_back("PEs");
  header.insert(header.end(), {"util %", "samples"});
  for (const Ref& ref : r.refs) {
    if (a.wide) {
      header.push_back(ref.name + " cycles");
      header.push_back(ref.name + " nJ");
    } else {
      header.push_back(ref.name + " x");
    }
  }
  Table t(header);
  for (size_t i = 0; i < r.res.layers.size(); ++i) {
    const auto& lo = r.res.layers[i];
    const cost::Cost& c = lo.cost;
    std::vector<std::string> row = {
        std::to_string(i), lo.layer.name,
        a.wide ? layer_dims_text(lo.layer) : layer_dims_short(lo.layer),
        c.ok() ? with_commas(c.runtime_cycles) : std::string(cost::status_name(c.status)),
        c.ok() ? fixed(a.wide ? c.energy_nj : c.energy_nj / 1e3, a.wide ? 1 : 2) : "-"};
    if (a.wide) row.push_back(c.ok() ? with_commas(c.pes_used) : "-");
    row.push_back(c.ok() ? fixed(utilisation_pct(c, r.hw), 1) : "-");
    row.push_back(lo.reused ? "=" + std::to_string(lo.unique) : with_commas(lo.samples));
    for (const Ref& ref : r.refs) {
      const cost::Cost& rc = ref.costs[i];
      const std::string status(cost::status_name(rc.status));
      if (a.wide) {
        row.push_back(rc.ok() ? with_commas(rc.runtime_cycles) : status);
        row.push_back(rc.ok() ? fixed(rc.energy_nj, 1) : "-");
      } else {
        row.push_back(!rc.ok() || !c.ok()
                          ? "-"
                          : fixed(static_cast<double>(rc.runtime_cycles) /
                                      static_cast<double>(std::max<int64_t>(1, c.runtime_cycles)),
                                  2));
      }
    }
    t.add(row);
  }
  std::vector<std::string> total = {"", "total", "", with_commas(tot.runtime),
                                    fixed(a.wide ? tot.energy : tot.energy / 1e3, a.wide ? 1 : 2)};
  if (a.wide) total.push_back("");
  total.insert(total.end(), {fixed(tot.geo_util, 1), ""});
  for (size_t k = 0; k < r.refs.size(); ++k) {
    if (a.wide) {
      total.push_back(
          with_commas(tot.ref_rt[k]) +
          (tot.ref_ok[k] < static_cast<int64_t>(r.refs[k].costs.size())
               ? " (" + std::to_string(r.refs[k].costs.size() - tot.ref_ok[k]) + " not ok)"
               : ""));
      total.push_back(fixed(tot.ref_en[k], 1));
    } else {
      total.push_back(tot.ref_ok[k]
                          ? fixed(static_cast<double>(tot.ref_rt[k]) /
                                      static_cast<double>(std::max<int64_t>(1, tot.ours_rt[k])),
                                  2)
                          : "-");
    }
  }
  t.add(total);
  std::cout << "\nper layer (samples: '=N' reuses distinct layer N's search"
            << (r.refs.empty() || a.wide ? ""
                                         : ";\nTEMPLATE x: its cycles / the searched cycles, '-' "
                                           "where it cannot map the layer (why: --wide or --json)")
            << "):\n"
            << t.str(a.wide ? 0 : kColumns);
  if (!r.res.skipped.empty())
    std::cout << "skipped " << r.res.skipped.size()
              << " layers without MACs (softmax, norms, activations, ...)\n";
}

// Warm start: samples to reach the cold search's best, cold and warm, over the distinct layers
// where the cold search reached its target (a warm search that never did counts its budget).
struct WarmStartSums {
  int64_t cold = 0, warm = 0, layers = 0, faster = 0;
};
WarmStartSums warm_start_sums(const mp::ModelOutcome& res, int64_t budget) {
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

// --emit-m (MAESTRO files of the searched mappings and the accelerator) and --mapping-db-out.
void write_outputs(const MapArgs& a, const mp::ModelOutcome& res, const arch::Arch& hw,
                   const std::string& model_name) {
  if (!a.emit_m.empty()) {  // every check before the first byte is written
    std::vector<io::MappedLayer> mapped;
    for (const auto& lo : res.layers) mapped.push_back({lo.layer, lo.mapping});
    const std::string text = io::write_maestro_network(model_name, mapped);
    std::string note;
    const std::string hw_file = io::write_maestro_hw(hw, &note);
    std::string stem = model_name;
    for (char& ch : stem)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
    make_output_dir(a.emit_m, "--emit-m");
    write_text_file((std::filesystem::path(a.emit_m) / (stem + "_" + a.algo + ".m")).string(),
                    text);
    write_text_file((std::filesystem::path(a.emit_m) / "accelerator.m").string(), hw_file);
    if (!note.empty()) std::cerr << "sparsemap: accelerator.m: " << note << "\n";
  }
  if (!a.mapping_db_out.empty()) {
    std::vector<mp::DbEntry> db;
    for (const auto& lo : res.layers)
      if (!lo.reused && lo.fitness < search::kInfeasible) db.push_back({lo.layer, lo.decoded});
    mp::write_mapping_db(db, a.mapping_db_out);
  }
}

// One layer's JSON object.
nlohmann::json layer_json(const Report& r, size_t i) {
  const auto& lo = r.res.layers[i];
  const cost::Cost& c = lo.cost;
  nlohmann::json j = {{"name", lo.layer.name},
                      {"status", std::string(cost::status_name(c.status))},
                      {"runtime_cycles", c.runtime_cycles},
                      {"energy_nj", c.energy_nj},
                      {"macs", c.macs},
                      {"samples", lo.samples},
                      {"mapping", mp::mapping_text(lo.mapping)},
                      {"pes_used", c.pes_used},
                      {"pe_utilization_pct", utilisation_pct(c, r.hw)},
                      {"l1_bytes", c.l1_bytes},
                      {"l2_bytes", c.l2_bytes},
                      {"fitness", lo.fitness},
                      {"levels", mp::decoded_to_json(lo.decoded).size()},
                      {"reused", lo.reused},
                      {"distinct_index", lo.unique},
                      {"samples_to_5pct", lo.samples_to_5pct}};
  if (!c.ok()) j["reason"] = c.reason;
  if (!r.refs.empty()) {
    nlohmann::json d = nlohmann::json::object();
    for (const Ref& ref : r.refs)
      d[ref.name] = {{"status", std::string(cost::status_name(ref.costs[i].status))},
                     {"runtime_cycles", ref.costs[i].runtime_cycles},
                     {"energy_nj", ref.costs[i].energy_nj}};
    j["dataflows"] = d;
  }
  if (r.o.warm_start && !lo.reused)
    j["warm_start"] = {{"cold_fitness", lo.cold_fitness},
                       {"cold_samples_to_target", lo.cold_samples_to_target},
                       {"warm_samples_to_target", lo.warm_samples_to_target}};
  if (!lo.regrets.empty()) {
    nlohmann::json rg = nlohmann::json::array();
    for (const auto& g : lo.regrets)
      rg.push_back({{"density", g.density},
                    {"robust", g.robust},
                    {"alone", g.alone},
                    {"regret_pct", 100.0 * g.regret}});
    j["density_regret"] = rg;
  }
  return j;
}

// The run's JSON: settings, layers, totals, references, warm start.
nlohmann::json map_json(const Report& r) {
  const MapArgs& a = r.a;
  const Totals& tot = r.tot;
  nlohmann::json jl = nlohmann::json::array();
  for (size_t i = 0; i < r.res.layers.size(); ++i) jl.push_back(layer_json(r, i));
  nlohmann::json j = {{"model", r.model_name},
                      {"algo", a.algo},
                      {"hw", r.hw.name},
                      {"objective", a.objective},
                      {"budget", r.o.budget},
                      {"seed", r.o.seed},
                      {"levels", a.levels},
                      {"constraint", mp::constraint_name(r.o.space.constraint)},
                      {"divisors_only", a.divisors_only},
                      {"maestro_compatible", a.maestro_compatible},
                      {"layers", jl},
                      {"total",
                       {{"runtime_cycles", tot.runtime},
                        {"energy_nj", tot.energy},
                        {"macs", tot.macs},
                        {"layers", r.res.layers.size()},
                        {"layers_ok", tot.ok},
                        {"distinct_layers", r.res.unique_layers},
                        {"pe_utilization_geomean_pct", tot.geo_util}}}};
  if (a.algo == "bo") j["bo_sample_cap"] = search::kBoSampleCap;
  if (!r.res.skipped.empty()) j["skipped"] = r.res.skipped;
  if (!r.refs.empty()) {
    nlohmann::json d = nlohmann::json::object();
    for (size_t k = 0; k < r.refs.size(); ++k)
      d[r.refs[k].name] = {{"runtime_cycles", tot.ref_rt[k]},
                           {"energy_nj", tot.ref_en[k]},
                           {"layers_ok", tot.ref_ok[k]},
                           {"searched_runtime_cycles_same_layers", tot.ours_rt[k]}};
    j["dataflows_total"] = d;
  }
  if (r.o.warm_start) {
    const WarmStartSums w = warm_start_sums(r.res, r.o.budget);
    j["warm_start"] = {{"layers", w.layers},
                       {"cold_samples_to_target", w.cold},
                       {"warm_samples_to_target", w.warm},
                       {"mapping_db_entries", r.o.mapping_db.size()}};
  }
  return j;
}

// --algo exhaustive enumerates at most --budget points per layer, in mixed-radix order: a note
// on stderr names how many layers' spaces are larger, so a partial scan is never read as an
// exhaustive optimum.
void note_partial_exhaustive(const std::vector<workload::Layer>& layers, const arch::Arch& hw,
                             const mp::MapperOptions& o) {
  int gemm = 0, partial = 0;
  double largest = 0;
  for (const workload::Layer& l : layers) {
    if (!workload::is_gemm_class(l.kind)) continue;
    ++gemm;
    const int64_t n = search::space_size(mp::MapSpace(l, hw, o.space).exhaustive_levels());
    if (n >= 0 && n <= o.budget) continue;
    ++partial;
    largest = std::max(largest, n < 0 ? 9.3e18 : static_cast<double>(n));
  }
  if (partial == 0) return;
  std::ostringstream big;
  big.precision(2);
  big << largest;
  std::cerr << "sparsemap: --algo exhaustive: " << partial << " of " << gemm
            << " layers have more points than --budget " << o.budget << " (up to "
            << (largest >= 9.3e18 ? "more than 9.2e+18" : big.str())
            << "): their scan is partial, not an optimum\n";
}

void run_map(const MapArgs& a) {
  search::MpiSession mpi;  // before any thread; only the root prints and writes
  const bool root = mpi.is_root();
  mp::MapperOptions o = mapper_options(a);
  const arch::Arch hw = io::load_arch(a.hw);
  std::string model_name;
  const std::vector<workload::Layer> layers = load_layers(a, root, model_name);

  if (root && o.algo == "exhaustive") note_partial_exhaustive(layers, hw, o);
  const bool bar = root && !a.quiet && isatty(2);
  if (bar) o.progress = print_search_progress;
  const auto t0 = std::chrono::steady_clock::now();
  const mp::ModelOutcome res = mp::map_layers(layers, hw, o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (bar) std::fprintf(stderr, "\n");
  if (!root) return;

  const std::vector<Ref> refs =
      a.compare ? reference_costs(a, res, hw, o.sparsity) : std::vector<Ref>{};
  const Totals tot = totals(res, refs, hw);
  const Report report{a, o, res, refs, tot, hw, model_name};
  if (a.json != "-") {
    print_summary(report, wall);
    print_layers(report);
    if (o.warm_start) {
      const WarmStartSums w = warm_start_sums(res, o.budget);
      if (w.layers)
        std::cout << "warm-start: samples to reach the cold search's best, summed over " << w.layers
                  << " distinct layers: cold " << with_commas(w.cold) << ", warm "
                  << with_commas(w.warm) << " (" << w.faster << " layers faster)\n";
    }
  }
  write_outputs(a, res, hw, model_name);
  if (a.json.empty()) return require_some_feasible(res, a.hw);
  write_json(map_json(report), a.json);
  require_some_feasible(res, a.hw);
}

}  // namespace

void register_map(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "map", "Search the best mapping of every layer of a model (GAMMA or a baseline optimiser)");
  auto a = std::make_shared<MapArgs>();
  cmd->add_option("--model", a->model, "Zoo model name or model file (.m, .csv, .onnx)");
  cmd->add_option("--mapping", a->mapping, "MAESTRO .m file: its layers (dataflows ignored)");
  cmd->add_option("--hw", a->hw,
                  "Accelerator: a preset name, a MAESTRO .m file, a YAML file, or a Timeloop "
                  "architecture (.yaml with its constraints, or a parsed-processed-input.yaml)")
      ->required();
  auto t = std::make_shared<TimeloopMapArgs>();
  cmd->add_option("--ert", t->ert,
                  "Timeloop architecture: its Accelergy ERT (default: the *ERT.yaml beside it)");
  cmd->add_option("--emit-timeloop", t->emit_dir,
                  "Timeloop architecture: write each layer's best mapping as DIR/<layer>.map.yaml");
  cmd->add_option("--exhaustive-limit", t->exhaustive_limit,
                  "Timeloop architecture, --algo auto: enumerate map spaces of at most this many "
                  "points");
  cmd->add_option("--algo", a->algo,
                  "gamma, ga, random, sa, de, pso, cmaes, oneplusone, bo, exhaustive");
  cmd->add_option("--budget", a->budget, "Samples (cost evaluations) per distinct layer");
  cmd->add_option("--objective", a->objective, "latency, energy, edp or throughput");
  cmd->add_option("--seed", a->seed, "Random seed");
  cmd->add_option("--threads", a->threads, "Evaluation threads (results do not depend on it)");
  cmd->add_option("--levels", a->levels, "Maximum cluster levels (1 to 4)");
  cmd->add_flag("--divisors-only", a->divisors_only, "Only tiles that divide their parent");
  cmd->add_flag("--maestro-compatible", a->maestro_compatible,
                "Only mappings MAESTRO runs as written (R, S untiled), for --emit-m");
  cmd->add_option("--constraint", a->constraint, "none, nvdla, eyeriss or shidiannao");
  cmd->add_option("--population", a->population, "GA population (0: from the budget)");
  cmd->add_option("--mutation-rate", a->mutation_rate, "GAMMA's per-level operator rate");
  cmd->add_flag("--warm-start", a->warm_start,
                "Seed each search with the best mappings of the most similar layers");
  cmd->add_option("--mapping-db", a->mapping_db, "Warm-start also from this mapping DB (JSON)");
  cmd->add_option("--spatial-seeds", a->spatial_seeds,
                  "Open each search with this many of the layer's best spreads over the PEs "
                  "(counted samples; docs/codesign.md)");
  cmd->add_option("--mapping-db-out", a->mapping_db_out, "Write the best mappings as a DB");
  cmd->add_option("--density", a->density, "Tensor densities: W=0.5 or a range W=0.2:0.8");
  cmd->add_option("--structure", a->structure, "Sparsity structure: W=nm:2:4, W=cvse:8, ...");
  cmd->add_option("--sparse-mode", a->sparse_mode, "gate or skip");
  cmd->add_flag("--worst-case", a->worst_case,
                "With a density range: optimise the worst density, not the mean");
  cmd->add_option("--checkpoint", a->checkpoint, "Write the run's state to FILE (and FILE.search)");
  cmd->add_option("--checkpoint-every", a->checkpoint_every, "Samples between search checkpoints");
  cmd->add_option("--resume", a->resume, "Continue a run from its checkpoint FILE");
  cmd->add_option("--json", a->json, "Write JSON to FILE, or - for stdout");
  cmd->add_option("--emit-m", a->emit_m, "Write the mapped network as MAESTRO files into DIR");
  cmd->add_flag("--compare-dataflows", a->compare,
                "Also evaluate the built-in kcp_ws, xp_ws, yxp_os templates (same buffer rule)");
  cmd->add_flag("--quiet", a->quiet, "No progress bar");
  cmd->add_flag("--wide", a->wide,
                "Every column of the per-layer table (PEs; each template's cycles and nJ), wider "
                "than 120 columns");
  add_zoo_options(cmd, a->zoo);
  cmd->callback([a, t, cmd] {
    if (!is_timeloop_arch_file(a->hw)) return run_map(*a);
    refuse_flags(
        cmd,
        {"--mapping", "--levels", "--divisors-only", "--maestro-compatible", "--constraint",
         "--mapping-db", "--spatial-seeds", "--mapping-db-out", "--density", "--structure",
         "--sparse-mode", "--worst-case", "--emit-m", "--compare-dataflows", "--wide"},
        "applies to MAESTRO-class accelerators: expected it without a Timeloop architecture");
    t->hw = a->hw;
    t->model = a->model;
    if (cmd->count("--algo")) t->algo = a->algo;
    if (cmd->count("--budget")) t->budget = a->budget;
    t->objective = a->objective;
    t->objective_given = cmd->count("--objective") > 0;
    t->seed = a->seed;
    t->threads = a->threads;
    t->checkpoint = a->checkpoint;
    t->resume = a->resume;
    if (cmd->count("--checkpoint-every")) t->checkpoint_every = a->checkpoint_every;
    t->json = a->json;
    t->quiet = a->quiet;
    t->zoo = a->zoo;
    run_map_timeloop(*t);
  });
}

}  // namespace sparsemap::cli
