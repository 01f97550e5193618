// Readers of accelerator descriptions: MAESTRO hardware files, sparsemap's YAML, and --hw.
#include "sparsemap/io/arch_files.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "sparsemap/arch/presets.h"
#include "sparsemap/error.h"
#include "sparsemap/io/util.h"

namespace sparsemap::io {
namespace {

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

bool parse_int(std::string_view s, int64_t& v) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parse_double(std::string_view s, double& v) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(v);
}

std::string quote_text(std::string_view s) { return quote_input(s, 40); }

// ---- MAESTRO hardware files ---------------------------------------------------------------

enum class HwKey { NumPes, L1, L2, Noc, Offchip };
const std::pair<const char*, HwKey> kHwKeys[] = {{"num_pes", HwKey::NumPes},
                                                 {"l1_size_cstr", HwKey::L1},
                                                 {"l2_size_cstr", HwKey::L2},
                                                 {"noc_bw_cstr", HwKey::Noc},
                                                 {"offchip_bw_cstr", HwKey::Offchip}};

// The Arch field (as arch::check_fields names it) that a MAESTRO key sets.
std::string arch_field(HwKey k) {
  switch (k) {
    case HwKey::NumPes:
      return "num_pes";
    case HwKey::L1:
      return "l1_bytes";
    case HwKey::L2:
      return "l2_bytes";
    case HwKey::Noc:
      return "noc_words_per_cycle";
    default:
      return "offchip_words_per_cycle";
  }
}

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// ---- YAML ---------------------------------------------------------------------------------

SourceLocation at(const std::string& file, const YAML::Mark& m) {
  if (m.is_null()) return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& n, const std::string& message) const {
    throw InputError(at(file_, n.Mark()), message);
  }
  std::string scalar(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, "expected a single value for " + key);
    return n.Scalar();
  }
  int64_t integer(const YAML::Node& n, const std::string& key) const {
    const std::string s = scalar(n, key);
    int64_t v = 0;
    if (!parse_int(s, v)) fail(n, "expected an integer for " + key + ", found " + quote_text(s));
    return v;
  }
  double number(const YAML::Node& n, const std::string& key) const {
    const std::string s = scalar(n, key);
    double v = 0;
    if (!parse_double(s, v)) fail(n, "expected a number for " + key + ", found " + quote_text(s));
    return v;
  }
  // Calls `on(key, value_node)` for each entry of map `n`; duplicates are errors.
  template <typename F>
  void each(const YAML::Node& n, const std::string& what, F on) const {
    if (!n.IsMap()) fail(n, "expected a mapping of " + what);
    std::set<std::string> seen;
    for (const auto& kv : n) {
      const std::string key = scalar(kv.first, "a key");
      if (!seen.insert(key).second) fail(kv.first, "duplicate key '" + key + "'");
      on(key, kv.first, kv.second);
    }
  }

 private:
  std::string file_;
};

}  // namespace

