// Layers and models described for people and scripts: the dimensions that matter for a layer's
// kind as text, and the JSON that `sparsemap show --json` and `sparsemap models --json` write
// (Python: Layer.to_dict, Model.to_dict, sparsemap.models).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sparsemap/workload/model.h"

namespace sparsemap::workload {

// "K=64 C=3 Y=224 X=224 R=7 S=7 stride=2 pad=3": the dimensions that matter for its kind.
std::string layer_dims_text(const Layer& l);
// The same, narrower, for tables of mapped layers: "K64 C3 224x224 7x7 s2 p3" (Y x X, R x S,
// stride, pad) for convolutions and pooling, "M128 N768 K768" for GEMMs.
std::string layer_dims_short(const Layer& l);
// One layer: name, kind, op, dims (those that matter), macs, params, input / weight / output
// elements; stride, pad, out_y and out_x for windowed kinds.
nlohmann::json layer_json(const Layer& l);
// `show --json`: {"model", "layers": [layer_json], "total": {"macs", "params"}}.
nlohmann::json model_json(const Model& m);
// `models --json`: {"models": [{name, layers, gemm_layers, macs, params, description}]}, each
// zoo model at its default sizes.
nlohmann::json zoo_json();

}  // namespace sparsemap::workload
