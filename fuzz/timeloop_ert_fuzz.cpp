// libFuzzer target for Accelergy energy reference tables (io::parse_timeloop_yaml's `ERT:`).
// Checked on every input: the reader returns or throws InputError; every accepted component and
// action has a name; the companion design (timeloop_fuzz.h) priced with the fuzzed table goes
// through the loop-nest model without throwing and conserves its operations.
#include "timeloop_fuzz.h"

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  return {{"ert.yaml", kTimeloopErt},
          {"args.yaml",
           "ERT:\n  version: 0.3\n  tables:\n  - name: S.PE[0..15].Buf\n    actions:\n"
           "    - name: read\n      arguments: {data_delta: 1, address_delta: [1, 2]}\n"
           "      energy: 1.5e-1\n    - {name: idle, energy: 0}\n"}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  static const io::TimeloopInputs problem = fuzz::companion(fuzz::kTimeloopProblem);
  static const io::TimeloopInputs arch = fuzz::companion(fuzz::kTimeloopArch);
  static const io::TimeloopInputs map = fuzz::companion(fuzz::kTimeloopMapping);
  const std::string text(reinterpret_cast<const char*>(data), size);
  io::TimeloopInputs in;
  if (!fuzz::accepts([&] { in = io::parse_timeloop_yaml(text, "fuzz.yaml"); }) || !in.ert) return 0;
  for (const arch::ComponentEnergy& c : in.ert->components) {
    if (c.name.empty()) fuzz::finding("an ERT component without a name");
    for (const arch::ActionEnergy& a : c.actions)
      if (a.name.empty()) fuzz::finding("an action without a name in " + c.name);
    if (in.ert->find(c.name) == nullptr) fuzz::finding("find() misses " + c.name);
  }
  fuzz::check_evaluation(*problem.problem, *arch.arch, *map.mapping, &*in.ert);
  return 0;
}
