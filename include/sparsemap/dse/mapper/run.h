// `sparsemap map` as a library call: Options (the command's flags, with its defaults), run()
// (load the model and accelerator, search every distinct layer, price the reference dataflows),
// Result, and to_json(), the one place the command's JSON is built. The CLI (apps/cmd_map.cpp)
// and the Python module (map_model) are both flags/keywords -> Options -> run -> print/to_json.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/cost.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/workload/model.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::dse::mapper {

// One field per flag of `sparsemap map` (MAESTRO-class accelerators), same names, same defaults.
struct Options {
  std::string model;    // --model: a zoo name or a model file (io::load_model)
  std::string mapping;  // --mapping: a MAESTRO .m file whose layers are mapped
  std::string hw;       // --hw: a preset name or an accelerator file (io::load_arch)
  std::string algo = "gamma", objective = "latency";
  int64_t budget = 1000;  // samples per distinct layer
  uint64_t seed = 1;
  int threads = 1;
  int levels = 2;  // cluster levels, 1 to 4
  bool divisors_only = false, maestro_compatible = false;
  std::string constraint = "none";
  bool warm_start = false;
  std::string mapping_db, mapping_db_out;
  std::string density, structure, sparse_mode = "gate";
  bool worst_case = false;
  std::string checkpoint, resume;
  int64_t checkpoint_every = 2000;
  std::string emit_m;    // write_outputs: MAESTRO files of the result into this folder
  bool compare = false;  // --compare-dataflows
  size_t population = 0;
  double mutation_rate = 0.6;
  size_t spatial_seeds = 0;
  workload::ZooOptions zoo;  // --batch, --seq, --image
  // In place of `model` / `hw` when set: a model or accelerator held in memory (Python objects).
  std::optional<workload::Model> model_object;
  std::optional<arch::Arch> arch_object;
};

// A reference the searched mappings are compared with (--compare-dataflows): a built-in
// dataflow template, or the MAESTRO file's own dataflows ("file"); one cost per mapped layer.
struct Reference {
  std::string name;
  std::vector<cost::Cost> costs;
};

// The model's totals over its feasible layers, and per reference its totals over the layers
// where it is feasible beside the searched ones over the same layers.
struct Totals {
  int64_t runtime = 0, macs = 0, ok = 0;  // cycles, MACs, feasible layers
  double energy = 0, geo_util = 0;        // nJ; geomean PE utilisation (%)
  std::vector<int64_t> ref_rt, ref_ok, ours_rt;
  std::vector<double> ref_en;
};

// Warm start: samples to reach the cold search's best, cold and warm, over the distinct layers
// where the cold search reached its target (a warm search that never did counts its budget).
struct WarmStartSums {
  int64_t cold = 0, warm = 0, layers = 0, faster = 0;
};

struct Result {
  bool root = true;      // false on MPI ranks other than 0, where nothing below `outcome` is filled
  Options options;       // as given (model_object / arch_object dropped)
  MapperOptions mapper;  // what the search ran with (no progress callback)
  std::string model_name;
  arch::Arch hw;
  ModelOutcome outcome;
  std::vector<Reference> references;
  Totals totals;
  double wall_s = 0;  // the search's wall time (printed, never in the JSON)
};

// The mapper's options from `o`, every option checked first (InputError at "<flag --NAME>"),
// and the --mapping-db file read.
MapperOptions mapper_options(const Options& o);

// Maps every GEMM-class layer. Deterministic for a seed, whatever the threads. Progress goes to
// `observer` after each batch (item: distinct layer), warnings too (a partial exhaustive scan,
// a .m file's reader warnings); Cancelled when it asks to stop. Throws InputError for bad
// options or files. Writes nothing but the checkpoint the options name.
Result run(const Options& o, search::Observer& observer);

// The --emit-m files and the --mapping-db-out DB of `r`, when its options name them (every
// check before the first byte). InputError when they cannot be written.
void write_outputs(const Result& r);

// InputError at --hw when no layer has a feasible mapping (the first layer's reason): a model
// without a total. Call after printing and writing the result, which show every layer.
void require_some_feasible(const Result& r);

WarmStartSums warm_start_sums(const ModelOutcome& res, int64_t budget);

// The JSON `sparsemap map --json` writes: settings, layers, totals, references, warm start.
nlohmann::json to_json(const Result& r);

}  // namespace sparsemap::dse::mapper
