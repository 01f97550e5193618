// Accelerators described for scripts: the JSON that `sparsemap arch [--hierarchy] HW --json` and
// `sparsemap arch --list --json` write (Python: Arch.to_dict, sparsemap.presets).
#pragma once

#include <nlohmann/json.hpp>

#include "sparsemap/arch/arch.h"
#include "sparsemap/arch/maestro_hierarchy.h"

namespace sparsemap::arch {

// name, source, pes, array_shape, l1/l2 bytes, NoC and off-chip words per cycle, word bytes,
// clock (MHz), area_mm2 (arch::area_mm2) and energy_pj per action.
nlohmann::json arch_json(const Arch& a);
// The hierarchy view (to_hierarchy): levels outermost first (capacity_words 0: unbounded;
// bandwidths in words/cycle per instance, 0: unlimited), the compute unit, the ERT (pJ per
// action) and the ART (um^2 per instance) with their sources, and area_um2 (the one area rule
// on that table).
nlohmann::json hierarchy_json(const ArchHierarchy& v);
// {"presets": [arch_json of each preset]}.
nlohmann::json presets_json();

}  // namespace sparsemap::arch
