// `sparsemap nm-study`'s work as a library call: the grid, the resumable results file, one
// training per cell (ml/train), the table over seeds and the JSON (run.h). The plot: plot.cpp.
#include "sparsemap/ml/nm_study/run.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "sparsemap/error.h"
#include "sparsemap/io/util.h"
#include "sparsemap/ml/train/trainer.h"
#include "sparsemap/numbers.h"

namespace sparsemap::ml::nm_study {

namespace {

using train::LayerNm;
using train::parse_nm;
using train::parse_recipe;
using train::recipe_name;
using train::RecipeKind;
using train::TrainOptions;
using train::TrainResult;

// What makes a cell's numbers comparable beyond its key (model/recipe/ratio/seed): recorded in
// the results file, and a file recorded with other settings is refused rather than mixed in.
nlohmann::json study_settings(const Options& a) {
  return {{"quick", a.quick},
          {"vit_epochs", a.vit_epochs > 0 ? a.vit_epochs : (a.quick ? 3 : 15)},
          {"gpt_steps", a.gpt_steps > 0 ? a.gpt_steps : (a.quick ? 300 : 3000)}};
}

// The results so far (a fresh set when `path` does not exist). InputError naming the file when it
// is not a results file, a cell is malformed, or it was recorded with other settings.
nlohmann::json load_results(const std::string& path, const nlohmann::json& settings) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return {{"command", "nm-study"}, {"settings", settings}, {"cells", nlohmann::json::object()}};
  nlohmann::json j = io::read_json(path, "an nm-study results file (written by nm-study)");
  if (!j.is_object() || !j.contains("cells") || !j["cells"].is_object())
    throw InputError({path, 0, 0}, "not an nm-study results file (no \"cells\" object)");
  for (const auto& [key, cell] : j["cells"].items()) {
    if (!cell.is_object())
      throw InputError({path, 0, 0}, "cell " + quote_input(key) + " is not an object");
    if (!cell.contains("metric")) continue;  // a failed cell: run again
    for (const char* k : {"metric", "training_flops", "dense_training_flops"})
      if (!cell.contains(k) || !cell[k].is_number())
        throw InputError({path, 0, 0},
                         "cell " + quote_input(key) + ": expected a number '" + k + "'");
    if (!(cell["dense_training_flops"].get<double>() > 0))
      throw InputError({path, 0, 0},
                       "cell " + quote_input(key) + ": expected dense_training_flops > 0");
  }
  if (!j.contains("settings") && !j["cells"].empty())
    throw InputError({path, 0, 0},
                     "the results record no settings (an older nm-study), so they cannot be told "
                     "apart from this run's; use another --results file");
  if (j.contains("settings") && j["settings"] != settings)
    throw InputError({path, 0, 0}, "the results were recorded with other settings (" +
                                       j["settings"].dump() + ") than this run (" +
                                       settings.dump() +
                                       "); use the same flags or another --results file");
  j["settings"] = settings;
  return j;
}

// The results as JSON (indented by 2, as every --json), written beside `path` then renamed over
// it.
void save_results(const nlohmann::json& j, const std::string& path) {
  const std::string tmp = path + ".tmp";
  const std::string text = j.dump(2) + "\n";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out || !(out << text)) throw InputError({tmp, 0, 0}, "cannot write the JSON file");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw InputError({path, 0, 0}, "cannot write the results");
}

// One training of the grid.
struct Cell {
  std::string model, recipe, nm;  // recipe: its recipe_name; nm: "-" for the dense recipe
  uint64_t seed;
  std::string key() const { return model + "/" + recipe + "/" + nm + "/" + std::to_string(seed); }
};

// The grid: every model x recipe x ratio x seed, the dense recipe once per model and seed (it
// has no ratio).
std::vector<Cell> make_grid(const Result& r, int seeds, uint64_t first_seed) {
  std::vector<Cell> grid;
  for (const std::string& m : r.models)
    for (const std::string& rn : r.recipes)
      for (const std::string& nm : r.ratios) {
        const bool dense = parse_recipe(rn) == RecipeKind::Dense;
        if (dense && nm != r.ratios.front()) continue;
        for (int s = 0; s < seeds; ++s)
          grid.push_back({m, rn, dense ? "-" : nm, first_seed + static_cast<uint64_t>(s)});
      }
  return grid;
}

// The trainer's options for one cell (the dense recipe trains at the first ratio's shapes).
TrainOptions cell_options(const Options& a, const Cell& c, const std::string& first_ratio) {
  TrainOptions o;
  o.model = c.model;
  o.data = c.model == "char-gpt" ? "kjv" : "fashion-mnist";
  o.data_dir = a.data_dir;
  o.recipe.kind = parse_recipe(c.recipe);
  o.recipe.nm = parse_nm(c.nm == "-" ? first_ratio : c.nm);
  o.quick = a.quick;
  o.seed = c.seed;
  // The quick models are small enough that a second thread costs more than it gives.
  o.threads = a.threads > 0 ? a.threads : (a.quick ? 1 : 0);
  if (c.model == "vit-tiny") {
    o.epochs = a.vit_epochs > 0 ? a.vit_epochs : (a.quick ? 3 : 15);
    if (a.quick) {
      o.train_limit = 20000;
      o.test_limit = 5000;
    }
  } else {
    o.steps = a.gpt_steps > 0 ? a.gpt_steps : (a.quick ? 300 : 3000);
    if (a.quick) o.batch = 32;
  }
  o.eval_every = 1000000;  // no intermediate evaluation
  return o;
}

