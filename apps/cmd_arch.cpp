// `sparsemap arch [--list] [--hierarchy] PRESET|FILE`: accelerator presets and files, and
// their three-level hierarchy view (levels, ERT, ART).
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/arch/area.h"
#include "sparsemap/arch/describe.h"
#include "sparsemap/arch/maestro_hierarchy.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/io/arch_files.h"

namespace sparsemap::cli {

namespace {

std::string num(double v) {
  std::ostringstream os;
  os << std::setprecision(10) << v;
  return os.str();
}

std::string hierarchy_text(const arch::ArchHierarchy& v) {
  const arch::Hierarchy& h = v.hierarchy;
  auto g6 = [](double v) {  // table figures: 6 significant digits (JSON has them all)
    std::ostringstream os;
    os << std::setprecision(6) << v;
    return os.str();
  };
  auto bw = [&](double b) { return b > 0 ? g6(b) : std::string("unlimited"); };
  auto energy = [&](const std::string& name) {
    std::string out;
    if (const arch::ComponentEnergy* c = v.ert.find(name))
      for (const arch::ActionEnergy& a : c->actions)
        out += (out.empty() ? "" : " ") + a.name + " " + g6(a.energy_pj);
    return out;
  };
  auto area = [&](const std::string& name) {
    const arch::ComponentArea* c = v.art.find(name);
    return c ? g6(c->area_um2) : std::string("-");
  };
  Table t({"level", "instances", "mesh", "words", "word_bits", "read_bw", "write_bw", "um2_each",
           "pJ per action"});
  for (const arch::StorageLevel& s : h.storage)
    t.add({s.name, with_commas(s.instances),
           std::to_string(s.mesh_x) + "x" + std::to_string(s.mesh_y),
           s.capacity_words() > 0 ? with_commas(s.capacity_words()) : "unbounded",
           std::to_string(s.datawidth_bits), bw(s.read_bandwidth), bw(s.write_bandwidth),
           area(s.name), energy(s.name)});
  t.add({h.compute.name, with_commas(h.compute.instances),
         std::to_string(h.compute.mesh_x) + "x" + std::to_string(h.compute.mesh_y), "-",
         std::to_string(h.compute.datawidth_bits), "-", "-", area(h.compute.name),
         energy(h.compute.name)});
  auto wrapped = [](const std::string& label, const std::string& text) {
    std::string out;
    for (const std::string& l : wrap_text(text, kColumns - 7))
      out += (out.empty() ? "  " + label + ": " : "       ") + l + "\n";
    return out;
  };
  std::ostringstream os;
  os << "\nhierarchy (outermost first; cycle " << num(h.global_cycle_seconds) << " s)\n"
     << t.str() << "  NoC: " << energy(arch::kNocComponent) << " pJ per word\n"
     << wrapped("ERT", v.ert.source) << wrapped("ART", v.art.source)
     << "  area: " << num(arch::area_um2(h, v.art)) << " um^2\n";
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
  bool hierarchy = false;
  std::string hw;
  std::string json;
};

const options::Table<ArchArgs>& arch_options() {
  static const options::Table<ArchArgs> table = {
      {"--list", "List the presets with their sources", SM_FIELD(ArchArgs, list)},
      {"--hierarchy",
       "Also show the three-level storage hierarchy (levels, ERT, ART); JSON key \"hierarchy\"",
       SM_FIELD(ArchArgs, hierarchy)},
      {"hw", "Preset name, MAESTRO hardware file (.m) or YAML file", SM_FIELD(ArchArgs, hw)},
      {"--json", options::kJsonHelp, SM_FIELD(ArchArgs, json)},
  };
  return table;
}

}  // namespace

void register_arch(CLI::App& app) {
  auto* cmd = app.add_subcommand("arch", "Show an accelerator preset or file, or list the presets");
  auto args = std::make_shared<ArchArgs>();
  add_options(cmd, arch_options(), *args);
  cmd->callback([args] {
    const bool text = args->json != "-";
    if (args->list || args->hw.empty()) {
      Table table({"preset", "pes", "l1_bytes", "l2_bytes", "source"});
      for (const auto& a : arch::presets())
        table.add({a.name, std::to_string(a.num_pes), with_commas(a.l1_bytes),
                   with_commas(a.l2_bytes), a.source});
      if (text) std::cout << table.str();
      if (!args->json.empty()) write_json(arch::presets_json(), args->json);
      return;
    }
    const arch::Arch a = io::load_arch(args->hw, "<argument hw>");
    const arch::ArchHierarchy v = arch::to_hierarchy(a);
    if (text) std::cout << arch_text(a) << (args->hierarchy ? hierarchy_text(v) : "");
    if (args->json.empty()) return;
    nlohmann::json j = arch::arch_json(a);
    if (args->hierarchy) j["hierarchy"] = arch::hierarchy_json(v);
    write_json(j, args->json);
  });
}

}  // namespace sparsemap::cli
