// libFuzzer target for Accelergy area reference tables (io::parse_timeloop_yaml's `ART:`).
// Checked on every input: the reader returns or throws InputError; every accepted component has
// a name that find() retrieves, by full name and by base name (component_base_name).
#include "timeloop_fuzz.h"

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  return {{"art.yaml", kTimeloopArt},
          {"v3.yaml",
           "ART:\n  version: 0.3\n  tables:\n  - name: S.PE[0..15].Buf\n    area: 12.5\n"
           "  - name: S.DRAM\n    area: 0\n"}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  const std::string text(reinterpret_cast<const char*>(data), size);
  io::TimeloopInputs in;
  if (!fuzz::accepts([&] { in = io::parse_timeloop_yaml(text, "fuzz.yaml"); }) || !in.art) return 0;
  for (const arch::ComponentArea& c : in.art->components) {
    if (c.name.empty()) fuzz::finding("an ART component without a name");
    if (in.art->find(c.name) == nullptr) fuzz::finding("find() misses " + c.name);
    (void)in.art->find(arch::component_base_name(c.name));
  }
  return 0;
}
