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
#include "sparsemap/dse/mapper/spatial.h"
#include "sparsemap/error.h"
#include "sparsemap/io/util.h"
#include "sparsemap/search/mpi.h"
#include "sparsemap/workload/shape_key.h"

namespace sparsemap::dse::mapper {
namespace {

using nlohmann::json;

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

using workload::shape_key;

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

// An integer field of a file a user gives (mapping DB, checkpoint): a JSON integer, else
// json::type_error. get<int64_t>() would convert a float such as 1e19 with undefined behaviour.
int64_t json_int(const json& v) {
  if (!v.is_number_integer()) throw json::type_error::create(302, "expected an integer", &v);
  return v.get<int64_t>();
}

std::vector<int64_t> json_ints(const json& v) {
  if (!v.is_array()) throw json::type_error::create(302, "expected an array of integers", &v);
  std::vector<int64_t> out;
  for (const json& x : v) out.push_back(json_int(x));
  return out;
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
    int64_t product = 1;
    for (size_t i = 0; i < l.dims.size(); ++i) {
      l.dims[i] = json_int(d[i]);
      if (l.dims[i] < 1) throw InputError({file, 0, 0}, "layer dimensions must be positive");
      if (__builtin_mul_overflow(product, l.dims[i], &product) || product > (int64_t{1} << 62))
        throw InputError({file, 0, 0},
                         "layer '" + l.name + "' is too large: its dimensions multiply past 2^62");
    }
    l.stride = {json_int(j.at("stride").at(0)), json_int(j.at("stride").at(1))};
    l.pad = {json_int(j.at("pad").at(0)), json_int(j.at("pad").at(1))};
    l.dilation = {json_int(j.at("dilation").at(0)), json_int(j.at("dilation").at(1))};
    if (l.stride.y < 1 || l.stride.x < 1 || l.dilation.y < 1 || l.dilation.x < 1 || l.pad.y < 0 ||
        l.pad.x < 0)
      throw InputError({file, 0, 0}, "bad stride, pad or dilation in the mapping DB");
    return l;
  } catch (const json::exception&) {
    throw InputError({file, 0, 0},
                     "expected a mapping DB layer: name and kind (strings), dims (9 integers), "
                     "stride, pad and dilation (2 integers each)");
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
  // A finished task of a checkpoint, checked against its search: `dims` genes in [0, 1] (a
  // finished search always has a best, feasible or not), counts within [-1, budget]. Throws
  // InputError at `file`.
  static TaskResult from_json(const json& j, size_t dims, int64_t budget, const std::string& file,
                              size_t index) {
    auto fail = [&](const std::string& what) -> InputError {
      return InputError({file, 0, 0}, "finished task " + std::to_string(index) + ": " + what);
    };
    if (!j.is_object()) throw fail("expected an object");
    auto count = [&](const char* key, int64_t lo) {
      if (!j.contains(key) || !j[key].is_number_integer())
        throw fail(std::string("expected an integer '") + key + "'");
      const int64_t v = j[key].get<int64_t>();
      if (v < lo || v > budget)
        throw fail(std::string("'") + key + "' = " + std::to_string(v) + " is outside [" +
                   std::to_string(lo) + ", " + std::to_string(budget) + "]");
      return v;
    };
    TaskResult r;
    r.samples = count("samples", 1);
    r.samples_to_5pct = count("samples_to_5pct", -1);
    r.samples_to_best = count("samples_to_best", -1);
    r.samples_to_cold = count("samples_to_cold", -1);
    if (!j.contains("best_fitness") || !j["best_fitness"].is_number())
      throw fail("expected a number 'best_fitness'");
    r.best_fitness = j["best_fitness"].get<double>();
    if (!j.contains("best") || !j["best"].is_array()) throw fail("expected an array 'best'");
    for (const json& g : j["best"]) {
      if (!g.is_number() || !(g.get<double>() >= 0.0 && g.get<double>() <= 1.0))
        throw fail("'best' holds a gene that is not a number in [0, 1]");
      r.best.push_back(g.get<double>());
    }
    if (r.best.size() != dims)
      throw fail("'best' has " + std::to_string(r.best.size()) + " genes, expected " +
                 std::to_string(dims) + " (a checkpoint of another search)");
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
          {"spatial_seeds", o.spatial_seeds},
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
      const int64_t parallel = json_int(x.at("parallel"));
      const std::vector<int64_t> ord = json_ints(x.at("order"));
      const std::vector<int64_t> tiles = json_ints(x.at("tiles"));
      if (ord.size() != kSlots || tiles.size() != kSlots || parallel < 0 || parallel >= kSlots)
        throw InputError({"<mapping DB>", 0, 0}, "expected 6 slots per level");
      d.parallel[l] = static_cast<int>(parallel);
      std::vector<bool> seen(kSlots, false);
      for (int s = 0; s < kSlots; ++s) {
        if (ord[s] < 0 || ord[s] >= kSlots || seen[ord[s]] || tiles[s] < 1)
          throw InputError({"<mapping DB>", 0, 0}, "bad loop order or tile");
        seen[ord[s]] = true;
        d.order[l][s] = static_cast<int>(ord[s]);
        d.tile[l][s] = tiles[s];
      }
      d.cluster[l] = json_int(x.at("cluster"));
      if (d.cluster[l] < 0) throw InputError({"<mapping DB>", 0, 0}, "expected a cluster >= 0");
    }
  } catch (const json::exception&) {
    throw InputError({"<mapping DB>", 0, 0},
                     "expected levels of parallel (integer), order and tiles (6 integers each) "
                     "and cluster (integer)");
  }
  return d;
}

std::vector<DbEntry> read_mapping_db(const std::string& path) {
  const json j = io::read_json(path, "a mapping DB (written by map --mapping-db-out)");
  if (!j.is_object() || !j.contains("mappings") || !j["mappings"].is_array())
    throw InputError({path, 0, 0}, "expected {\"mappings\": [...]} (map --mapping-db-out)");
  std::vector<DbEntry> db;
  for (const json& e : j["mappings"]) {
    if (!e.is_object() || !e.contains("layer") || !e.contains("levels"))
      throw InputError({path, 0, 0}, "expected entries with \"layer\" and \"levels\"");
    try {
      db.push_back({layer_from_json(e["layer"], path), decoded_from_json(e["levels"])});
    } catch (const InputError& err) {  // decoded_from_json knows no file
      throw InputError({path, 0, 0}, "mapping " + std::to_string(db.size()) + ": " + err.message());
    }
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

namespace {

void check_options(const MapperOptions& o) {
  check_algo(o.algo);
  if (!(o.mutation_rate >= 0.0 && o.mutation_rate <= 1.0))
    throw InputError({"<flag --mutation-rate>", 0, 0},
                     "expected a rate in [0, 1], found " + std::to_string(o.mutation_rate));
  if (o.threads < 1 || o.threads > search::kMaxThreads)
    throw InputError({"<flag --threads>", 0, 0},
                     "expected 1 to " + std::to_string(search::kMaxThreads) + " threads, found " +
                         std::to_string(o.threads));
  if (o.budget < 1 || o.budget > search::kMaxBudget)
    throw InputError({"<flag --budget>", 0, 0}, "expected a budget in [1, " +
                                                    std::to_string(search::kMaxBudget) +
                                                    "] samples, found " + std::to_string(o.budget));
}

// The GEMM-class layers as outcomes (the others listed as skipped), each pointing at its
// distinct shape; returns the distinct shapes in first-seen order.
std::vector<const workload::Layer*> distinct_layers(const std::vector<workload::Layer>& layers,
                                                    ModelOutcome& out) {
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
  return uniq;
}

// The searches to run, in order: per distinct layer a cold twin (warm start compared), the main
// search, and one search alone per density point (a density range's regret).
struct TaskList {
  std::vector<Task> tasks;
  std::vector<int> main_task, cold_task;     // per distinct layer; -1: none
  std::vector<std::vector<int>> alone_task;  // per distinct layer, per density point
};

TaskList task_list(size_t unique, const MapperOptions& o, size_t points) {
  TaskList tl;
  const bool ranged = points > 1;
  for (size_t u = 0; u < unique; ++u) {
    if (o.warm_start && o.warm_compare) tl.tasks.push_back({Task::Cold, u, 0});
    tl.tasks.push_back({Task::Main, u, 0});
    if (ranged && o.regret)
      for (int p = 0; p < static_cast<int>(points); ++p) tl.tasks.push_back({Task::Alone, u, p});
  }
  tl.main_task.assign(unique, -1);
  tl.cold_task.assign(unique, -1);
  tl.alone_task.resize(unique);
  for (size_t t = 0; t < tl.tasks.size(); ++t) {
    const Task& k = tl.tasks[t];
    if (k.kind == Task::Main) tl.main_task[k.unique] = static_cast<int>(t);
    if (k.kind == Task::Cold) tl.cold_task[k.unique] = static_cast<int>(t);
    if (k.kind == Task::Alone) tl.alone_task[k.unique].push_back(static_cast<int>(t));
  }
  return tl;
}

// The finished tasks of the checkpoint --resume names, checked against this run.
std::vector<TaskResult> resume_done(const MapperOptions& o, const json& fp,
                                    const std::vector<Task>& tasks,
                                    const std::vector<MapSpace>& spaces, int64_t budget) {
  std::vector<TaskResult> done;
  if (o.checkpoint_file.empty())
    throw InputError({"<flag --resume>", 0, 0}, "expected a checkpoint file");
  const std::string& f = o.checkpoint_file;
  const json j = io::read_json(f, "a map checkpoint (written by map --checkpoint)");
  if (!j.is_object() || !j.contains("kind") || j["kind"] != kCheckpointKind)
    throw InputError({f, 0, 0},
                     "not a map checkpoint (expected \"kind\": \"" + kCheckpointKind + "\")");
  if (!j.contains("fingerprint"))
    throw InputError({f, 0, 0}, "the checkpoint has no \"fingerprint\" of its run");
  if (j["fingerprint"] != fp)
    throw InputError({f, 0, 0},
                     "the checkpoint belongs to another run (model, accelerator or options "
                     "differ); resume with the same flags");
  if (!j.contains("done") || !j["done"].is_array())
    throw InputError({f, 0, 0}, "expected a \"done\" array of finished tasks");
  if (j["done"].size() > tasks.size())
    throw InputError({f, 0, 0}, "the checkpoint has " + std::to_string(j["done"].size()) +
                                    " finished tasks; this run has " +
                                    std::to_string(tasks.size()));
  for (const json& t : j["done"])
    done.push_back(
        TaskResult::from_json(t, spaces[tasks[done.size()].unique].dims(), budget, f, done.size()));
  return done;
}

// Warm-start seeds of a main search: the best mappings of the most similar layers searched
// before (and of the mapping DB), each as it was (clamped) and scaled by the ratio of extents.
std::vector<search::Genome> warm_seeds(const Task& k, const std::vector<MapSpace>& spaces,
                                       const std::vector<MapSpace>& db_spaces,
                                       const std::vector<TaskResult>& done, const TaskList& tl,
                                       const MapperOptions& o) {
  const MapSpace& space = spaces[k.unique];
  struct Src {
    double dist;
    const MapSpace* space;
    MapSpace::Decoded dec;
  };
  std::vector<Src> src;
  for (size_t u = 0; u < k.unique; ++u) {
    const TaskResult& r = done[static_cast<size_t>(tl.main_task[u])];
    if (r.best_fitness >= search::kInfeasible) continue;
    src.push_back({layer_distance(space, spaces[u]), &spaces[u], spaces[u].decode_raw(r.best)});
  }
  for (size_t i = 0; i < db_spaces.size(); ++i) {
    size_t j = 0, n = 0;  // the i-th GEMM-class DB entry
    for (; j < o.mapping_db.size(); ++j)
      if (workload::is_gemm_class(o.mapping_db[j].layer.kind) && n++ == i) break;
    src.push_back({layer_distance(space, db_spaces[i]), &db_spaces[i], o.mapping_db[j].decoded});
  }
  std::stable_sort(src.begin(), src.end(),
                   [](const Src& a, const Src& b) { return a.dist < b.dist; });
  if (static_cast<int>(src.size()) > o.warm_sources)
    src.resize(static_cast<size_t>(o.warm_sources));
  std::vector<search::Genome> seeds;
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
  return seeds;
}

// The state map_layers' searches share.
struct RunContext {
  const MapperOptions& o;
  const std::vector<MapSpace>& spaces;
  const std::vector<MapSpace>& db_spaces;
  const std::vector<cost::SparsityOptions>& points;
  const FitnessSpec& robust;
  const TaskList& tl;
  const search::Evaluator& eval;
  int64_t budget;
  size_t unique;
  std::string search_file;  // the search in progress ("" without a checkpoint)
};

// Runs task t (resuming its search from the .search file when it is the first task left of a
// resumed run) and returns what it found.
TaskResult run_task(const RunContext& c, size_t t, const std::vector<TaskResult>& done) {
  const MapperOptions& o = c.o;
  const Task& k = c.tl.tasks[t];
  const MapSpace& space = c.spaces[k.unique];
  std::vector<search::Genome> seeds;
  if (k.kind == Task::Main && o.warm_start)
    seeds = warm_seeds(k, c.spaces, c.db_spaces, done, c.tl, o);
  for (search::Genome& g : spatial_seeds(space, o.spatial_seeds, true))
    seeds.push_back(std::move(g));
  FitnessSpec spec = c.robust;
  if (k.kind == Task::Alone) spec.sparsity = {c.points[static_cast<size_t>(k.point)]};
  const uint64_t seed = mix(
      o.seed ^ mix(k.unique * 4 + static_cast<uint64_t>(k.kind == Task::Alone ? 2 + k.point : 0)));
  size_t batch = 64;
  auto opt = make_opt(space, o, c.budget, seed, seeds, &batch);
  search::SearchOptions so;
  so.budget = c.budget;
  so.batch = batch;
  so.checkpoint_file = c.search_file;
  so.checkpoint_every = o.checkpoint_every;
  so.resume_file = c.search_file;
  if (o.progress) {
    const size_t u = k.unique, n = c.unique;
    const int64_t budget = c.budget;
    so.progress = [&o, u, n, budget](int64_t s, double best) { o.progress(u, n, s, budget, best); };
  }
  json resume_state;
  const json* resume = nullptr;
  if (o.resume && t == done.size() && !c.search_file.empty() &&
      std::filesystem::exists(c.search_file)) {
    resume_state = search::read_checkpoint(c.search_file);
    resume = &resume_state;
  }
  const search::SearchResult sr = search::run_search(
      *opt, c.eval, [&](const search::Genome& g) { return fitness(space, g, spec); }, so, resume);
  TaskResult r;
  r.best = sr.best;
  r.best_fitness = sr.best_fitness;
  r.samples = sr.samples;
  const bool feasible = sr.best_fitness < search::kInfeasible;
  r.samples_to_5pct = feasible ? sr.samples_to_within(sr.best_fitness, 0.05) : -1;
  r.samples_to_best = feasible ? sr.samples_to_within(sr.best_fitness, 0.0) : -1;
  if (k.kind == Task::Main && c.tl.cold_task[k.unique] >= 0) {
    const double target = done[static_cast<size_t>(c.tl.cold_task[k.unique])].best_fitness;
    r.samples_to_cold = target < search::kInfeasible ? sr.samples_to_within(target, 0.0) : -1;
  }
  if (o.keep_history) r.history = sr.history;
  return r;
}

// A layer's outcome from its tasks: the main search's mapping evaluated with the buffers
// enforced, the cold twin's figures, and per density point the robust mapping's regret against
// the search at that point alone.
void fill_outcome(const RunContext& c, const arch::Arch& arch, const std::vector<TaskResult>& done,
                  LayerOutcome& lo) {
  const MapperOptions& o = c.o;
  const MapSpace& space = c.spaces[lo.unique];
  const TaskResult& r = done[static_cast<size_t>(c.tl.main_task[lo.unique])];
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
  if (c.tl.cold_task[lo.unique] >= 0) {
    const TaskResult& cold = done[static_cast<size_t>(c.tl.cold_task[lo.unique])];
    lo.cold_fitness = cold.best_fitness;
    lo.cold_samples_to_target = cold.samples_to_best;
    lo.warm_samples_to_target = r.samples_to_cold;
  }
  for (size_t p = 0; p < c.tl.alone_task[lo.unique].size(); ++p) {
    const TaskResult& a = done[static_cast<size_t>(c.tl.alone_task[lo.unique][p])];
    LayerOutcome::DensityRegret d;
    const cost::SparsityOptions& sp = c.points[p];
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

}  // namespace

ModelOutcome map_layers(const std::vector<workload::Layer>& layers, const arch::Arch& arch,
                        const MapperOptions& o) {
  check_options(o);
  ModelOutcome out;
  const std::vector<const workload::Layer*> uniq = distinct_layers(layers, out);
  std::vector<MapSpace> spaces;
  spaces.reserve(uniq.size());
  for (const auto* l : uniq) spaces.emplace_back(*l, arch, o.space);
  std::vector<MapSpace> db_spaces;
  for (const DbEntry& e : o.mapping_db)
    if (workload::is_gemm_class(e.layer.kind)) db_spaces.emplace_back(e.layer, arch, o.space);

  const std::vector<cost::SparsityOptions> points = density_points(o.sparsity);
  const FitnessSpec robust{o.objective, points, o.worst_case};
  const int64_t budget = o.algo == "bo" ? std::min(o.budget, search::kBoSampleCap) : o.budget;
  const TaskList tl = task_list(uniq.size(), o, points.size());

  const json fp = fingerprint(uniq, arch, o);
  std::vector<TaskResult> done;
  if (o.resume) done = resume_done(o, fp, tl.tasks, spaces, budget);
  const search::Evaluator eval(o.threads);
  const RunContext c{o,           spaces,
                     db_spaces,   points,
                     robust,      tl,
                     eval,        budget,
                     uniq.size(), o.checkpoint_file.empty() ? "" : o.checkpoint_file + ".search"};
  auto save = [&]() {
    if (o.checkpoint_file.empty()) return;
    json d = json::array();
    for (const TaskResult& r : done) d.push_back(r.to_json());
    write_root({{"kind", kCheckpointKind}, {"fingerprint", fp}, {"done", d}}, o.checkpoint_file);
  };
  if (!o.resume && !o.checkpoint_file.empty()) {  // a fresh run: no stale search state
    remove_root(c.search_file);
    save();
  }
  for (size_t t = done.size(); t < tl.tasks.size(); ++t) {
    done.push_back(run_task(c, t, done));
    // Order matters for a kill at any point: the finished search's state goes first, then the
    // list of finished tasks is written.
    if (!c.search_file.empty()) remove_root(c.search_file);
    save();
  }
  for (LayerOutcome& lo : out.layers) fill_outcome(c, arch, done, lo);
  return out;
}

}  // namespace sparsemap::dse::mapper
