// Test and benchmark support: random GAMMA-style two-level mappings of a layer (a random loop
// order per level, one spatial dimension per level, a random cluster size, tiles anywhere in
// range or dividing their parent).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "sparsemap/mapping/mapping.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::cost::testing {

struct LoopDim {
  workload::Dim dim;
  bool primed;     // Y'/X'
  int64_t extent;  // output size for Y'/X'
  bool full;       // R and S: always mapped whole (MAESTRO's rule)
};

// The loop dimensions GAMMA maps for a layer kind.
inline std::vector<LoopDim> loop_dims(const workload::Layer& l) {
  using workload::Dim;
  using workload::OpKind;
  std::vector<LoopDim> d;
  auto add = [&](Dim x, bool primed, int64_t ext, bool full = false) {
    d.push_back({x, primed, ext, full});
  };
  switch (l.kind) {
    case OpKind::Gemm:
      add(Dim::M, false, l.dim(Dim::M));
      add(Dim::N, false, l.dim(Dim::N));
      add(Dim::K, false, l.dim(Dim::K));
      break;
    case OpKind::BatchedGemm:
      add(Dim::G, false, l.dim(Dim::G));
      add(Dim::M, false, l.dim(Dim::M));
      add(Dim::N, false, l.dim(Dim::N));
      add(Dim::K, false, l.dim(Dim::K));
      break;
    case OpKind::Fc:
      if (l.dim(Dim::N) > 1) add(Dim::N, false, l.dim(Dim::N));
      add(Dim::K, false, l.dim(Dim::K));
      add(Dim::C, false, l.dim(Dim::C));
      break;
    default:
      if (l.dim(Dim::N) > 1) add(Dim::N, false, l.dim(Dim::N));
      if (l.kind == OpKind::NgConv) add(Dim::G, false, l.dim(Dim::G));
      if (l.kind != OpKind::DsConv) add(Dim::K, false, l.dim(Dim::K));
      add(Dim::C, false, l.dim(Dim::C));
      add(Dim::Y, true, l.out_y());
      add(Dim::X, true, l.out_x());
      add(Dim::R, false, l.dim(Dim::R), true);
      add(Dim::S, false, l.dim(Dim::S), true);
  }
  return d;
}

// A random two-level mapping for `num_pes` PEs. even: every tile divides its parent tile.
inline mapping::Mapping random_mapping(const workload::Layer& l, int64_t num_pes,
                                       std::mt19937_64& rng, bool even = false) {
  using mapping::Directive;
  using mapping::SizeExpr;
  const std::vector<LoopDim> dims = loop_dims(l);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, std::max(lo, hi))(rng);
  };
  auto tile_in = [&](int64_t extent) {
    if (!even) return pick(1, extent);
    std::vector<int64_t> divs;
    for (int64_t t = 1; t <= extent; ++t)
      if (extent % t == 0) divs.push_back(t);
    return divs[static_cast<size_t>(pick(0, static_cast<int64_t>(divs.size()) - 1))];
  };
  mapping::Mapping m;
  std::vector<int64_t> parent(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) parent[i] = dims[i].extent;
  for (int level = 0; level < 2; ++level) {
    std::vector<size_t> order(dims.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    size_t spatial = static_cast<size_t>(pick(0, static_cast<int64_t>(dims.size()) - 1));
    while (dims[spatial].full && dims.size() > 2)
      spatial = static_cast<size_t>(pick(0, static_cast<int64_t>(dims.size()) - 1));
    if (level == 1) {
      int64_t c = even ? 1 : pick(1, std::min<int64_t>(num_pes, 64));
      if (even)
        while (c * 2 <= std::min<int64_t>(num_pes, 64) && pick(0, 1)) c *= 2;
      m.directives.push_back(Directive::cluster(SizeExpr::lit(c)));
    }
    std::vector<int64_t> tiles(dims.size());
    for (size_t i : order) {
      const int64_t t = dims[i].full ? dims[i].extent : tile_in(parent[i]);
      tiles[i] = t;
      const SizeExpr e = SizeExpr::lit(t);
      m.directives.push_back(i == spatial ? Directive::spatial(dims[i].dim, e, e, dims[i].primed)
                                          : Directive::temporal(dims[i].dim, e, e, dims[i].primed));
    }
    parent = tiles;
  }
  return m;
}

}  // namespace sparsemap::cost::testing
