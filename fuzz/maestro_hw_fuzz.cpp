// libFuzzer target for MAESTRO hardware files (io::parse_maestro_hw). Checked on every input:
// parse_maestro_hw returns or throws InputError (no crash, hang, leak or UB); an accepted
// accelerator is written as sparsemap YAML (write_arch_yaml) and read back equal (numbers; the
// free-text name and source are only required to parse).
#include "arch_round_trip.h"
#include "fuzz_main.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/maestro_export.h"

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  Seeds s = {{"example.m",
              "// MAESTRO example\nnum_pes: 256\nl1_size_cstr: 100\nl2_size_cstr: 3000\n"
              "noc_bw_cstr: 1000\noffchip_bw_cstr: 50\n"},
             {"partial.m", "num_pes: 64 // PEs\n\nnoc_bw_cstr: 32\n"}};
  for (const arch::Arch& a : arch::presets())
    accepts([&] { s.push_back({"preset_" + a.name + ".m", io::write_maestro_hw(a)}); });
  return s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  const std::string text(reinterpret_cast<const char*>(data), size);
  arch::Arch a;
  if (!fuzz::accepts([&] { a = io::parse_maestro_hw(text, "fuzz.m"); })) return 0;
  fuzz::check_yaml_round_trip(a);
  return 0;
}
