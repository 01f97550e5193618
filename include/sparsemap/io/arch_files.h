// Readers of accelerator descriptions: MAESTRO hardware files and sparsemap's YAML.
#pragma once

#include <string>

#include "sparsemap/arch/arch.h"

namespace sparsemap::io {

// MAESTRO hardware file: "num_pes: 256", "l1_size_cstr: 100", "l2_size_cstr: 3000",
// "noc_bw_cstr: 1000", "offchip_bw_cstr: 50" (one per line, // comments). Missing keys keep
// MAESTRO's defaults. Throws InputError on unknown keys or bad numbers.
arch::Arch parse_maestro_hw(const std::string& text, const std::string& file);
arch::Arch read_maestro_hw(const std::string& path);

// YAML accelerator file: keys named as the Arch fields (num_pes, l1_bytes, l2_bytes,
// noc_words_per_cycle, offchip_words_per_cycle, word_bytes, clock_mhz, array_shape,
// energy: {mac_pj, ...}, area: {pe_um2, sram_um2_per_bit}), optionally `base: PRESET`
// (default arch::kDefaultPreset), which the other keys override; name defaults to the file stem.
arch::Arch parse_arch_yaml(const std::string& text, const std::string& file);
std::string write_arch_yaml(const arch::Arch& a);

// Resolves the --hw flag: a preset name, a MAESTRO hardware file (.m) or a YAML file.
arch::Arch load_arch(const std::string& preset_or_path);

}  // namespace sparsemap::io
