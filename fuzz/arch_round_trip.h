// Shared by the accelerator-file targets (maestro_hw, arch_yaml): an accepted accelerator,
// written as sparsemap YAML (write_arch_yaml), reads back equal (numbers; the free-text name and
// source are only required to parse).
#pragma once

#include <string>

#include "fuzz_main.h"
#include "sparsemap/arch/arch.h"
#include "sparsemap/io/arch_files.h"

namespace sparsemap::fuzz {

inline void check_yaml_round_trip(const arch::Arch& a) {
  const std::string yaml = io::write_arch_yaml(a);
  try {
    arch::Arch back = io::parse_arch_yaml(yaml, "written.yaml");
    back.name = a.name;  // free text: yaml-cpp re-encodes bytes that are not UTF-8
    back.source = a.source;
    if (!(back == a)) finding("YAML round trip changed the accelerator:\n" + yaml);
  } catch (const InputError& e) {
    finding(std::string("written YAML rejected: ") + e.what() + "\n" + yaml);
  }
}

}  // namespace sparsemap::fuzz
