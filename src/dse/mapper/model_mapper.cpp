// Whole-model mapping search: distinct layers, tasks, warm-start, density ranges, checkpoints.
#include "sparsemap/dse/mapper/model_mapper.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/mapper/gamma_ops.h"
#include "sparsemap/error.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::dse::mapper {
namespace {

using nlohmann::json;

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// What identifies a layer's shape (everything but its name).
std::string shape_key(const workload::Layer& l) {
  std::ostringstream os;
  os << static_cast<int>(l.kind);
  for (int64_t d : l.dims) os << ',' << d;
  os << ';' << l.stride.y << ',' << l.stride.x << ';' << l.pad.y << ',' << l.pad.x << ';'
     << l.dilation.y << ',' << l.dilation.x;
  return os.str();
}

json layer_to_json(const workload::Layer& l) {
  json dims = json::array();
  for (int64_t d : l.dims) dims.push_back(d);
  return {{"name", l.name},
          {"kind", std::string(workload::op_kind_name(l.kind))},
          {"dims", dims},
          {"stride", {l.stride.y, l.stride.x}},
          {"pad", {l.pad.y, l.pad.x}},
          {"dilation", {l.dilation.y, l.dilation.x}}};
}

workload::Layer layer_from_json(const json& j, const std::string& file) {
  try {
    workload::Layer l;
    l.name = j.at("name").get<std::string>();
    const auto k = workload::op_kind_from_name(j.at("kind").get<std::string>());
    if (!k) throw InputError({file, 0, 0}, "unknown layer kind in the mapping DB");
    l.kind = *k;
    const auto& d = j.at("dims");
    if (!d.is_array() || d.size() != l.dims.size())
      throw InputError({file, 0, 0}, "expected 9 dims per layer in the mapping DB");
    for (size_t i = 0; i < l.dims.size(); ++i) {
      l.dims[i] = d[i].get<int64_t>();
      if (l.dims[i] < 1) throw InputError({file, 0, 0}, "layer dimensions must be positive");
    }
    l.stride = {j.at("stride")[0].get<int64_t>(), j.at("stride")[1].get<int64_t>()};
    l.pad = {j.at("pad")[0].get<int64_t>(), j.at("pad")[1].get<int64_t>()};
    l.dilation = {j.at("dilation")[0].get<int64_t>(), j.at("dilation")[1].get<int64_t>()};
    if (l.stride.y < 1 || l.stride.x < 1 || l.dilation.y < 1 || l.dilation.x < 1 || l.pad.y < 0 ||
        l.pad.x < 0)
      throw InputError({file, 0, 0}, "bad stride, pad or dilation in the mapping DB");
    return l;
  } catch (const json::exception& e) {
    throw InputError({file, 0, 0}, std::string("not a mapping DB layer: ") + e.what());
  }
}

const std::string kCheckpointKind = "sparsemap-map-checkpoint";

// One search of a run: the main search of a distinct layer, its cold twin (warm-start
// comparison), or a search for one density point alone (regret).
struct Task {
  enum Kind { Cold, Main, Alone } kind = Main;
  size_t unique = 0;
  int point = 0;  // Alone: density point
};

struct TaskResult {
  search::Genome best;
  double best_fitness = search::kInfeasible;
  int64_t samples = 0;
  int64_t samples_to_5pct = -1;
  int64_t samples_to_best = -1;  // samples until this search's own best was first reached
  int64_t samples_to_cold = -1;  // Main with a cold twin: samples to reach the cold best
  std::vector<double> history;   // in memory only
  json to_json() const {
    return {{"best", best},
            {"best_fitness", best_fitness},
            {"samples", samples},
            {"samples_to_5pct", samples_to_5pct},
            {"samples_to_best", samples_to_best},
            {"samples_to_cold", samples_to_cold}};
  }
  static TaskResult from_json(const json& j) {
    TaskResult r;
    r.best = j.at("best").get<search::Genome>();
    r.best_fitness = j.at("best_fitness").get<double>();
    r.samples = j.at("samples").get<int64_t>();
    r.samples_to_5pct = j.at("samples_to_5pct").get<int64_t>();
    r.samples_to_best = j.at("samples_to_best").get<int64_t>();
    r.samples_to_cold = j.at("samples_to_cold").get<int64_t>();
    return r;
  }
};

std::unique_ptr<search::Optimizer> make_opt(const MapSpace& space, const MapperOptions& o,
                                            int64_t budget, uint64_t seed,
                                            const std::vector<search::Genome>& seeds,
                                            size_t* batch) {
  search::OptimizerOptions oo;
  oo.seed = seed;
  oo.budget = budget;
  oo.ga.population =
      o.population ? o.population : static_cast<size_t>(std::clamp<int64_t>(budget / 25, 20, 100));
  const size_t elites = static_cast<size_t>(
      std::llround(oo.ga.elite_fraction * static_cast<double>(oo.ga.population)));
  *batch = 64;
  if (o.algo == "gamma") {
    oo.ga.ops = std::make_shared<GammaOperators>(space.options().max_levels, seeds);
    oo.ga.mutation_rate = o.mutation_rate;
    *batch = std::max<size_t>(1, oo.ga.population - elites);
    return search::make_optimizer("ga", space.dims(), oo);
  }
  oo.seeds = seeds;
  if (o.algo == "ga") *batch = std::max<size_t>(1, oo.ga.population - elites);
  if (o.algo == "exhaustive")
    return search::make_optimizer("exhaustive", space.dims(), oo, space.exhaustive_levels());
  return search::make_optimizer(o.algo, space.dims(), oo);
}

json fingerprint(const std::vector<const workload::Layer*>& layers, const arch::Arch& a,
                 const MapperOptions& o) {
  json ls = json::array();
  for (const auto* l : layers) ls.push_back(shape_key(*l));
  json sp = json::array();
  for (int t = 0; t < cost::kNumTensors; ++t) {
    sp.push_back(cost::describe(o.sparsity.tensors[t]));
    sp.push_back(o.sparsity.tensors[t].density_lo);
  }
  sp.push_back(static_cast<int>(o.sparsity.mode));
  return {{"algo", o.algo},
          {"budget", o.budget},
          {"seed", o.seed},
          {"objective", objective_name(o.objective)},
          {"levels", o.space.max_levels},
          {"divisors_only", o.space.divisors_only},
          {"fixed_order", o.space.fixed_order},
          {"maestro_compatible", o.space.maestro_compatible},
          {"constraint", constraint_name(o.space.constraint)},
          {"sparsity", sp},
          {"worst_case", o.worst_case},
          {"regret", o.regret},
          {"warm_start", o.warm_start},
          {"warm_compare", o.warm_compare},
          {"warm_sources", o.warm_sources},
          {"mapping_db", o.mapping_db.size()},
          {"population", o.population},
          {"mutation_rate", o.mutation_rate},
          {"arch",
           {a.name, a.num_pes, a.l1_bytes, a.l2_bytes, a.noc_words_per_cycle,
            a.offchip_words_per_cycle}},
          {"layers", ls}};
}

// Writes only on the MPI root; every rank reads.
void write_root(const json& j, const std::string& path) {
  if (search::mpi_rank() == 0) search::write_json_atomic(j, path);
}
void remove_root(const std::string& path) {
  if (search::mpi_rank() == 0) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
}

}  // namespace

