// ONNX import through libonnx: shape inference, then Conv, ConvTranspose, Gemm and MatMul
// become GEMM-class layers and the NonGEMM nodes become NonGEMM layers.
#pragma once

#include <string>

#include "sparsemap/workload/model.h"

namespace sparsemap::io {

// Reads a serialized ModelProto. Throws InputError for unreadable files, non-ONNX bytes,
// missing shapes after inference, or unsupported dynamic dimensions.
workload::Model read_onnx(const std::string& path);
workload::Model parse_onnx(const std::string& bytes, const std::string& file);

}  // namespace sparsemap::io
