// What identifies a layer's shape for deduplication (mapper and co-design search each distinct
// shape once).
#pragma once

#include <string>

#include "sparsemap/workload/layer.h"

namespace sparsemap::workload {

// Kind, dimensions, strides, padding and dilation: everything but the name. Two layers with the
// same key cost the same under every mapping.
std::string shape_key(const Layer& l);

}  // namespace sparsemap::workload
