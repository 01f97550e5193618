// Random CNNs for training learned fusion mappers: stems, plain convs with pools, basic and
// bottleneck residual blocks, inverted residuals and an FC head, with their dataflow edges
// (Model::producers: residual adds read both branches), named like the zoo's builders.
#pragma once

#include <cstdint>

#include "sparsemap/workload/model.h"

namespace sparsemap::dse::fusion {

// A CNN drawn from `seed` (deterministic), at `batch` samples, with an input image of 64 to 224
// pixels and 6 to 60 GEMM-class layers. Its name is "synth-<seed>".
workload::Model synthetic_cnn(uint64_t seed, int64_t batch);

}  // namespace sparsemap::dse::fusion
