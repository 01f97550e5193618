// Readers of accelerator descriptions: MAESTRO hardware files and sparsemap's YAML.
#pragma once

#include <string>

#include "sparsemap/arch/arch.h"

namespace sparsemap::io {

// MAESTRO hardware file: "num_pes: 256", "l1_size_cstr: 100", "l2_size_cstr: 3000",
// "noc_bw_cstr: 1000", "offchip_bw_cstr: 50" (one per line, // comments). Missing keys keep
// MAESTRO's defaults; a file without any key is an error. Throws InputError at the value on
// unknown keys, bad numbers or a value outside its physical range (arch::check_fields).
arch::Arch parse_maestro_hw(const std::string& text, const std::string& file);
arch::Arch read_maestro_hw(const std::string& path);

// YAML accelerator file: keys named as the Arch fields (num_pes, l1_bytes, l2_bytes,
// noc_words_per_cycle, offchip_words_per_cycle, word_bytes, clock_mhz, array_shape,
// energy: {mac_pj, ...}, area: {pe_um2, sram_um2_per_bit}), optionally `base: PRESET`
// (default arch::kDefaultPreset), which the other keys override; name defaults to the file stem.
// A value outside its physical range (arch::check_fields) is an InputError at its line:column.
arch::Arch parse_arch_yaml(const std::string& text, const std::string& file);
std::string write_arch_yaml(const arch::Arch& a);

// Resolves the --hw flag: a preset name, a MAESTRO hardware file (.m) or a YAML file. `flag`
// labels the error for a name that is neither ("<flag --hw>", "<argument hw>").
arch::Arch load_arch(const std::string& preset_or_path, const std::string& flag = "<flag --hw>");

}  // namespace sparsemap::io