arch::Arch parse_maestro_hw(const std::string& raw, const std::string& file) {
  const std::string_view text = without_bom(raw);
  arch::Arch a = arch::preset(arch::kDefaultPreset);
  a.name = stem(file);
  a.source = "MAESTRO hardware file " + file;
  std::map<HwKey, int> seen;                    // key -> line
  std::map<std::string, SourceLocation> where;  // Arch field -> where its value is
  int line_no = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++line_no;
    if (const size_t c = line.find("//"); c != std::string_view::npos) line = line.substr(0, c);
    auto fail = [&](size_t col, const std::string& msg) {
      throw InputError({file, line_no, static_cast<int>(col) + 1}, msg);
    };
    auto skip_space = [&](size_t i) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      return i;
    };
    size_t i = skip_space(0);
    if (i == line.size()) continue;
    const size_t key_at = i;
    while (i < line.size() && is_key_char(line[i])) ++i;
    const std::string_view key = line.substr(key_at, i - key_at);
    const std::string keys = "num_pes, l1_size_cstr, l2_size_cstr, noc_bw_cstr or offchip_bw_cstr";
    if (key.empty())
      fail(key_at, "expected a key (" + keys + "), found " + quote_text(line.substr(i, 1)));
    const HwKey* k = nullptr;
    for (const auto& [name, hk] : kHwKeys)
      if (key == name) k = &hk;
    if (!k) fail(key_at, "unknown key " + quote_text(key) + ": expected " + keys);
    if (auto [it, fresh] = seen.emplace(*k, line_no); !fresh)
      fail(key_at,
           std::string(key) + " given twice (first on line " + std::to_string(it->second) + ")");
    i = skip_space(i);
    if (i >= line.size() || line[i] != ':') fail(i, "expected ':' after " + std::string(key));
    i = skip_space(i + 1);
    const size_t value_at = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' &&
           line[i] != ';')
      ++i;
    const std::string_view value = line.substr(value_at, i - value_at);
    i = skip_space(i);
    if (i < line.size() && line[i] == ';') i = skip_space(i + 1);
    if (i < line.size())
      fail(i,
           "unexpected " + quote_text(line.substr(i)) + " after the value of " + std::string(key));
    where[arch_field(*k)] = {file, line_no, static_cast<int>(value_at) + 1};
    if (*k == HwKey::NumPes || *k == HwKey::L1 || *k == HwKey::L2) {
      int64_t v = 0;
      if (!parse_int(value, v) || v <= 0)
        fail(value_at, "expected a positive integer for " + std::string(key) + ", found " +
                           (value.empty() ? std::string("nothing") : quote_text(value)));
      (*k == HwKey::NumPes ? a.num_pes : *k == HwKey::L1 ? a.l1_bytes : a.l2_bytes) = v;
    } else {
      double v = 0;
      if (!parse_double(value, v) || v <= 0)
        fail(value_at, "expected a positive number for " + std::string(key) + ", found " +
                           (value.empty() ? std::string("nothing") : quote_text(value)));
      (*k == HwKey::Noc ? a.noc_words_per_cycle : a.offchip_words_per_cycle) = v;
    }
  }
  if (seen.empty())
    throw InputError({file, 0, 0},
                     "no hardware keys; expected num_pes, l1_size_cstr, l2_size_cstr, noc_bw_cstr "
                     "or offchip_bw_cstr (an empty file is not an accelerator)");
  if (const auto e = arch::check_fields(a)) {
    std::string key = e->field;  // the file's own name for the field
    for (const auto& [name, hk] : kHwKeys)
      if (arch_field(hk) == e->field) key = name;
    auto it = where.find(e->field);
    throw InputError(it != where.end() ? it->second : SourceLocation{file, 0, 0},
                     "expected " + key + " " + e->expected + ", found " + e->found);
  }
  return a;
}

arch::Arch read_maestro_hw(const std::string& path) {
  return parse_maestro_hw(read_file(path), path);
}

// YAML: `base: PRESET` first (default: arch::kDefaultPreset), then every other key overrides
// its field. `name` defaults to the file stem, `source` to "YAML file PATH (base PRESET)".
// Unknown keys, duplicates, wrong types: InputError at the node; YAML syntax errors: InputError
// at yaml-cpp's mark. arch::validate checks the result.
arch::Arch parse_arch_yaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(at(file, e.mark), "invalid YAML: " + e.msg);
  }
  const YamlReader r(file);
  if (!root.IsMap())
    throw InputError(at(file, root.Mark()),
                     "expected a mapping of accelerator fields (num_pes: 256, ...)");
  std::string base = arch::kDefaultPreset;
  if (const YAML::Node b = root["base"]) {
    base = r.scalar(b, "base");
    if (!arch::is_preset(base)) r.fail(b, "unknown preset '" + base + "' for base");
  }
  arch::Arch a = arch::preset(base);
  a.name = stem(file);
  a.source = "YAML file " + file + " (base " + arch::preset(base).name + ")";
  const std::pair<const char*, int64_t*> integers[] = {{"num_pes", &a.num_pes},
                                                       {"l1_bytes", &a.l1_bytes},
                                                       {"l2_bytes", &a.l2_bytes},
                                                       {"word_bytes", &a.word_bytes}};
  const std::pair<const char*, double*> numbers[] = {
      {"noc_words_per_cycle", &a.noc_words_per_cycle},
      {"offchip_words_per_cycle", &a.offchip_words_per_cycle},
      {"clock_mhz", &a.clock_mhz}};
  const std::pair<const char*, double*> energies[] = {
      {"mac_pj", &a.energy.mac_pj},           {"l1_read_pj", &a.energy.l1_read_pj},
      {"l1_write_pj", &a.energy.l1_write_pj}, {"l2_read_pj", &a.energy.l2_read_pj},
      {"l2_write_pj", &a.energy.l2_write_pj}, {"noc_pj", &a.energy.noc_pj},
      {"offchip_pj", &a.energy.offchip_pj}};
  const std::pair<const char*, double*> areas[] = {{"pe_um2", &a.area.pe_um2},
                                                   {"sram_um2_per_bit", &a.area.sram_um2_per_bit}};
  std::map<std::string, YAML::Mark> marks;  // field -> where its value is
  // A nested mapping of numbers: "energy: {mac_pj: 1, ...}".
  auto read_group = [&](const YAML::Node& v, const std::string& group, const char* what,
                        const auto& fields, const char* expected) {
    r.each(v, what, [&](const std::string& k, const YAML::Node& kn, const YAML::Node& x) {
      marks[group + "." + k] = x.Mark();
      for (const auto& [name, field] : fields)
        if (k == name) return void(*field = r.number(x, group + "." + k));
      r.fail(kn, "unknown key '" + group + "." + k + "': expected " + expected);
    });
  };
  r.each(root, "accelerator fields",
         [&](const std::string& key, const YAML::Node& kn, const YAML::Node& v) {
           marks[key] = v.Mark();
           for (const auto& [name, field] : integers)
             if (key == name) return void(*field = r.integer(v, key));
           for (const auto& [name, field] : numbers)
             if (key == name) return void(*field = r.number(v, key));
           if (key == "base") return;
           if (key == "name") return void(a.name = r.scalar(v, key));
           if (key == "source") return void(a.source = r.scalar(v, key));
           if (key == "array_shape") {
             if (!v.IsSequence()) r.fail(v, "expected a list of integers for array_shape");
             a.array_shape.clear();
             for (const auto& e : v) a.array_shape.push_back(r.integer(e, "array_shape"));
             return;
           }
           if (key == "energy")
             return read_group(
                 v, key, "energies", energies,
                 "mac_pj, l1_read_pj, l1_write_pj, l2_read_pj, l2_write_pj, noc_pj or "
                 "offchip_pj");
           if (key == "area")
             return read_group(v, key, "area constants", areas, "pe_um2 or sram_um2_per_bit");
           r.fail(kn,
                  "unknown key '" + key +
                      "': expected base, name, source, num_pes, array_shape, l1_bytes, l2_bytes, "
                      "noc_words_per_cycle, offchip_words_per_cycle, word_bytes, clock_mhz, energy "
                      "or area");
         });
  if (const auto e = arch::check_fields(a)) {
    auto it = marks.find(e->field);  // a field the base preset set is located at the file
    throw InputError(it != marks.end() ? at(file, it->second) : SourceLocation{file, 0, 0},
                     e->message());
  }
  return a;
}

