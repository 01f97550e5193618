// Writer of Timeloop v0.4's map.yaml (io/timeloop.h), the inverse of the mapping reader.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "sparsemap/error.h"
#include "sparsemap/io/timeloop.h"

namespace sparsemap::io {

namespace {

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF): YAML is
// Unicode text, and yaml-cpp's emitter turns anything else into U+FFFD, which reads back as
// another name.
bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0, min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // a truncated sequence
    for (size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n + 1;
  }
  return true;
}

// Throws unless `text` can be written and read back unchanged.
void check_text(const std::string& text, const std::string& what, size_t index) {
  if (!valid_utf8(text))
    throw InputError({"<mapping>", 0, 0}, "mapping directive " + std::to_string(index) +
                                              ": cannot write " + what + " " +
                                              quote_input(text, 40) + " (expected UTF-8 text)");
}

// `s` as a YAML scalar: double-quoted (where yaml-cpp escapes control characters) when it holds
// a control character or non-ASCII text, since yaml-cpp's plain style keeps a carriage return
// raw, which its reader then takes as a line break; otherwise as the emitter chooses (plain, or
// quoted where YAML needs it).
void text(YAML::Emitter& out, const std::string& s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f) {
      out << YAML::DoubleQuoted << s;
      return;
    }
  }
  out << s;
}

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
  for (const std::string& n : v) text(out, n);
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
    check_text(d.target, "the target", i);
    check_text(d.permutation, "the permutation", i);
    for (const auto& n : d.keep) check_text(n, "the name", i);
    for (const auto& n : d.bypass) check_text(n, "the name", i);
    const bool dataspace = d.kind == mapping::LoopNestDirectiveKind::kDataspace;
    out << YAML::BeginMap;
    out << YAML::Key << "target" << YAML::Value;
    text(out, d.target);
    out << YAML::Key << "type" << YAML::Value
        << (d.kind == mapping::LoopNestDirectiveKind::kTemporal  ? "temporal"
            : d.kind == mapping::LoopNestDirectiveKind::kSpatial ? "spatial"
                                                                 : "datatype");
    if (!d.factors.empty()) out << YAML::Key << "factors" << YAML::Value << factors_text(d, i);
    if (!d.permutation.empty()) {
      out << YAML::Key << "permutation" << YAML::Value;
      text(out, d.permutation);
    }
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
