// For targets whose reader yields layers: runs the layer arithmetic every command does on an
// accepted layer (MACs, operand sizes, output extents), so that UBSan reports an overflow there.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "sparsemap/workload/layer.h"

namespace sparsemap::fuzz {

inline void check_layers(const std::vector<workload::Layer>& layers) {
  uint64_t sink = 0;  // unsigned: the sum itself may wrap, the terms must not overflow
  for (const workload::Layer& l : layers) {
    const int64_t terms[] = {l.macs(),   l.input_elems(), l.weight_elems(), l.output_elems(),
                             l.params(), l.out_y(),       l.out_x()};
    for (int64_t t : terms) sink += static_cast<uint64_t>(t);
  }
  if (sink == 42) std::fprintf(stderr, " ");  // keeps the calls from being optimised away
}

}  // namespace sparsemap::fuzz
