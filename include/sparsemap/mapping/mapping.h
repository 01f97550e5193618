// Data-centric mapping directives (MAESTRO): SpatialMap, TemporalMap and Cluster.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sparsemap/workload/layer.h"

namespace sparsemap::mapping {

using workload::Dim;

// A size or offset in a directive: a literal, or Sz(D) (the size of dimension D of the layer
// being mapped, e.g. Sz(R)). Constants are resolved to literals by the reader.
struct SizeExpr {
  int64_t literal = 1;
  std::optional<Dim> size_of;  // set for Sz(D); literal is then unused

  static SizeExpr lit(int64_t v) { return SizeExpr{v, std::nullopt}; }
  static SizeExpr sz(Dim d) { return SizeExpr{1, d}; }
  int64_t resolve(const workload::Layer& layer) const {
    return size_of ? layer.dim(*size_of) : literal;
  }
  bool operator==(const SizeExpr& o) const {
    return size_of == o.size_of && (size_of || literal == o.literal);
  }
  bool operator!=(const SizeExpr& o) const { return !(*this == o); }
};

enum class DirectiveKind : uint8_t { Spatial, Temporal, Cluster };

// One directive. For maps: `size` elements of `dim` per step, advancing by `offset`.
// `primed` marks Y'/X' (the map is written in output coordinates). For Cluster: `size` PEs
// per sub-cluster; `logical` is MAESTRO's L type (P, physical, is the default).
struct Directive {
  DirectiveKind kind = DirectiveKind::Temporal;
  Dim dim = Dim::K;
  bool primed = false;
  SizeExpr size;
  SizeExpr offset;
  bool logical = false;

  static Directive spatial(Dim d, SizeExpr size, SizeExpr offset, bool primed = false);
  static Directive temporal(Dim d, SizeExpr size, SizeExpr offset, bool primed = false);
  static Directive cluster(SizeExpr size, bool logical = false);
  bool operator==(const Directive& o) const;
  bool operator!=(const Directive& o) const { return !(*this == o); }
};

// A mapping as MAESTRO writes it: directives outermost first; each Cluster starts a new,
// inner cluster level. levels() splits it.
struct Mapping {
  std::vector<Directive> directives;

  // Directives of each cluster level, outermost first; the Cluster directives are the level
  // separators and are not included. A mapping without Cluster has one level.
  std::vector<std::vector<Directive>> levels() const;
  // The cluster sizes in order (one per Cluster directive), resolved against `layer`.
  std::vector<int64_t> cluster_sizes(const workload::Layer& layer) const;
  bool empty() const { return directives.empty(); }
  bool operator==(const Mapping& o) const { return directives == o.directives; }
  bool operator!=(const Mapping& o) const { return !(*this == o); }
};

// "SpatialMap(1,1) K;", "TemporalMap(Sz(R),1) Y';", "Cluster(64,P);" in MAESTRO syntax.
std::string to_dfsl(const Directive& d);

}  // namespace sparsemap::mapping
