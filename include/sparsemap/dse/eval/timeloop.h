// `sparsemap timeloop FILES` (and `sparsemap eval --timeloop FILES`) as a library call: Timeloop's
// inputs (architecture, problem, mapping, optional ERT/ART, in any order) through the loop-nest
// model; inputs with sparse_optimizations (Sparseloop's) through the sparse model. Options (the
// command's flags), run(), Result, to_json() (the one place the command's JSON is built) and
// write_outputs() (--emit-map). The CLI (apps/cmd_timeloop.cpp, apps/cmd_eval.cpp) prints
// timeloop-model's summary of the Result; the Python module (eval_model with timeloop=) returns
// to_json.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/cost/loopnest.h"
#include "sparsemap/cost/sparseloop.h"
#include "sparsemap/mapping/loop_nest.h"
#include "sparsemap/option_table.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::dse::eval {

// One field per flag of `sparsemap timeloop` (but --json, the CLI's), same names, same defaults.
struct TimeloopOptions {
  std::vector<std::string> files;  // Timeloop/Accelergy YAML files (io::read_timeloop_files)
  // --hw: a preset or MAESTRO/YAML accelerator whose arch::to_hierarchy (levels DRAM, L2, L1,
  // MAC) replaces the architecture and ERT; InputError when the files also hold them.
  std::string hw;
  bool no_leakage = false;    // --no-leakage: the ERT's leak actions dropped (timeloop-model 3.0.3)
  bool timeloop_303 = false;  // --timeloop-3.0.3: sparse inputs priced and reported as
                              // timeloop-model 3.0.3 does (SparseloopPricing::kTimeloop303);
                              // implies no_leakage
  std::string emit_map;       // --emit-map: write_outputs writes the mapping as map.yaml here
};

// `sparsemap timeloop`'s flags (sparsemap/option_table.h): the positional row `files` and the
// TimeloopOptions' flags with their help, beside --json of the CLI.
const options::Table<TimeloopOptions>& timeloop_option_table();

struct TimeloopResult {
  TimeloopOptions options;
  mapping::LoopNest mapping;  // the mapping it evaluated
  // Exactly one is set: the sparse model's result when the inputs hold sparse_optimizations
  // (densities alone: Timeloop's dense run), else the loop-nest model's.
  std::optional<cost::LoopNestResult> dense;
  std::optional<cost::SparseLoopResult> sparse;
};

// Reads and merges the files, requires an architecture, a problem and a mapping, and evaluates
// them. A missing ERT is a warning to `observer` (every energy is then 0). InputError for bad
// options or files, and at the mapping's file for an infeasible mapping. Writes nothing.
TimeloopResult run_timeloop(const TimeloopOptions& o, search::Observer& observer);

// The --emit-map file of `r` when its options name one. InputError when it cannot be written.
void write_outputs(const TimeloopResult& r);

// The JSON `sparsemap timeloop --json` writes: LoopNestResult::to_json or
// SparseLoopResult::to_json.
nlohmann::json to_json(const TimeloopResult& r);

}  // namespace sparsemap::dse::eval
