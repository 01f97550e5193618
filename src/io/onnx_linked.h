// Internal to ONNX import: the importer itself, linked against libonnx and protobuf. It lives
// in the ONNX plugin (libsparsemap_onnx.so, onnx_plugin.cpp); io::parse_onnx / read_onnx
// (onnx_load.cpp) open the plugin and call it, so that a process that never reads an .onnx file
// never loads libonnx and protobuf (include/sparsemap/sys/plugin.h). The fuzz target links it.
#pragma once

#include <string>

#include "sparsemap/workload/model.h"

namespace sparsemap::io::onnx_detail {

// io::parse_onnx's contract (include/sparsemap/io/onnx_import.h), without the plugin.
workload::Model parse_onnx_linked(const std::string& bytes, const std::string& file);

}  // namespace sparsemap::io::onnx_detail
