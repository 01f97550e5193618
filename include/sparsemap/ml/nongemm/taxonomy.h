// NonGEMM Bench's operator taxonomy, read from data (data/nongemm_taxonomy.json): which group
// (GEMM with its attention subgroup, or one of the NonGEMM groups) each operator belongs to.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sparsemap::ml::nongemm {

// The GEMM group's key, and the NonGEMM groups' keys in report order (the JSON keys of the
// taxonomy file and of every report). "other" is last: what the file does not name lands there.
inline constexpr const char* kGemmGroup = "gemm";
const std::vector<std::string>& nongemm_groups();
// "gemm" followed by nongemm_groups().
const std::vector<std::string>& all_groups();

// Where one operator belongs.
struct OpClass {
  std::string group;       // "gemm" or a NonGEMM key
  bool attention = false;  // a GEMM of two activations (attention's QK^T and AV)
  bool known = true;       // false: the taxonomy does not name it (group is "other")
  bool operator==(const OpClass& o) const {
    return group == o.group && attention == o.attention && known == o.known;
  }
};

class Taxonomy {
 public:
  // Parses the taxonomy file's JSON text. `source` names it in errors. Throws InputError
  // (source:line:column where the JSON reader knows it) on bad JSON, an unknown group key,
  // an operator named twice, or a missing section.
  static Taxonomy parse(std::string_view json_text, const std::string& source);
  // Reads and parses a file. Throws InputError when it cannot be read or parsed.
  static Taxonomy load(const std::string& path);
  // The copy of data/nongemm_taxonomy.json compiled into the library.
  static const Taxonomy& builtin();

  // Exact name first, then the name without one trailing '_' (in-place variant); otherwise
  // {"other", false, false}.
  OpClass classify(std::string_view op) const;
  // Number of operator names in the file (all groups).
  size_t size() const { return groups_.size(); }

 private:
  std::unordered_map<std::string, OpClass> groups_;
};

}  // namespace sparsemap::ml::nongemm
