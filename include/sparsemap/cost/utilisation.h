// PE utilisation of an evaluated layer: effectual MACs per PE-cycle of the array, in percent.
#pragma once

#include <cstdint>

#include "sparsemap/cost/cost.h"

namespace sparsemap::cost {

// PE utilisation in percent: the layer's effectual MACs (its MACs times the fraction whose
// operands are all nonzero, effectual_macs / mapped_macs) per PE-cycle of the whole array,
//   100 macs (effectual_macs / mapped_macs) / (num_pes runtime_cycles).
// At most 100: evaluate() keeps runtime >= work / pes_used, with work (mapped MACs, or effectual
// MACs when skipping) >= effectual MACs >= the layer's effectual MACs, and pes_used <= num_pes.
// Dense: macs / (num_pes runtime). 0 when the cost is not Ok. (Dividing the dense MACs by a
// runtime that skipping shortened reported up to 124% on a sparse FC layer.)
inline double pe_utilisation_pct(const Cost& c, int64_t num_pes) {
  if (!c.ok() || c.runtime_cycles <= 0 || num_pes <= 0 || !(c.mapped_macs > 0)) return 0;
  const double useful_macs = static_cast<double>(c.macs) * (c.effectual_macs / c.mapped_macs);
  return 100.0 * useful_macs /
         (static_cast<double>(num_pes) * static_cast<double>(c.runtime_cycles));
}

}  // namespace sparsemap::cost