// A cell's training: it stops when the study's observer asks to; its progress is not shown.
class CellObserver : public search::Observer {
 public:
  explicit CellObserver(search::Observer& study) : study_(study) {}
  void on_warning(const std::string& text) override { study_.on_warning(text); }
  bool cancelled() override { return study_.cancelled(); }

 private:
  search::Observer& study_;
};

// Trains one cell: its JSON (the metric, or the error of a cell that failed), and the note.
nlohmann::json run_cell(const Options& a, const Cell& c, const std::string& first_ratio,
                        search::Observer& observer) {
  nlohmann::json cell = {{"model", c.model}, {"recipe", c.recipe}, {"nm", c.nm}, {"seed", c.seed}};
  try {
    CellObserver cell_observer(observer);
    const TrainResult r = train::train(cell_options(a, c, first_ratio), cell_observer);
    bool exact = true;
    for (const LayerNm& l : r.layers) exact = exact && l.exact;
    cell["metric_name"] = r.metric_name;
    cell["metric"] = r.metric;
    cell["train_loss"] = r.train_loss;
    cell["steps"] = r.steps;
    cell["train_s"] = r.train_s;
    cell["training_flops"] = r.training_flops;
    cell["dense_training_flops"] = r.dense_flops;
    cell["nm_exact"] = exact;
    observer.on_note(
        (r.metric_name == "valid_nats_per_char" ? fixed(r.metric, 4) : fixed(r.metric, 2) + "%") +
        " in " + fixed(r.total_s, 1) + " s");
  } catch (const InputError& e) {
    cell["error"] = e.what();
    observer.on_note(std::string("failed: ") + e.what());
  }
  return cell;
}

// Per model, recipe and ratio the mean and spread (max - min) / 2 over seeds.
void make_table(Result& res, const std::vector<Cell>& grid) {
  nlohmann::json& cells = res.results["cells"];
  auto& table = res.table;
  for (const Cell& c : grid) {
    if (!cells.contains(c.key()) || !cells[c.key()].contains("metric")) continue;
    const nlohmann::json& j = cells[c.key()];
    Stat& s = table[c.model][c.recipe][c.nm];
    s.n += 1;
    s.mean += j["metric"].get<double>();
    s.flops += j["training_flops"].get<double>() / j["dense_training_flops"].get<double>();
  }
  for (auto& [m, rs] : table)
    for (auto& [r, ns] : rs)
      for (auto& [nm, s] : ns) {
        s.mean /= s.n;
        s.flops /= s.n;
        double lo = 1e300, hi = -1e300;
        for (const Cell& c : grid)
          if (c.model == m && c.recipe == r && c.nm == nm && cells.contains(c.key()) &&
              cells[c.key()].contains("metric")) {
            lo = std::min(lo, cells[c.key()]["metric"].get<double>());
            hi = std::max(hi, cells[c.key()]["metric"].get<double>());
          }
        s.spread = s.n > 1 ? (hi - lo) / 2 : 0;
      }
}

}  // namespace

Result run(const Options& a, search::Observer& observer) {
  Result res;
  res.options = a;
  res.models = io::split_list(a.models);
  const std::vector<std::string> recipes = io::split_list(a.recipes);
  res.ratios = io::split_list(a.ratios);
  if (res.models.empty() || recipes.empty() || res.ratios.empty())
    throw InputError({"<flag --recipes>", 0, 0}, "empty model, recipe or ratio list");
  for (const std::string& m : res.models)
    if (m != "vit-tiny" && m != "char-gpt")
      throw InputError({"<flag --models>", 0, 0}, "'" + m + "': expected vit-tiny or char-gpt");
  for (const std::string& r : recipes) res.recipes.push_back(recipe_name(parse_recipe(r)));
  for (const std::string& r : res.ratios) parse_nm(r, "<flag --ratios>");
  if (a.seeds < 1 || a.seeds > 10) throw InputError({"<flag --seeds>", 0, 0}, "must be in [1, 10]");
  const int seeds = a.quick ? 1 : a.seeds;

  res.results = load_results(a.results, study_settings(a));
  res.results["quick"] = a.quick;
  nlohmann::json& cells = res.results["cells"];
  const std::vector<Cell> grid = make_grid(res, seeds, a.seed);
  res.grid = grid.size();
  for (size_t i = 0; i < grid.size(); ++i) {
    const Cell& c = grid[i];
    if (cells.contains(c.key()) && cells[c.key()].contains("metric")) continue;
    search::Progress p;
    p.item = i;
    p.items = grid.size();
    p.done = static_cast<int64_t>(i);
    p.total = static_cast<int64_t>(grid.size());
    p.label = c.key();
    search::report_progress(observer, p);
    cells[c.key()] = run_cell(a, c, res.ratios.front(), observer);
    save_results(res.results, a.results);
    ++res.ran;
  }
  make_table(res, grid);
  return res;
}

nlohmann::json to_json(const Result& r) { return r.results; }

}  // namespace sparsemap::ml::nm_study
