// Hierarchy and the ERT/ART tables: look-ups by level and component name.
#include "sparsemap/arch/hierarchy.h"

namespace sparsemap::arch {

int Hierarchy::find(const std::string& level_name) const {
  for (size_t i = 0; i < storage.size(); ++i)
    if (storage[i].name == level_name) return static_cast<int>(i);
  return -1;
}

std::string component_base_name(const std::string& full_name) {
  std::string s = full_name;
  if (const auto bracket = s.find('['); bracket != std::string::npos) s = s.substr(0, bracket);
  if (const auto dot = s.rfind('.'); dot != std::string::npos) s = s.substr(dot + 1);
  return s;
}

std::optional<double> ComponentEnergy::energy_pj(const std::string& action) const {
  for (const auto& a : actions)
    if (a.name == action) return a.energy_pj;
  return std::nullopt;
}

const ComponentEnergy* EnergyTable::find(const std::string& name) const {
  for (const auto& c : components)
    if (c.name == name) return &c;
  for (const auto& c : components)
    if (component_base_name(c.name) == name) return &c;
  return nullptr;
}

const ComponentArea* AreaTable::find(const std::string& name) const {
  for (const auto& c : components)
    if (c.name == name) return &c;
  for (const auto& c : components)
    if (component_base_name(c.name) == name) return &c;
  return nullptr;
}

}  // namespace sparsemap::arch
