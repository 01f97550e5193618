// A model: an ordered list of layers with names, and its totals.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/workload/layer.h"

namespace sparsemap::workload {

struct Model {
  std::string name;
  std::vector<Layer> layers;  // execution order

  int64_t total_macs() const;
  int64_t total_params() const;
  int64_t count_gemm_class() const;  // layers with MACs
  bool operator==(const Model& o) const { return name == o.name && layers == o.layers; }
};

}  // namespace sparsemap::workload
