// A mapping as Timeloop writes it: per storage level, temporal and spatial loop factors with a
// permutation, and which data spaces the level keeps or bypasses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sparsemap::mapping {

enum class LoopNestDirectiveKind { kTemporal, kSpatial, kDataspace };

struct LoopFactor {
  std::string dim;
  int64_t value = 1;
  bool operator==(const LoopFactor& o) const { return dim == o.dim && value == o.value; }
};

// One entry of Timeloop's `mapping:` list.
struct LoopNestDirective {
  std::string target;  // a storage level (or a spatial container) of the architecture
  LoopNestDirectiveKind kind = LoopNestDirectiveKind::kTemporal;
  std::vector<LoopFactor> factors;  // temporal/spatial: as written ("R=3 P=16")
  std::string permutation;  // temporal/spatial: dims, innermost loop first (Timeloop's order)
  int split = -1;           // spatial: dims [0, split) of the permutation go to X; -1: not given
  std::vector<std::string> keep, bypass;  // dataspace: data space names
  bool operator==(const LoopNestDirective& o) const {
    return target == o.target && kind == o.kind && factors == o.factors &&
           permutation == o.permutation && split == o.split && keep == o.keep && bypass == o.bypass;
  }
};

// The whole mapping: directives in file order. Levels without a temporal (spatial) directive
// have all factors 1; data spaces without a keep/bypass entry are kept.
struct LoopNest {
  std::vector<LoopNestDirective> directives;
  bool operator==(const LoopNest& o) const { return directives == o.directives; }
};

}  // namespace sparsemap::mapping
