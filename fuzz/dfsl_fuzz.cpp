// libFuzzer target for the DFSL reader. Properties checked on every input:
// 1. parse_dfsl either returns or throws InputError: no crash, hang, leak or UB (ASan, UBSan);
// 2. what it accepts, write_dfsl writes and parse_dfsl reads back to an equal network, with no
//    warnings (clamping is idempotent);
// 3. the layer arithmetic on an accepted layer (MACs, operand sizes) stays free of UB.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sparsemap/io/dfsl.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& text) {
  std::fprintf(stderr, "dfsl_fuzz: %s\n--- written DFSL ---\n%s\n", what, text.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  const std::string text(reinterpret_cast<const char*>(data), size);
  io::DfslNetwork net;
  try {
    net = io::parse_dfsl(text, "fuzz.m");
  } catch (const InputError&) {
    return 0;
  }
  const std::string written = io::write_dfsl(net);
  try {
    const io::DfslNetwork back = io::parse_dfsl(written, "written.m");
    if (!(back == net)) fail("round trip changed the network", written);
    if (!back.warnings.empty()) fail(back.warnings.front().str().c_str(), written);
  } catch (const InputError& e) {
    fail(e.what(), written);
  }
  uint64_t sink = 0;  // unsigned: the sum itself may wrap, the terms must not overflow
  for (const auto& l : net.layers) {
    const int64_t terms[] = {l.layer.macs(),         l.layer.input_elems(), l.layer.weight_elems(),
                             l.layer.output_elems(), l.layer.params(),      l.layer.out_y(),
                             l.layer.out_x()};
    for (int64_t t : terms) sink += static_cast<uint64_t>(t);
    for (int64_t c : l.mapping.cluster_sizes(l.layer)) sink += static_cast<uint64_t>(c);
    sink += l.mapping.levels().size();
  }
  if (sink == 42) std::fprintf(stderr, " ");  // keeps the calls from being optimised away
  return 0;
}
