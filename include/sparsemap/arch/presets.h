// Named accelerator presets, each with its source.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sparsemap/arch/arch.h"

namespace sparsemap::arch {

const std::vector<Arch>& presets();  // stable order; name and source set on each
// The preset of that name (underscores accepted for hyphens), or throws InputError.
Arch preset(std::string_view name);
bool is_preset(std::string_view name);
inline constexpr const char* kDefaultPreset = "maestro-example";

}  // namespace sparsemap::arch
