// `sparsemap arch [--list] PRESET|FILE`: accelerator presets and files.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/io/arch_files.h"

namespace sparsemap::cli {

namespace {

nlohmann::json arch_json(const arch::Arch& a) {
  return {{"name", a.name},
          {"source", a.source},
          {"pes", a.num_pes},
          {"array_shape", a.array_shape},
          {"l1_bytes", a.l1_bytes},
          {"l2_bytes", a.l2_bytes},
          {"noc_words_per_cycle", a.noc_words_per_cycle},
          {"offchip_words_per_cycle", a.offchip_words_per_cycle},
          {"word_bytes", a.word_bytes},
          {"clock_mhz", a.clock_mhz},
          {"area_mm2", arch::area_mm2(a)},
          {"energy_pj",
           {{"mac", a.energy.mac_pj},
            {"l1_read", a.energy.l1_read_pj},
            {"l1_write", a.energy.l1_write_pj},
            {"l2_read", a.energy.l2_read_pj},
            {"l2_write", a.energy.l2_write_pj},
            {"noc", a.energy.noc_pj},
            {"offchip", a.energy.offchip_pj}}}};
}

std::string num(double v) {
  std::ostringstream os;
  os << std::setprecision(10) << v;
  return os.str();
}

std::string arch_text(const arch::Arch& a) {
  std::string shape;
  for (size_t i = 0; i < a.array_shape.size(); ++i)
    shape += (i ? "x" : " (") + std::to_string(a.array_shape[i]);
  if (!shape.empty()) shape += ")";
  std::ostringstream os;
  std::string source;
  for (const std::string& l : wrap_text(a.source, kColumns - 12))
    source += (source.empty() ? "" : "\n            ") + l;
  os << a.name << "\n  source:   " << source << "\n  PEs:      " << a.num_pes << shape
     << "\n  L1:       " << with_commas(a.l1_bytes) << " B per PE"
     << "\n  L2:       " << with_commas(a.l2_bytes) << " B"
     << "\n  NoC:      " << num(a.noc_words_per_cycle) << " words/cycle"
     << "\n  off-chip: " << num(a.offchip_words_per_cycle) << " words/cycle"
     << "\n  word:     " << a.word_bytes << " B, clock " << num(a.clock_mhz) << " MHz"
     << "\n  area:     " << num(arch::area_mm2(a)) << " mm^2\n";
  return os.str();
}

struct ArchArgs {
  bool list = false;
  std::string hw;
  std::string json;
};

}  // namespace

void register_arch(CLI::App& app) {
  auto* cmd = app.add_subcommand("arch", "Show an accelerator preset or file, or list the presets");
  auto args = std::make_shared<ArchArgs>();
  cmd->add_flag("--list", args->list, "List the presets with their sources");
  cmd->add_option("hw", args->hw, "Preset name, MAESTRO hardware file (.m) or YAML file");
  cmd->add_option("--json", args->json, "Write JSON to FILE, or - for stdout");
  cmd->callback([args] {
    const bool text = args->json != "-";
    if (args->list || args->hw.empty()) {
      nlohmann::json list = nlohmann::json::array();
      Table table({"preset", "pes", "l1_bytes", "l2_bytes", "source"});
      for (const auto& a : arch::presets()) {
        list.push_back(arch_json(a));
        table.add({a.name, std::to_string(a.num_pes), with_commas(a.l1_bytes),
                   with_commas(a.l2_bytes), a.source});
      }
      if (text) std::cout << table.str();
      if (!args->json.empty()) write_json({{"presets", list}}, args->json);
      return;
    }
    const arch::Arch a = io::load_arch(args->hw, "<argument hw>");
    if (text) std::cout << arch_text(a);
    if (!args->json.empty()) write_json(arch_json(a), args->json);
  });
}

}  // namespace sparsemap::cli
