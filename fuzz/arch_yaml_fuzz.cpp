// libFuzzer target for YAML accelerator files (io::parse_arch_yaml, yaml-cpp underneath).
// Checked on every input: parse_arch_yaml returns or throws InputError (no crash, hang, leak or
// UB); an accepted accelerator is written back (write_arch_yaml) and read back equal (numbers; the
// free-text name and source are only required to parse).
#include "arch_round_trip.h"
#include "fuzz_main.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/io/arch_files.h"

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  Seeds s = {{"override.yaml", "base: gamma-edge\nnum_pes: 64\nenergy: {mac_pj: 0.5}\n"},
             {"shape.yaml",
              "name: x\narray_shape: [8, 16]\nl1_bytes: 512\nclock_mhz: 800\n"
              "area: {pe_um2: 1200, sram_um2_per_bit: 0.3}\n"}};
  for (const arch::Arch& a : arch::presets())
    s.push_back({"preset_" + a.name + ".yaml", io::write_arch_yaml(a)});
  return s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  const std::string text(reinterpret_cast<const char*>(data), size);
  arch::Arch a;
  if (!fuzz::accepts([&] { a = io::parse_arch_yaml(text, "fuzz.yaml"); })) return 0;
  fuzz::check_yaml_round_trip(a);
  return 0;
}
