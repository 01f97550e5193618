// Internal to the ONNX importer: per-node type and shape inference through libonnx, with the
// checks that keep libonnx 1.12's inference functions from crashing on malformed nodes.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace sparsemap::io::onnx_detail {

inline constexpr int64_t kMaxDim = int64_t{1} << 31;  // per dimension or window attribute

struct TensorInfo {
  bool has_shape = false;
  std::vector<int64_t> dims;         // -1 where unknown
  std::vector<std::string> symbols;  // dim_param, "" where none
};

// Name of node `index` for messages and layers: its name, or op_type + "_" + index.
std::string node_label(const onnx::NodeProto& n, int index);

// Infers the type and shape of every value of the main graph, node by node in order (the
// order ONNX requires), seeded with the graph's inputs, initializers, value_info and outputs.
// Each node is checked against its schema first (input count, attribute types; a node that
// fails is left uninferred) and conv/pool window attributes must be in range (InputError
// naming `file` and the node otherwise). Nodes without a schema, and subgraphs, are not
// inferred. Values whose shape stays unknown are absent or have has_shape == false.
std::unordered_map<std::string, TensorInfo> infer_shapes(onnx::ModelProto& model,
                                                         const std::string& file);

}  // namespace sparsemap::io::onnx_detail