const std::vector<std::string>& mapper_algos() {
  static const std::vector<std::string> a = {"gamma", "ga",    "random",     "sa", "de",
                                             "pso",   "cmaes", "oneplusone", "bo", "exhaustive"};
  return a;
}

void check_algo(const std::string& algo) {
  const auto& a = mapper_algos();
  if (std::find(a.begin(), a.end(), algo) != a.end()) return;
  std::string names;
  for (const auto& n : a) names += (names.empty() ? "" : ", ") + n;
  throw InputError({"<flag --algo>", 0, 0},
                   "unknown algorithm '" + algo + "'; expected one of: " + names);
}

json decoded_to_json(const MapSpace::Decoded& d) {
  json levels = json::array();
  for (int l = 0; l < d.levels; ++l)
    levels.push_back({{"parallel", d.parallel[l]},
                      {"order", std::vector<int>(d.order[l].begin(), d.order[l].end())},
                      {"tiles", std::vector<int64_t>(d.tile[l].begin(), d.tile[l].end())},
                      {"cluster", d.cluster[l]}});
  return levels;
}

MapSpace::Decoded decoded_from_json(const json& j) {
  MapSpace::Decoded d;
  try {
    if (!j.is_array() || j.empty() || j.size() > 4)
      throw InputError({"<mapping DB>", 0, 0}, "expected 1 to 4 levels");
    d.levels = static_cast<int>(j.size());
    for (int l = 0; l < d.levels; ++l) {
      const json& x = j[static_cast<size_t>(l)];
      d.parallel[l] = x.at("parallel").get<int>();
      const auto ord = x.at("order").get<std::vector<int>>();
      const auto tiles = x.at("tiles").get<std::vector<int64_t>>();
      if (ord.size() != kSlots || tiles.size() != kSlots || d.parallel[l] < 0 ||
          d.parallel[l] >= kSlots)
        throw InputError({"<mapping DB>", 0, 0}, "expected 6 slots per level");
      std::vector<bool> seen(kSlots, false);
      for (int s = 0; s < kSlots; ++s) {
        if (ord[s] < 0 || ord[s] >= kSlots || seen[ord[s]] || tiles[s] < 1)
          throw InputError({"<mapping DB>", 0, 0}, "bad loop order or tile");
        seen[ord[s]] = true;
        d.order[l][s] = ord[s];
        d.tile[l][s] = tiles[s];
      }
      d.cluster[l] = x.at("cluster").get<int64_t>();
    }
  } catch (const json::exception& e) {
    throw InputError({"<mapping DB>", 0, 0}, std::string("not a mapping: ") + e.what());
  }
  return d;
}

