// `sparsemap codesign` (built-in templates) as a library call: Options (the command's flags,
// with its defaults), run() (DiGamma's search and the baselines at the same sample budget, for
// one model or, with `table`, for every model on every platform), Result, and to_json(), the
// one place the command's JSON is built. The CLI (apps/cmd_codesign.cpp) prints the tables.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/dse/codesign/codesign.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/workload/model.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::dse::codesign {

// One field per flag of `sparsemap codesign` on the built-in templates, same defaults.
struct Options {
  std::string model, platform, objective = "latency", hw = "gamma-edge", buffers = "need";
  double area_budget = -1;              // --area-budget-mm2; -1: the platform's
  int64_t pe_limit = -1, pe_step = -1;  // -1: the platform's / the default step
  int64_t budget = 1000;                // whole-model designs evaluated per search
  uint64_t seed = 1;
  int threads = 1;
  int levels = 2;
  bool maestro_compatible = false;
  size_t population = 0;
  std::string baselines = "all";
  std::string checkpoint, resume;
  int64_t checkpoint_every = 1000;
  bool table = false;  // every `models` on every `platforms`
  std::string models = "resnet18,resnet50,mobilenet-v2,vgg16,mnasnet,bert-base,dlrm";
  std::string platforms = "edge,cloud";
  workload::ZooOptions zoo;
  // In place of `model` (not with `table`) / `hw` when set: a model or template accelerator
  // held in memory (Python objects).
  std::optional<workload::Model> model_object;
  std::optional<arch::Arch> hw_object;
};

// The area and PE budget of a case: a platform's, or the flags' ("custom").
struct Budget {
  std::string name;
  double area = 0;  // mm^2
  int64_t pes = 0;
};

struct BaselineOutcome {
  std::string name;
  bool feasible = false;
  double fitness = kPenalty;
  int64_t runtime_cycles = 0;
  double energy_nj = 0, area_mm2 = 0, power_mw = 0, wall_s = 0;
  int64_t pes = 0, l1_bytes = 0, l2_bytes = 0, samples = 0;
  std::string note;
};

// One model on one budget: DiGamma's design and each baseline's.
struct CaseOutcome {
  std::string model;
  Budget budget;
  std::shared_ptr<const CodesignSpace> space;
  CodesignResult codesign;
  double codesign_wall_s = 0;
  std::vector<BaselineOutcome> baselines;
};

struct Result {
  bool root = true;                // false on MPI ranks other than 0 (nothing else is filled)
  Options options;                 // as given (model_object and hw_object dropped)
  std::vector<CaseOutcome> cases;  // one without `table`; else platform-major, model-minor
  std::vector<Budget> budgets;     // `table`: the platforms, in order
};

// True for the grid baselines (fixed-gamma, fixed-gamma-seeds), which are not optimisers.
bool is_grid(const std::string& name);

// The best feasible baseline by fitness (nullptr if none): of all, of one named baseline
// (`only`), or of the optimisers alone (not the grid baselines).
const BaselineOutcome* best_baseline(const CaseOutcome& c, const std::string& only,
                                     bool optimisers_only);

// `best` baseline's cycles over DiGamma's design's (0 when either is missing or infeasible).
double speedup(const CaseOutcome& c, const BaselineOutcome* best);

// The most any design could gain over the best baseline: its cycles over the utilisation bound.
double bound_speedup(const CaseOutcome& c, const BaselineOutcome* best);

// `table`: the geomeans over the models on budget `k` of DiGamma's speedup over the best
// baseline, fixed-gamma, fixed-gamma-seeds, the best optimiser, and of the bound (0 for none).
struct Geomeans {
  double all = 0, fixed = 0, seeded = 0, optimiser = 0, bound = 0;
};
Geomeans geomeans(const Result& r, size_t k);

// Runs the case or the table. Progress after each batch (label "MODEL SEARCH"), a note after
// each case of the table ("resnet18 edge: digamma N cycles, ga M"); Cancelled when the observer
// asks to stop. Throws InputError for bad options or files.
Result run(const Options& o, search::Observer& observer);

// The JSON `sparsemap codesign --json` writes: the case's, or with `table` the cases' and the
// geomeans per platform.
nlohmann::json to_json(const Result& r);

// --plot: the case's latency-area Pareto front as `plot` (.png or .svg), its data beside it as
// PLOT.csv and its gnuplot script as PLOT.gp (replacing them); InputError when they cannot be
// written or gnuplot fails (the data stays).
void write_plot(const CaseOutcome& c, const std::string& plot);

// One case's JSON (its design, settings and baselines).
nlohmann::json case_json(const Options& o, const CaseOutcome& c);

}  // namespace sparsemap::dse::codesign