// Every field, doubles in their shortest exact form, so that parse_arch_yaml reads back an
// equal Arch.
std::string write_arch_yaml(const arch::Arch& a) {
  auto num = [](double v) { return fmt::format("{}", v); };
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << a.name;
  out << YAML::Key << "source" << YAML::Value << a.source;
  out << YAML::Key << "num_pes" << YAML::Value << a.num_pes;
  out << YAML::Key << "array_shape" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (int64_t d : a.array_shape) out << d;
  out << YAML::EndSeq;
  out << YAML::Key << "l1_bytes" << YAML::Value << a.l1_bytes;
  out << YAML::Key << "l2_bytes" << YAML::Value << a.l2_bytes;
  out << YAML::Key << "noc_words_per_cycle" << YAML::Value << num(a.noc_words_per_cycle);
  out << YAML::Key << "offchip_words_per_cycle" << YAML::Value << num(a.offchip_words_per_cycle);
  out << YAML::Key << "word_bytes" << YAML::Value << a.word_bytes;
  out << YAML::Key << "clock_mhz" << YAML::Value << num(a.clock_mhz);
  out << YAML::Key << "energy" << YAML::Value << YAML::BeginMap;
  const std::pair<const char*, double> energies[] = {
      {"mac_pj", a.energy.mac_pj},           {"l1_read_pj", a.energy.l1_read_pj},
      {"l1_write_pj", a.energy.l1_write_pj}, {"l2_read_pj", a.energy.l2_read_pj},
      {"l2_write_pj", a.energy.l2_write_pj}, {"noc_pj", a.energy.noc_pj},
      {"offchip_pj", a.energy.offchip_pj}};
  for (const auto& [k, v] : energies) out << YAML::Key << k << YAML::Value << num(v);
  out << YAML::EndMap;
  out << YAML::Key << "area" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "pe_um2" << YAML::Value << num(a.area.pe_um2);
  out << YAML::Key << "sram_um2_per_bit" << YAML::Value << num(a.area.sram_um2_per_bit);
  out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

arch::Arch load_arch(const std::string& preset_or_path, const std::string& flag) {
  const std::string& s = preset_or_path;
  if (arch::is_preset(s)) return arch::preset(s);
  const std::string ext = std::filesystem::path(s).extension().string();
  if (ext == ".m") return read_maestro_hw(s);
  if (ext == ".yaml" || ext == ".yml") return parse_arch_yaml(read_file(s), s);
  throw InputError({flag, 0, 0},
                   "unknown accelerator '" + s +
                       "': expected a preset name (see `sparsemap arch --list`) or a .m/.yaml "
                       "file");
}

}  // namespace sparsemap::io
