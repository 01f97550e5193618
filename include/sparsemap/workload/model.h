// A model: an ordered list of layers with names, the dataflow edges between them, and totals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/workload/layer.h"

namespace sparsemap::workload {

struct Model {
  std::string name;
  std::vector<Layer> layers;  // execution order
  // Dataflow edges. producers[i] lists the layers whose outputs layer i reads: indices < i, in
  // operand order, each once. An empty list: layer i reads the model input only (or nothing but
  // weights). Weights and constants are not edges. Data movement that has no layer (reshape,
  // flatten, transpose, concat, split, slice) is seen through: a layer after a concatenation
  // lists every layer it joins. A read of the model input beside another layer's output is not
  // listed.
  //
  // The model carries dataflow edges exactly when producers.size() == layers.size() and there is
  // at least one layer (has_dataflow()). The zoo and the ONNX importer fill them; readers of
  // formats that list layers without their dataflow (MAESTRO .m, GAMMA and ConfuciuX .csv) leave
  // `producers` empty, and so does a model assembled from a bare layer list. Any other size, or
  // an index out of range, is malformed: its users (cost::fusion_graph) throw InputError.
  std::vector<std::vector<int>> producers;

  bool has_dataflow() const { return !layers.empty() && producers.size() == layers.size(); }
  int64_t total_macs() const;
  int64_t total_params() const;
  int64_t count_gemm_class() const;  // layers with MACs
  bool operator==(const Model& o) const {
    return name == o.name && layers == o.layers && producers == o.producers;
  }
  bool operator!=(const Model& o) const { return !(*this == o); }
};

// The edges of a plain chain of n layers: layer 0 reads the model input, layer i > 0 reads
// layer i - 1 ({{}, {0}, {1}, ..., {n-2}}).
std::vector<std::vector<int>> chain_producers(size_t n);

}  // namespace sparsemap::workload
