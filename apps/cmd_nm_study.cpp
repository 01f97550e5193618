// `sparsemap nm-study`: every N:M recipe at several ratios and seeds on the ViT and the char-GPT
// (ml/train), one cell at a time: each finished cell is written to the results JSON at once, and
// a rerun skips the cells already there, so the study can finish across several runs. Prints
// the table (mean and spread over seeds beside the training FLOPs) and plots it with gnuplot.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/io/util.h"
#include "sparsemap/plot/gnuplot.h"

#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/train/trainer.h"
#endif

namespace sparsemap::cli {

namespace {

struct StudyArgs {
  std::string models = "vit-tiny,char-gpt";
  std::string recipes = "dense,ste,srste,mdgf-linear,mdgf-exp,sdgf-sparsify,sdgf-fine";
  std::string ratios = "2:4,1:4,1:8,1:16,1:32";
  int seeds = 2;
  uint64_t first_seed = 1;
  bool quick = false;
  int vit_epochs = 0;     // 0: 15 (3 quick)
  int64_t gpt_steps = 0;  // 0: 3000 (300 quick)
  int threads = 0;
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::string results = "nm_study.json";
  std::string plot;
  std::string json;
  bool quiet = false;
};

#ifdef SPARSEMAP_HAVE_TORCH

using namespace sparsemap::ml::train;

// What makes a cell's numbers comparable beyond its key (model/recipe/ratio/seed): recorded in
// the results file, and a file recorded with other settings is refused rather than mixed in.
nlohmann::json study_settings(const StudyArgs& a) {
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

void save_results(const nlohmann::json& j, const std::string& path) {
  const std::string tmp = path + ".tmp";
  write_json(j, tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw InputError({path, 0, 0}, "cannot write the results");
}

struct Stat {
  double mean = 0, spread = 0, flops = 0;
  int n = 0;
};

// Writes the plot data (one block per model and recipe: ratio index, mean, spread) and renders
// it; throws InputError after writing the data when gnuplot is missing or fails.
void plot(const std::map<std::string, std::map<std::string, std::map<std::string, Stat>>>& table,
          const std::vector<std::string>& ratios, const std::string& out) {
  const std::string data = out + ".dat";
  std::ofstream d(data);
  std::ostringstream g;
  g << plot::gnuplot_header(out, 1200, 500) << "set multiplot layout 1," << table.size() << "\n"
    << "set key bottom left font ',8'\nset xtics (";
  for (size_t i = 0; i < ratios.size(); ++i)
    g << (i ? ", " : "") << plot::gnuplot_quote(ratios[i]) << " " << i;
  g << ")\n";
  int block = 0;
  for (const auto& [model, recipes] : table) {
    g << "set title " << plot::gnuplot_quote(model) << "\nset ylabel '"
      << (model == "char-gpt" ? "validation nats/char" : "test accuracy %") << "'\nplot ";
    bool first = true;
    for (const auto& [recipe, cells] : recipes) {
      d << "# " << model << " " << recipe << "\n";
      for (size_t i = 0; i < ratios.size(); ++i) {
        auto it = cells.find(recipe == "dense" ? "-" : ratios[i]);
        if (it != cells.end()) d << i << " " << it->second.mean << " " << it->second.spread << "\n";
      }
      d << "\n\n";
      g << (first ? "" : ", ") << plot::gnuplot_quote(data) << " index " << block
        << " using 1:2:3 with yerrorlines title " << plot::gnuplot_quote(recipe);
      first = false;
      ++block;
    }
    g << "\n";
  }
  g << "unset multiplot\n";
  d.close();
  if (!d) throw InputError({data, 0, 0}, "cannot write the plot data");
  plot::render_gnuplot(g.str(), out + ".gp", data);
}

void run(const StudyArgs& a) {
  const std::vector<std::string> models = split_list(a.models), recipes = split_list(a.recipes),
                                 ratios = split_list(a.ratios);
  if (models.empty() || recipes.empty() || ratios.empty())
    throw InputError({"<flag --recipes>", 0, 0}, "empty model, recipe or ratio list");
  for (const std::string& m : models)
    if (m != "vit-tiny" && m != "char-gpt")
      throw InputError({"<flag --models>", 0, 0}, "'" + m + "': expected vit-tiny or char-gpt");
  for (const std::string& r : recipes) parse_recipe(r);
  for (const std::string& r : ratios) parse_nm(r, "<flag --ratios>");
  if (a.seeds < 1 || a.seeds > 10) throw InputError({"<flag --seeds>", 0, 0}, "must be in [1, 10]");
  const int seeds = a.quick ? 1 : a.seeds;

  nlohmann::json results = load_results(a.results, study_settings(a));
  results["quick"] = a.quick;
  nlohmann::json& cells = results["cells"];
  // The grid: the dense recipe once per model and seed (it has no ratio).
  struct Cell {
    std::string model, recipe, nm;
    uint64_t seed;
    std::string key() const { return model + "/" + recipe + "/" + nm + "/" + std::to_string(seed); }
  };
  std::vector<Cell> grid;
  for (const std::string& m : models)
    for (const std::string& r : recipes)
      for (const std::string& nm : ratios) {
        const bool dense = parse_recipe(r) == RecipeKind::Dense;
        if (dense && nm != ratios.front()) continue;
        for (int s = 0; s < seeds; ++s)
          grid.push_back({m, recipe_name(parse_recipe(r)), dense ? "-" : nm, a.first_seed + s});
      }
  int done = 0, ran = 0;
  for (const Cell& c : grid) {
    ++done;
    if (cells.contains(c.key()) && cells[c.key()].contains("metric")) continue;
    TrainOptions o;
    o.model = c.model;
    o.data = c.model == "char-gpt" ? "kjv" : "fashion-mnist";
    o.data_dir = a.data_dir;
    o.recipe.kind = parse_recipe(c.recipe);
    o.recipe.nm = parse_nm(c.nm == "-" ? ratios.front() : c.nm);
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
    if (!a.quiet)
      std::cerr << "[" << done << "/" << grid.size() << "] " << c.key() << " ..." << std::flush;
    nlohmann::json cell = {
        {"model", c.model}, {"recipe", c.recipe}, {"nm", c.nm}, {"seed", c.seed}};
    try {
      const TrainResult r = train(o);
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
      if (!a.quiet)
        std::cerr << " "
                  << (r.metric_name == "valid_nats_per_char" ? fixed(r.metric, 4)
                                                             : fixed(r.metric, 2) + "%")
                  << " in " << fixed(r.total_s, 1) << " s\n";
    } catch (const InputError& e) {
      cell["error"] = e.what();
      if (!a.quiet) std::cerr << " failed: " << e.what() << "\n";
    }
    cells[c.key()] = cell;
    save_results(results, a.results);
    ++ran;
  }

  // Table: per model, recipe and ratio the mean and spread (max - min) / 2 over seeds.
  std::map<std::string, std::map<std::string, std::map<std::string, Stat>>> table;
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
  if (!a.quiet && a.json != "-") {
    for (const std::string& m : models) {
      if (!table.count(m)) continue;
      std::vector<std::string> head = {"recipe"};
      for (const std::string& nm : ratios) head.push_back(nm);
      Table t(head);
      for (const std::string& rn : recipes) {
        const std::string r = recipe_name(parse_recipe(rn));
        std::vector<std::string> row = {r};
        for (const std::string& nm : ratios) {
          auto& ns = table[m][r];
          auto it = ns.find(r == "dense" ? "-" : nm);
          if (it == ns.end()) {
            row.push_back("-");
            continue;
          }
          const Stat& s = it->second;
          const int digits = m == "char-gpt" ? 3 : 2;
          row.push_back(fixed(s.mean, digits) + (s.n > 1 ? " +-" + fixed(s.spread, digits) : "") +
                        " (" + fixed(100.0 * s.flops, 0) + "%)");
        }
        t.add(row);
      }
      std::cout << m << ": " << (m == "char-gpt" ? "validation nats/char" : "test accuracy %")
                << " (mean +- half range over seeds; training FLOPs as % of dense)\n"
                << t.str() << "\n";
    }
    std::cout << ran << " cells run now, " << grid.size() << " in the grid; results in "
              << a.results << "\n";
  }
  if (!a.json.empty()) write_json(results, a.json);
  if (!a.plot.empty()) plot(table, ratios, a.plot);
}

#endif  // SPARSEMAP_HAVE_TORCH

}  // namespace

void register_nm_study(CLI::App& app) {
  auto a = std::make_shared<StudyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "nm-study", "Every N:M recipe x ratio x seed on vit-tiny and char-gpt (resumable)");
  cmd->add_option("--models", a->models, "vit-tiny,char-gpt")->capture_default_str();
  cmd->add_option("--recipes", a->recipes, "Recipes, comma-separated")->capture_default_str();
  cmd->add_option("--ratios", a->ratios, "N:M ratios, comma-separated")->capture_default_str();
  cmd->add_option("--seeds", a->seeds, "Seeds per cell (1 with --quick)")->capture_default_str();
  cmd->add_option("--seed", a->first_seed, "First seed")->capture_default_str();
  cmd->add_flag("--quick", a->quick,
                "Small models, few steps, one seed (the whole grid in under an hour on 2 cores)");
  cmd->add_option("--vit-epochs", a->vit_epochs, "ViT epochs (0: 15, quick 3 on 20k images)")
      ->capture_default_str();
  cmd->add_option("--gpt-steps", a->gpt_steps, "char-GPT steps (0: 3000, quick 300)")
      ->capture_default_str();
  cmd->add_option("--threads", a->threads, "libtorch threads (0: all cores; 1 with --quick)")
      ->capture_default_str();
  cmd->add_option("--data-dir", a->data_dir, "Folder of Fashion-MNIST's IDX files")
      ->capture_default_str();
  cmd->add_option("--results", a->results,
                  "Results JSON, written after every cell and read back to skip finished cells")
      ->capture_default_str();
  cmd->add_option("--plot", a->plot,
                  "Plot FILE.png or FILE.svg with gnuplot (also writes FILE.dat and FILE.gp beside "
                  "it, replacing them)");
  cmd->add_option("--json", a->json, "Also write the results JSON to FILE, or - for stdout");
  cmd->add_flag("--quiet", a->quiet, "No progress or table");
  cmd->callback([a] {
#ifdef SPARSEMAP_HAVE_TORCH
    run(*a);
#else
    hand_over_to_torch_build();  // returns only when there is no sparsemap-ml
    throw InputError({"<command nm-study>", 0, 0},
                     "this sparsemap was built without libtorch (SPARSEMAP_WITH_TORCH=OFF)");
#endif
  });
}

}  // namespace sparsemap::cli
