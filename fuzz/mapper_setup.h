// For the mapper targets (mapping DB, map checkpoint): a tiny model, accelerator and options,
// so that one whole map_layers run (the path a user's file takes) costs milliseconds.
#pragma once

#include <vector>

#include "sparsemap/arch/presets.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::fuzz {

inline const std::vector<workload::Layer>& tiny_layers() {
  static const std::vector<workload::Layer> layers = {
      workload::gemm("g", 8, 4, 6), workload::conv2d("c", 1, 3, 6, 6, 4, 3, 1, 1)};
  return layers;
}

inline const arch::Arch& tiny_arch() {
  static const arch::Arch a = arch::preset("maestro-example");
  return a;
}

// GAMMA with a population of 10 (batches of 9), 24 samples per layer, one thread.
inline dse::mapper::MapperOptions tiny_options() {
  dse::mapper::MapperOptions o;
  o.algo = "gamma";
  o.budget = 24;
  o.population = 10;
  o.checkpoint_every = 9;
  return o;
}

}  // namespace sparsemap::fuzz
