// libFuzzer target for ONNX models (io::onnx_detail::parse_onnx_linked from bytes: protobuf, then
// sparsemap's own shape inference). Checked on every input: the reader returns or throws InputError
// (no crash, hang, leak or UB), and the layer arithmetic on what it accepts stays free of UB.
// Seeds: data/onnx/*.onnx (scripts/fuzz.sh).
#include "fuzz_main.h"
#include "layer_check.h"
#include "onnx_linked.h"  // src/io (fuzz/CMakeLists.txt)

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() { return {}; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  workload::Model m;
  if (!fuzz::accepts([&] { m = io::onnx_detail::parse_onnx_linked(bytes, "fuzz.onnx"); })) return 0;
  fuzz::check_layers(m.layers);
  (void)m.total_macs();
  return 0;
}
