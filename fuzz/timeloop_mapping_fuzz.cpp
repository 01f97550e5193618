// libFuzzer target for Timeloop mappings: io::parse_timeloop_yaml's `mapping:` and the factor
// strings of io::parse_timeloop_factors. The first byte chooses: odd, the rest is a factor
// string ("R=3 P=16", "R3 P16"); even, the rest is a YAML document. Checked on every input: the
// reader returns or throws InputError; accepted factors have names and values >= 1 and read
// back equal from "D=N ..."; an accepted mapping is written (write_timeloop_mapping), read back
// equal, and goes through the loop-nest model on the companion problem and architecture
// without throwing (timeloop_fuzz.h).
#include "timeloop_fuzz.h"

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  return {{"map.yaml", std::string("\x00", 1) + kTimeloopMapping},
          {"factors_eq", "\x01R=3 P=16,K=2"},
          {"factors_mapper",
           "\x01"
           "C1 M16 R3 S1 N1 P14 Q2"},
          {"list.yaml", std::string("\x00", 1) +
                            "mapping:\n- target: GlobalBuffer\n  type: temporal\n"
                            "  factors: [R=3, P16]\n  permutation: [P, R, K]\n"
                            "- {target: MainMemory, type: bypass, keep: Weights, bypass: []}\n"}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    std::vector<mapping::LoopFactor> f;
    if (!fuzz::accepts([&] { f = io::parse_timeloop_factors(text, {"fuzz", 1, 1}); })) return 0;
    std::string again;
    for (const auto& x : f) {
      if (x.dim.empty() || x.value < 1) fuzz::finding("a factor without a name or below 1");
      again += x.dim + "=" + std::to_string(x.value) + " ";
    }
    std::vector<mapping::LoopFactor> g;
    if (!fuzz::accepts([&] { g = io::parse_timeloop_factors(again, {"fuzz", 1, 1}); }) || g != f)
      fuzz::finding("factors do not read back from " + again);
    return 0;
  }
  static const io::TimeloopInputs problem = fuzz::companion(fuzz::kTimeloopProblem);
  static const io::TimeloopInputs arch = fuzz::companion(fuzz::kTimeloopArch);
  io::TimeloopInputs in;
  if (!fuzz::accepts([&] { in = io::parse_timeloop_yaml(text, "fuzz.yaml"); }) || !in.mapping)
    return 0;
  std::string written;
  if (!fuzz::accepts([&] { written = io::write_timeloop_mapping(*in.mapping); })) return 0;
  io::TimeloopInputs back;
  if (!fuzz::accepts([&] { back = io::parse_timeloop_yaml(written, "written.yaml"); }))
    fuzz::finding("the written mapping does not parse:\n" + written);
  if (!back.mapping || !(*back.mapping == *in.mapping))
    fuzz::finding("the written mapping reads back different:\n" + written);
  fuzz::check_evaluation(*problem.problem, *arch.arch, *in.mapping, nullptr);
  return 0;
}
