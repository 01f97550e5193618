// `sparsemap map` and `sparsemap codesign` on a Timeloop-described accelerator as library calls:
// Options (the commands' flags that apply, with the defaults the CLI uses on a Timeloop
// architecture), run() (read the architecture and the tables beside it, read the layers, search),
// a Result, and to_json(), the one place each command's JSON is built. The CLI
// (apps/cmd_map.cpp, apps/cmd_codesign.cpp) and the Python module (map_model and codesign with a
// Timeloop architecture file) are both flags/keywords -> Options -> run -> print/to_json.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/dse/timeloop/codesign.h"
#include "sparsemap/dse/timeloop/network.h"
#include "sparsemap/io/timeloop.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/workload/model.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::dse::timeloop {

// The inputs of a Timeloop architecture file (read once per process and kept; thread-safe), or
// null when `path` is not a YAML file holding an architecture. `map --hw` and `codesign --hw`
// take this path when it is not null.
const io::TimeloopInputs* arch_inputs(const std::string& path);
inline bool is_arch_file(const std::string& path) { return arch_inputs(path) != nullptr; }

// The one file of `arch_file`'s folder whose name ends with `suffix` ("ERT.yaml", "ART.yaml");
// "" when there is none; InputError naming `flag` when there are several.
std::string table_beside(const std::string& arch_file, const std::string& suffix,
                         const std::string& flag);

// The layers of `model`: the architecture file's own problem (`hw`) when `model` is empty and
// `object` is null, a Timeloop problem file, a folder of them (sorted by name; the layer_shapes
// form included), or a model of the other readers or `object` (its GEMM-class layers through
// workload::to_einsum). `model_name` is set.
std::vector<NetworkLayer> load_layers(const std::string& model,
                                      const std::optional<workload::Model>& object,
                                      const workload::ZooOptions& zoo, const io::TimeloopInputs& hw,
                                      std::string& model_name);

// `map --hw ARCH.yaml`: the flags of `map` that apply, with Timeloop's defaults.
struct MapOptions {
  std::string hw;     // the architecture file
  std::string model;  // "" (the architecture file's problem), a problem file or folder, a model
  std::string ert;    // "" : the *ERT.yaml beside hw
  std::string algo = "auto";
  std::string objective;  // "" : the architecture's optimization_metrics, else EDP
  std::string emit_dir;   // --emit-timeloop: write_outputs writes DIR/<layer>.map.yaml
  std::string checkpoint, resume;
  int64_t checkpoint_every = 2000;
  bool warm_start = true;
  int64_t budget = 10000;
  uint64_t seed = 1, exhaustive_limit = 2'000'000;
  int threads = 1;
  workload::ZooOptions zoo;
  std::optional<workload::Model> model_object;  // in place of `model` (a Python object)
};

struct MapResult {
  bool root = true;    // false on MPI ranks other than 0 (nothing below is filled)
  MapOptions options;  // as given (model_object dropped)
  int mpi_ranks = 1;
  std::string model_name, arch_name;
  size_t layers = 0;
  std::vector<Metric> metrics;  // what was optimised, lexicographically
  NetworkResult network;
};

// Maps every layer. Deterministic for a seed, whatever the threads. Progress goes to `observer`
// after each batch (item: distinct layer; total 0 while a space is enumerated), and the warning
// that no ERT was found; Cancelled when it asks to stop. Throws InputError for bad options or
// files and when some layer has no mapping that fits. Writes nothing but the checkpoint.
MapResult run_map(const MapOptions& o, search::Observer& observer);

// The --emit-timeloop files of `r` (one map.yaml per layer), when its options name a folder.
void write_outputs(const MapResult& r);

// The JSON `map --hw ARCH.yaml --json` writes: to_json(NetworkResult) with model, arch, algo,
// budget, seed and metrics.
nlohmann::json to_json(const MapResult& r);

// "edp" or "delay, energy": the metrics as the summary line names them.
std::string metrics_text(const std::vector<Metric>& m);

// `codesign --hw ARCH.yaml`: the flags of `codesign` that apply, with Timeloop's defaults.
struct CodesignRunOptions {
  std::string hw, model, ert, art;  // ert / art "": the *ERT.yaml / *ART.yaml beside hw
  std::string algo = "ga", objective = "edp";
  double area_budget_mm2 = 0;    // required, positive
  int64_t budget = 200;          // designs
  int64_t map_budget = 1000;     // loop-nest evaluations per layer per design
  int64_t final_budget = 10000;  // per layer, for the template and the best design
  uint64_t seed = 1;
  int threads = 1;
  workload::ZooOptions zoo;
  std::optional<workload::Model> model_object;  // in place of `model` (a Python object)
};

struct CodesignRunResult {
  CodesignRunOptions options;  // as given (model_object dropped)
  std::string model_name, arch_name;
  size_t layers = 0;
  CodesignResult codesign;
};

// Co-designs the template's fan-outs and buffer depths under the area budget (priced by its
// ART). Progress after each design (item 0 of 1, done of total designs); Cancelled when the
// observer asks to stop. Throws InputError for bad options or files (no ART, ...).
CodesignRunResult run_codesign(const CodesignRunOptions& o, search::Observer& observer);

// "shared_glb 1x depth 16,384, PE 168x, ...": each level's instances and depth.
std::string describe(const Candidate& c);

// The JSON `codesign --hw ARCH.yaml --json` writes: the budget, the counts, and the template
// and the best design (area, levels, network totals).
nlohmann::json to_json(const CodesignRunResult& r);

}  // namespace sparsemap::dse::timeloop
