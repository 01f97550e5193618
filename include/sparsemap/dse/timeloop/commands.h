// `map` and `codesign` run one of two systems: on a MAESTRO-class accelerator dse::mapper /
// dse::codesign, on a Timeloop architecture (dse::timeloop::is_arch_file) run_map /
// run_codesign. Their flags are one table over both systems' Options (sparsemap/option_table.h):
// a flag of both sets both (the Timeloop field only when given, so that its own default
// stands), and a flag of the MAESTRO-class system only is refused on a Timeloop architecture.
#pragma once

#include "sparsemap/dse/codesign/run.h"
#include "sparsemap/dse/mapper/run.h"
#include "sparsemap/dse/timeloop/run.h"
#include "sparsemap/option_table.h"

namespace sparsemap::dse::timeloop {

struct MapCommandOptions {
  mapper::Options maestro;
  MapOptions timeloop;
};
const options::Table<MapCommandOptions>& map_option_table();
// Why a Timeloop architecture refuses a row of map_option_table().
inline const char* const kMapRefusal =
    "applies to MAESTRO-class accelerators: expected it without a Timeloop architecture";

struct CodesignCommandOptions {
  codesign::Options maestro;
  CodesignRunOptions timeloop;
};
const options::Table<CodesignCommandOptions>& codesign_option_table();
// Why a Timeloop template refuses a row of codesign_option_table().
inline const char* const kCodesignRefusal =
    "applies to the built-in templates: expected it without a Timeloop architecture";

}  // namespace sparsemap::dse::timeloop
