// `sparsemap eval` as a library call: the MAESTRO-class cost model on every layer of a MAESTRO
// mapping file, or on the GEMM-class layers of a model under built-in dataflow templates; with
// --timeloop, Timeloop's files through the loop-nest model (run_timeloop, timeloop.h). Options
// (the command's flags, with its defaults), run(), Result, to_json() (the one place the
// command's JSON is built), write_outputs() (--emit-m) and require_some_feasible(). The CLI
// (apps/cmd_eval.cpp) and the Python module (eval_model) are both flags/keywords -> Options ->
// run -> print/to_json.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/cost.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/eval/timeloop.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/workload/model.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::dse::eval {

// One field per flag of `sparsemap eval` (but --json, the CLI's), same names, same defaults.
struct Options {
  std::string hw;                // --hw: a preset name, a MAESTRO .m file or a YAML file
  std::string mapping;           // --mapping: a MAESTRO DFSL file with layers and dataflows
  std::string model;             // --model: a zoo name or a model file (with --dataflow)
  std::string dataflow;          // --dataflow: kcp_ws, xp_ws, yxp_os, a comma list, or all
  workload::ZooOptions zoo;      // --batch, --seq, --image
  bool enforce_buffers = false;  // --enforce-buffers: needing more L1/L2 than there is: infeasible
  std::string emit_m;  // --emit-m: write_outputs writes each layer (and accelerator.m) into DIR
  std::string density, structure, sparse_mode = "gate";  // --density, --structure, --sparse-mode
  // --timeloop: Timeloop/Accelergy files evaluated as `sparsemap timeloop` does, instead of
  // everything above (which must then be left at its default).
  std::vector<std::string> timeloop;
  // In place of `model` / `hw` when set: a model or accelerator held in memory (Python objects).
  std::optional<workload::Model> model_object;
  std::optional<arch::Arch> arch_object;
};

// `sparsemap eval`'s flags and sparsemap.eval_model's keywords (sparsemap/option_table.h): the
// Options' fields with their help, beside --json of the CLI; the rows marked not_with_timeloop
// are refused beside --timeloop.
const options::Table<Options>& option_table();

// One evaluated layer: the layer and the mapping it was priced with.
struct Item {
  io::DfslLayer dl;
  std::string note;  // e.g. "mapping of the layer before (no Dataflow block)"
};

// The layers under one dataflow (a template's name; "" for a mapping file) and their costs.
struct Evaluation {
  std::string dataflow;
  std::vector<Item> items;
  std::vector<cost::Cost> costs;  // one per item; a layer without a mapping: Invalid, its MACs
};

struct Result {
  Options options;          // as given (model_object / arch_object dropped)
  bool from_model = false;  // --model (or a Model object), else --mapping
  arch::Arch hw;
  cost::EvalOptions eval;                  // buffers and sparsity as priced
  std::string name;                        // the model's name, or the mapping file's network name
  std::vector<Evaluation> evaluations;     // one per dataflow (one for a mapping file)
  std::optional<TimeloopResult> timeloop;  // --timeloop: set, and nothing above is filled
};

// Evaluates every layer under every dataflow (or the Timeloop files). Warnings (a .m file's
// reader warnings, a missing ERT) go to `observer`. Throws InputError for bad options or files.
// Writes nothing.
Result run(const Options& o, search::Observer& observer);

// The --emit-m files of `r` (one MAESTRO network per evaluated layer, and accelerator.m), or
// --timeloop's --emit-map, when its options name them (every check before the first byte); what
// MAESTRO's file cannot hold is a warning to `observer`. InputError when they cannot be written
// or a mapping cannot be expressed in MAESTRO's language.
void write_outputs(const Result& r, search::Observer& observer);

// InputError at --mapping (else --hw) when not one evaluation is feasible (the first layer's
// reason): a run without a total. Call after printing and writing the result, which show every
// layer.
void require_some_feasible(const Result& r);

// The JSON `sparsemap eval --json` writes: per evaluated layer its cost, the totals (one object,
// or `evaluations` with several dataflows), hw, sparsity, and the model or the mapping file; with
// --timeloop, to_json of the TimeloopResult.
nlohmann::json to_json(const Result& r);

}  // namespace sparsemap::dse::eval
