// Internal to the Timeloop readers: typed access to yaml-cpp nodes with InputError at
// file:line:column.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::io::timeloop_detail {

SourceLocation at(const std::string& file, const YAML::Mark& m);

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  SourceLocation where(const YAML::Node& n) const { return at(file_, n.Mark()); }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& message) const;

  std::string scalar(const YAML::Node& n, const std::string& what) const;
  int64_t integer(const YAML::Node& n, const std::string& what) const;
  int64_t positive(const YAML::Node& n, const std::string& what) const;  // >= 1
  double number(const YAML::Node& n, const std::string& what) const;
  bool boolean(const YAML::Node& n, const std::string& what) const;
  // Names: a sequence of scalars, or one scalar ("Weights").
  std::vector<std::string> names(const YAML::Node& n, const std::string& what) const;
  // A sequence of scalars joined by single spaces (["C", "M"] -> "C M"), or one scalar as it is;
  // `item` names an element in the error of a non-scalar one.
  std::string joined(const YAML::Node& n, const std::string& what, const std::string& item) const;

  // Calls on(key, key_node, value_node) for each entry of mapping `n` (duplicates are errors).
  // Keys are read with '-' as '_' (v0.3 spelling).
  void each(const YAML::Node& n, const std::string& what,
            const std::function<void(const std::string&, const YAML::Node&, const YAML::Node&)>& on)
      const;
  // Same for a sequence.
  void each_item(const YAML::Node& n, const std::string& what,
                 const std::function<void(const YAML::Node&)>& on) const;

 private:
  std::string file_;
};

// Key with '-' read as '_'.
std::string normalise_key(const std::string& key);

}  // namespace sparsemap::io::timeloop_detail

#include <map>

#include "sparsemap/arch/sparse_optimizations.h"
#include "sparsemap/workload/density.h"
#include "sparsemap/workload/einsum.h"

namespace sparsemap::arch {
struct Hierarchy;
}

namespace sparsemap::io::timeloop_detail {

// `architecture:` in either form; `constraints` is `architecture_constraints:` or a null node.
arch::Hierarchy parse_architecture(const Reader& r, const YAML::Node& node,
                                   const YAML::Node& constraints);

// Top-level `sparse_optimizations:` ({targets: [{name, representation_format,
// action_optimization, compute_optimization}]}), timeloop_sparse.cpp.
arch::SparseOptimizations parse_sparse_optimizations(const Reader& r, const YAML::Node& n);
// The `sparse_optimizations` of every !Component of a tag-form `architecture:` (empty for the
// flattened form).
arch::SparseOptimizations tag_sparse_optimizations(const Reader& r, const YAML::Node& arch_node);
// `problem.instance.densities`: name -> a density (fixed_structured) or {distribution, density,
// band_width, workload_tensor_size}, or {distribution: actual, file: F.npy}; an actual density's
// file is read as the data space of `problem` it names (io/actual_density.h), its path relative to
// the YAML file's folder.
std::map<std::string, workload::DensityModel> parse_densities(const Reader& r, const YAML::Node& n,
                                                              const workload::Einsum& problem);

}  // namespace sparsemap::io::timeloop_detail

namespace sparsemap::io::timeloop_detail {

// A file's text with its `{{include_text('path')}}` directives replaced by the named files'
// texts (relative to the including file, nested up to 8 deep), and where each line came from.
// Any other Jinja ('{{', '{%', '{#') is an InputError at its line and column.
struct IncludedText {
  std::string text;
  std::vector<std::pair<std::string, int>> origins;  // [line - 1]: (file, line)
  // `at` (a location in `text`) as the file and line it came from.
  SourceLocation origin(const SourceLocation& at) const;
};
IncludedText expand_includes(const std::string& text, const std::string& file);

// `text` with the body of each top-level block `key:` of `ignored` emptied (its lines kept, as
// empty lines, so every other line keeps its number): a processed input's
// `compound_components` is over half its text and nothing reads it, and yaml-cpp parses about
// 1.5 MB/s. A block is emptied only when written in block style (nothing but a comment after
// the colon) and free of anchors, aliases and tags (a '&', '*' or '!' where a node starts), so that
// nothing else can refer to it. The key stays (a duplicate is still an error).
std::string without_ignored_blocks(std::string text, const std::vector<std::string>& ignored);

// Replaces every `<<<: *anchor` entry of `root` (at any depth) by a deep merge of the anchored
// mapping under the entries beside it, which win.
void apply_merge_keys(const Reader& r, YAML::Node root);

// A node that holds something: yaml-cpp's default Node converts to true, so "absent" is null.
inline bool given(const YAML::Node& n) { return n.IsDefined() && !n.IsNull(); }
}  // namespace sparsemap::io::timeloop_detail
