// MAESTRO's "unconstrained" limits, as GAMMA, MAGMA and ConfuciuX pass them to it: the one
// definition of each (presets, dse/hwalloc and dse/schedule use them).
#pragma once

#include <cstdint>

namespace sparsemap::arch {

// --noc_bw_cstr (and GAMMA's --offchip_bw_cstr) meaning "no limit": 81,920,000 words per cycle.
inline constexpr int64_t kMaestroUnboundedWordsPerCycle = 81'920'000;
// MAGMA's and ConfuciuX's L1 and L2 limits meaning "no limit": 819,200,000 bytes.
inline constexpr int64_t kMaestroUnboundedBufferBytes = 819'200'000;

}  // namespace sparsemap::arch
