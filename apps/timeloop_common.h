// What the commands that search on a Timeloop architecture share (apps/cmd_map_timeloop.cpp):
// the tables beside an architecture file and the layers of --model.
#pragma once

#include <string>
#include <vector>

#include "sparsemap/dse/timeloop/network.h"
#include "sparsemap/io/timeloop.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::cli {

// The one file of `arch_file`'s folder whose name ends with `suffix` ("ERT.yaml", "ART.yaml");
// "" when there is none; InputError naming `flag` when there are several.
std::string table_beside(const std::string& arch_file, const std::string& suffix,
                         const std::string& flag);

// The layers of `model`: empty for the architecture file's own problem (`hw`), a Timeloop
// problem file, a folder of them (sorted by name; the layer_shapes form included), or a model of
// the other readers (its GEMM-class layers through workload::to_einsum). `model_name` is set.
std::vector<dse::timeloop::NetworkLayer> load_timeloop_layers(const std::string& model,
                                                              const workload::ZooOptions& zoo,
                                                              const io::TimeloopInputs& hw,
                                                              std::string& model_name);

}  // namespace sparsemap::cli