std::vector<DbEntry> read_mapping_db(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError({path, 0, 0}, "cannot read the mapping DB");
  json j;
  try {
    in >> j;
  } catch (const json::exception&) {
    throw InputError({path, 0, 0}, "expected a JSON mapping DB (written by map --mapping-db-out)");
  }
  if (!j.is_object() || !j.contains("mappings") || !j["mappings"].is_array())
    throw InputError({path, 0, 0}, "expected {\"mappings\": [...]} (map --mapping-db-out)");
  std::vector<DbEntry> db;
  for (const json& e : j["mappings"]) {
    if (!e.is_object() || !e.contains("layer") || !e.contains("levels"))
      throw InputError({path, 0, 0}, "expected entries with \"layer\" and \"levels\"");
    db.push_back({layer_from_json(e["layer"], path), decoded_from_json(e["levels"])});
  }
  return db;
}

void write_mapping_db(const std::vector<DbEntry>& db, const std::string& path) {
  json arr = json::array();
  for (const DbEntry& e : db)
    arr.push_back({{"layer", layer_to_json(e.layer)}, {"levels", decoded_to_json(e.decoded)}});
  std::ofstream out(path);
  if (!out || !(out << json{{"mappings", arr}}.dump(1) << "\n"))
    throw InputError({path, 0, 0}, "cannot write the mapping DB");
}

double layer_distance(const MapSpace& a, const MapSpace& b) {
  double d = a.layer().kind == b.layer().kind ? 0.0 : 10.0;
  for (int s = 0; s < kSlots; ++s)
    d += std::fabs(std::log(static_cast<double>(std::max<int64_t>(1, a.extent(s)))) -
                   std::log(static_cast<double>(std::max<int64_t>(1, b.extent(s)))));
  return d;
}

