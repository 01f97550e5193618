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

#include "fuzz_main.h"
#include "sparsemap/io/dfsl.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& text) {
  std::fprintf(stderr, "dfsl_fuzz: %s\n--- written DFSL ---\n%s\n", what, text.c_str());
  std::abort();
}

}  // namespace

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  return {
      {"minimal.m",
       "Network n { Layer L { Type: CONV Dimensions { K: 4, C: 3, R: 3, S: 3, Y: 8, X: 8 } } }"},
      {"constants.m",
       "Constant T 4;\nNetwork n {\n Constant U T;\n Layer L {\n  Type: gemm // c\n  Dimensions "
       "{ M T N U K 9 }\n  Dataflow { TemporalMap (T,U) M; Cluster(Sz(K), L); SpatialMap(1,1) N; "
       "}\n }\n}\n"},
      {"primed.m",
       "Network n { Layer Conv2d-1 { Type: DSCONV\nStride { X: 2 Y: 2 }\nDimensions { K: 1, C: 32 "
       "R: 3, S: 3, Y: 17, X: 17 }\nDataflow { SpatialMap(9,9) Y'; TemporalMap(Sz(S),1) X; "
       "Cluster(3); TemporalMap(64,64) C; } } }"},
      {"comments.m",
       "/* block */ Network n { // line\n Layer L { Type: NGCONV Dimensions { G: 2, N: 1, N: 1, K: "
       "2, C: 2 } } }"},
  };
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  const std::string text(reinterpret_cast<const char*>(data), size);
  io::DfslNetwork net;
  if (!fuzz::accepts([&] { net = io::parse_dfsl(text, "fuzz.m"); })) return 0;
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
