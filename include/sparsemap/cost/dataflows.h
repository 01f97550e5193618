// Built-in dataflow templates, our own presets in the styles of MAESTRO's example dataflows:
// each turns any GEMM-class layer into a mapping (with Sz() where a tile is a whole dimension).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sparsemap/mapping/mapping.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::cost {

struct DataflowTemplate {
  std::string name;         // "kcp_ws", "xp_ws", "yxp_os"
  std::string description;  // one line, with the style it follows
};

// Every template, in a stable order.
const std::vector<DataflowTemplate>& dataflow_templates();

// The mapping of `layer` under template `name` (hyphens accepted) for an accelerator with
// `num_pes` PEs. Roles: output channels (K; C for depthwise; N for GEMM), reduction (C; K for
// GEMM), output rows and columns (Y', X'; M for GEMM), filter (R, S); batch-like dimensions (N,
// G) are walked outermost. Throws InputError for an unknown template or a layer kind without
// MACs.
mapping::Mapping dataflow_mapping(std::string_view name, const workload::Layer& layer,
                                  int64_t num_pes);

}  // namespace sparsemap::cost
