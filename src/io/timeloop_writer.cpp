// Writer of Timeloop v0.4's map.yaml (io/timeloop.h), the inverse of the mapping reader.
#include <yaml-cpp/yaml.h>

#include <string>

#include "sparsemap/error.h"
#include "sparsemap/io/timeloop.h"

namespace sparsemap::io {

namespace {

bool is_factor_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// "R=3 P=16"; each name must read back through parse_timeloop_factors.
std::string factors_text(const mapping::LoopNestDirective& d, size_t index) {
  std::string s;
  for (const mapping::LoopFactor& f : d.factors) {
    bool ok = !f.dim.empty() && f.value >= 1;
    for (char c : f.dim) ok = ok && is_factor_name_char(c);
    if (!ok)
      throw InputError({"<mapping>", 0, 0},
                       "mapping directive " + std::to_string(index) + " (" +
                           quote_input(d.target, 40) + "): cannot write the factor " +
                           quote_input(f.dim, 20) + "=" + std::to_string(f.value) +
                           " (expected a name of letters, digits, _ and a factor >= 1)");
    if (!s.empty()) s += ' ';
    s += f.dim + "=" + std::to_string(f.value);
  }
  return s;
}

void names(YAML::Emitter& out, const char* key, const std::vector<std::string>& v) {
  out << YAML::Key << key << YAML::Value;
  if (v.empty()) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const std::string& n : v) out << n;
  out << YAML::EndSeq;
}

}  // namespace

std::string write_timeloop_mapping(const mapping::LoopNest& m) {
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::BeginMap << YAML::Key << "mapping" << YAML::Value << YAML::BeginSeq;
  for (size_t i = 0; i < m.directives.size(); ++i) {
    const mapping::LoopNestDirective& d = m.directives[i];
    if (d.target.empty())
      throw InputError({"<mapping>", 0, 0},
                       "mapping directive " + std::to_string(i) + " has no target");
    const bool dataspace = d.kind == mapping::DirectiveKind::kDataspace;
    out << YAML::BeginMap;
    out << YAML::Key << "target" << YAML::Value << d.target;
    out << YAML::Key << "type" << YAML::Value
        << (d.kind == mapping::DirectiveKind::kTemporal  ? "temporal"
            : d.kind == mapping::DirectiveKind::kSpatial ? "spatial"
                                                         : "datatype");
    if (!d.factors.empty()) out << YAML::Key << "factors" << YAML::Value << factors_text(d, i);
    if (!d.permutation.empty()) out << YAML::Key << "permutation" << YAML::Value << d.permutation;
    if (d.split >= 0) out << YAML::Key << "split" << YAML::Value << d.split;
    if (dataspace || !d.keep.empty()) names(out, "keep", d.keep);
    if (dataspace || !d.bypass.empty()) names(out, "bypass", d.bypass);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  if (!out.good())
    throw InputError({"<mapping>", 0, 0},
                     "cannot write the mapping as YAML: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

}  // namespace sparsemap::io