std::vector<cost::SparsityOptions> density_points(const cost::SparsityOptions& s, int points) {
  bool ranged = false;
  for (const auto& t : s.tensors) ranged |= t.density_lo < t.density;
  if (!ranged || points < 2) return {s};
  std::vector<cost::SparsityOptions> out;
  for (int i = 0; i < points; ++i) {
    const double f = static_cast<double>(i) / (points - 1);
    cost::SparsityOptions p = s;
    for (auto& t : p.tensors)
      if (t.density_lo < t.density) {
        t.density = t.density_lo + f * (t.density - t.density_lo);
        t.density_lo = t.density;
        if (t.structure == cost::Structure::Dense && t.density < 1.0)
          t.structure = cost::Structure::Unstructured;
      }
    out.push_back(p);
  }
  return out;
}

std::string mapping_text(const mapping::Mapping& m) {
  std::string s;
  for (const auto& d : m.directives) s += (s.empty() ? "" : " ") + mapping::to_dfsl(d);
  return s;
}

ModelOutcome map_layers(const std::vector<workload::Layer>& layers, const arch::Arch& arch,
                        const MapperOptions& o) {
  check_algo(o.algo);
  if (o.budget < 1) throw InputError({"<flag --budget>", 0, 0}, "expected a positive budget");
  ModelOutcome out;
  // Distinct shapes.
  std::vector<const workload::Layer*> uniq;
  std::map<std::string, size_t> index;
  for (const workload::Layer& l : layers) {
    if (!workload::is_gemm_class(l.kind)) {
      out.skipped.push_back(l.name + " (" + std::string(workload::op_kind_name(l.kind)) + ")");
      continue;
    }
    LayerOutcome lo;
    lo.layer = l;
    const std::string key = shape_key(l);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, uniq.size()).first;
      uniq.push_back(&l);
    } else {
      lo.reused = true;
    }
    lo.unique = it->second;
    out.layers.push_back(std::move(lo));
  }
  out.unique_layers = uniq.size();
  std::vector<MapSpace> spaces;
  spaces.reserve(uniq.size());
  for (const auto* l : uniq) spaces.emplace_back(*l, arch, o.space);
  std::vector<MapSpace> db_spaces;
  for (const DbEntry& e : o.mapping_db)
    if (workload::is_gemm_class(e.layer.kind)) db_spaces.emplace_back(e.layer, arch, o.space);

  const std::vector<cost::SparsityOptions> points = density_points(o.sparsity);
  const bool ranged = points.size() > 1;
  FitnessSpec robust{o.objective, points, o.worst_case};
  const int64_t budget = o.algo == "bo" ? std::min(o.budget, search::kBoSampleCap) : o.budget;

  // The task list.
  std::vector<Task> tasks;
  for (size_t u = 0; u < uniq.size(); ++u) {
    if (o.warm_start && o.warm_compare) tasks.push_back({Task::Cold, u, 0});
    tasks.push_back({Task::Main, u, 0});
    if (ranged && o.regret)
      for (int p = 0; p < static_cast<int>(points.size()); ++p)
        tasks.push_back({Task::Alone, u, p});
  }

  // Resume.
  const json fp = fingerprint(uniq, arch, o);
  std::vector<TaskResult> done;
  const std::string search_file = o.checkpoint_file.empty() ? "" : o.checkpoint_file + ".search";
  if (o.resume) {
    if (o.checkpoint_file.empty())
      throw InputError({"<flag --resume>", 0, 0}, "expected a checkpoint file");
    const std::string& f = o.checkpoint_file;
    std::ifstream in(f);
    if (!in) throw InputError({f, 0, 0}, "cannot read the checkpoint");
    json j;
    try {
      in >> j;
    } catch (const json::exception&) {
      throw InputError({f, 0, 0}, "not a sparsemap map checkpoint (bad JSON)");
    }
    if (!j.is_object() || j.value("kind", "") != kCheckpointKind)
      throw InputError({f, 0, 0}, "not a sparsemap map checkpoint");
    if (j.at("fingerprint") != fp)
      throw InputError({f, 0, 0},
                       "the checkpoint belongs to another run (model, accelerator or options "
                       "differ); resume with the same flags");
    for (const json& t : j.at("done")) done.push_back(TaskResult::from_json(t));
    if (done.size() > tasks.size()) throw InputError({f, 0, 0}, "checkpoint has too many tasks");
  }

  const search::Evaluator eval(o.threads);
  auto save = [&]() {
    if (o.checkpoint_file.empty()) return;
    json d = json::array();
    for (const TaskResult& r : done) d.push_back(r.to_json());
    write_root({{"kind", kCheckpointKind}, {"fingerprint", fp}, {"done", d}}, o.checkpoint_file);
  };
  std::vector<int> main_task(uniq.size(), -1), cold_task(uniq.size(), -1);
  std::vector<std::vector<int>> alone_task(uniq.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    const Task& k = tasks[t];
    if (k.kind == Task::Main) main_task[k.unique] = static_cast<int>(t);
    if (k.kind == Task::Cold) cold_task[k.unique] = static_cast<int>(t);
    if (k.kind == Task::Alone) alone_task[k.unique].push_back(static_cast<int>(t));
  }

  if (!o.resume && !o.checkpoint_file.empty()) {  // a fresh run: no stale search state
    remove_root(search_file);
    save();
  }
  for (size_t t = done.size(); t < tasks.size(); ++t) {
    const Task& k = tasks[t];
    const MapSpace& space = spaces[k.unique];
    // Warm-start seeds: the best mappings of the most similar layers searched before.
    std::vector<search::Genome> seeds;
    if (k.kind == Task::Main && o.warm_start) {
      struct Src {
        double dist;
        const MapSpace* space;
        MapSpace::Decoded dec;
      };
      std::vector<Src> src;
      for (size_t u = 0; u < k.unique; ++u) {
        const TaskResult& r = done[static_cast<size_t>(main_task[u])];
        if (r.best_fitness >= search::kInfeasible) continue;
        src.push_back({layer_distance(space, spaces[u]), &spaces[u], spaces[u].decode_raw(r.best)});
      }
      for (size_t i = 0; i < db_spaces.size(); ++i) {
        size_t j = 0, n = 0;  // the i-th GEMM-class DB entry
        for (; j < o.mapping_db.size(); ++j)
          if (workload::is_gemm_class(o.mapping_db[j].layer.kind) && n++ == i) break;
        src.push_back(
            {layer_distance(space, db_spaces[i]), &db_spaces[i], o.mapping_db[j].decoded});
      }
      std::stable_sort(src.begin(), src.end(),
                       [](const Src& a, const Src& b) { return a.dist < b.dist; });
      if (static_cast<int>(src.size()) > o.warm_sources)
        src.resize(static_cast<size_t>(o.warm_sources));
      for (const Src& s : src) {
        seeds.push_back(space.encode(s.dec));  // tiles as they were, clamped
        MapSpace::Decoded scaled = s.dec;      // tiles scaled by the ratio of the extents
        for (int l = 0; l < scaled.levels; ++l)
          for (int sl = 0; sl < kSlots; ++sl) {
            const double ratio = static_cast<double>(std::max<int64_t>(1, space.extent(sl))) /
                                 static_cast<double>(std::max<int64_t>(1, s.space->extent(sl)));
            scaled.tile[l][sl] =
                std::max<int64_t>(1, std::llround(static_cast<double>(scaled.tile[l][sl]) * ratio));
          }
        seeds.push_back(space.encode(scaled));
      }
    }
    FitnessSpec spec = robust;
    if (k.kind == Task::Alone) spec.sparsity = {points[static_cast<size_t>(k.point)]};
    const uint64_t seed =
        mix(o.seed ^
            mix(k.unique * 4 + static_cast<uint64_t>(k.kind == Task::Alone ? 2 + k.point : 0)));
    size_t batch = 64;
    auto opt = make_opt(space, o, budget, seed, seeds, &batch);
    search::SearchOptions so;
    so.budget = budget;
    so.batch = batch;
    so.checkpoint_file = search_file;
    so.checkpoint_every = o.checkpoint_every;
    if (o.progress) {
      const size_t u = k.unique, n = uniq.size();
      so.progress = [&o, u, n, budget](int64_t s, double best) {
        o.progress(u, n, s, budget, best);
      };
    }
    json resume_state;
    const json* resume = nullptr;
    if (o.resume && t == done.size() && !search_file.empty() &&
        std::filesystem::exists(search_file)) {
      resume_state = search::read_checkpoint(search_file);
      resume = &resume_state;
    }
    const search::SearchResult sr = search::run_search(
        *opt, eval, [&](const search::Genome& g) { return fitness(space, g, spec); }, so, resume);
    TaskResult r;
    r.best = sr.best;
    r.best_fitness = sr.best_fitness;
    r.samples = sr.samples;
    const bool feasible = sr.best_fitness < search::kInfeasible;
    r.samples_to_5pct = feasible ? sr.samples_to_within(sr.best_fitness, 0.05) : -1;
    r.samples_to_best = feasible ? sr.samples_to_within(sr.best_fitness, 0.0) : -1;
    if (k.kind == Task::Main && cold_task[k.unique] >= 0) {
      const double target = done[static_cast<size_t>(cold_task[k.unique])].best_fitness;
      r.samples_to_cold = target < search::kInfeasible ? sr.samples_to_within(target, 0.0) : -1;
    }
    if (o.keep_history) r.history = sr.history;
    done.push_back(std::move(r));
    // Order matters for a kill at any point: the finished search's state goes first, then the
    // list of finished tasks is written.
    if (!search_file.empty()) remove_root(search_file);
    save();
  }

  // Outcomes.
  for (LayerOutcome& lo : out.layers) {
    const MapSpace& space = spaces[lo.unique];
    const TaskResult& r = done[static_cast<size_t>(main_task[lo.unique])];
    lo.genome = r.best;
    lo.fitness = r.best_fitness;
    lo.decoded = space.decode_raw(r.best);
    lo.mapping = space.to_mapping(lo.decoded);
    cost::EvalOptions eo;
    eo.enforce_buffers = true;
    eo.sparsity = o.sparsity;
    lo.cost = cost::evaluate(lo.layer, arch, lo.mapping, eo);
    if (!lo.reused) {
      lo.samples = r.samples;
      lo.samples_to_5pct = r.samples_to_5pct;
      lo.history = r.history;
    }
    if (cold_task[lo.unique] >= 0) {
      const TaskResult& c = done[static_cast<size_t>(cold_task[lo.unique])];
      lo.cold_fitness = c.best_fitness;
      lo.cold_samples_to_target = c.samples_to_best;
      lo.warm_samples_to_target = r.samples_to_cold;
    }
    for (size_t p = 0; p < alone_task[lo.unique].size(); ++p) {
      const TaskResult& a = done[static_cast<size_t>(alone_task[lo.unique][p])];
      LayerOutcome::DensityRegret d;
      const cost::SparsityOptions& sp = points[p];
      for (const auto& t : sp.tensors)
        if (t.density < 1.0 || t.structure != cost::Structure::Dense) {
          d.density = t.density;
          break;
        }
      cost::EvalOptions e2;
      e2.enforce_buffers = true;
      e2.sparsity = sp;
      d.robust = objective_value(cost::evaluate(lo.layer, arch, lo.mapping, e2), o.objective);
      d.alone = a.best_fitness;
      d.regret = d.alone > 0 && d.alone < search::kInfeasible ? d.robust / d.alone - 1.0 : 0.0;
      lo.regrets.push_back(d);
    }
  }
  return out;
}

}  // namespace sparsemap::dse::mapper
