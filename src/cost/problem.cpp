// Construct and precheck: the layer in MAESTRO's coordinates and its completed cluster levels.
//
// MAESTRO's cluster analysis, which this follows (our own implementation):
// - Cluster(c) directives split the mapping into levels; level 0 has floor(P / prod(c)) sub-
//   clusters, level i has the size of the i-th Cluster directive.
// - A Y'/X' map is rewritten in input rows/columns: size_in = size_out + R_tile - 1 (R_tile:
//   the level's R map, else the parent's, else the full R); the offset is kept.
// - A dimension a level does not map is inherited from its parent as TemporalMap(size, offset)
//   (put in front); at level 0 it is unrolled as TemporalMap(extent, extent) (put at the end).
// - With stride s on Y (X), a map of size m >= R becomes o = (m + s - R) / s output rows:
//   size = o * min(s, R) + max(R - s, 0), offset = o * s (o * R below level 0 when R < s).
#include <algorithm>
#include <string>

#include "model_internal.h"
#include "sparsemap/cost/sparsity.h"

namespace sparsemap::cost::detail {
namespace {

using mapping::Directive;
using mapping::DirectiveKind;
using workload::Dim;
using workload::OpKind;

uint8_t var_of(Dim d) { return static_cast<uint8_t>(workload::index(d)); }

char var_letter(uint8_t v) {
  return v == vYo ? 'Y' : v == vXo ? 'X' : workload::dim_letter(workload::kAllDims[v]);
}

void set_tensor(TensorVars& t, std::initializer_list<uint8_t> vars) {
  t.n = 0;
  t.mask = 0;
  for (uint8_t v : vars) {
    t.vars[t.n++] = v;
    t.mask = static_cast<uint16_t>(t.mask | (1u << v));
  }
}

bool fail(Cost& cost, Status s, std::string reason) {
  cost.status = s;
  cost.reason = std::move(reason);
  return false;
}

// "TemporalMap(4,4) K" (DFSL without its ';').
std::string dir_text(const Directive& d) {
  std::string s = mapping::to_dfsl(d);
  if (!s.empty() && s.back() == ';') s.pop_back();
  return s;
}

// A directive of one level before completion.
struct RawDir {
  Dir d;
  bool primed = false;
  const Directive* src = nullptr;
};

// What the steps of build_problem share about the layer.
struct Shape {
  const workload::Layer& layer;
  OpKind kind;
  bool conv_like = false;  // sliding windows over Y/X (CONV, DSCONV, NGCONV, TRCONV, FC)
  int64_t sy = 1, sx = 1;  // strides MAESTRO applies (1 for TRCONV and FC)
  uint16_t used = 0;       // variables of the input and weight tensors
};

// Step 1: the layer has MACs, sizes the model's arithmetic holds, and the accelerator PEs and
// bandwidths.
bool check_inputs(const workload::Layer& layer, const arch::Arch& arch,
                  const mapping::Mapping& mapping, Cost& cost) {
  const OpKind kind = layer.kind;
  if (!workload::is_gemm_class(kind))
    return fail(cost, Status::Invalid,
                std::string(workload::op_kind_name(kind)) +
                    " layers have no MACs: the cost model evaluates CONV, DSCONV, NGCONV, "
                    "TRCONV, FC, GEMM and batched GEMM layers");
  for (int64_t d : layer.dims)
    if (d <= 0 || d > (int64_t{1} << 31))
      return fail(cost, Status::Invalid, "layer dimensions must be in [1, 2^31]");
  if (arch.num_pes > (int64_t{1} << 31)) return fail(cost, Status::Invalid, "more than 2^31 PEs");
  if (arch.num_pes <= 0 || !(arch.noc_words_per_cycle > 0) || !(arch.offchip_words_per_cycle > 0))
    return fail(cost, Status::Invalid, "the accelerator needs PEs and positive bandwidths");
  if (mapping.directives.empty())
    return fail(cost, Status::Invalid, "empty mapping: expected SpatialMap/TemporalMap directives");
  return true;
}

// Step 2: the layer's extents in MAESTRO's coordinates (padded input, no dilation; Y'/X' the
// output rows and columns) and the strides.
bool set_coordinates(Shape& sh, Problem& p, Cost& cost) {
  const workload::Layer& layer = sh.layer;
  const OpKind kind = sh.kind;
  sh.conv_like = kind == OpKind::Conv || kind == OpKind::DsConv || kind == OpKind::NgConv ||
                 kind == OpKind::TrConv || kind == OpKind::Fc;
  p.sliding = sh.conv_like;
  for (int v = 0; v < workload::kNumDims; ++v) p.top_dims[v] = layer.dims[v];
  if (sh.conv_like && kind != OpKind::Fc) {
    const int64_t oy = layer.out_y(), ox = layer.out_x();
    if (oy <= 0 || ox <= 0)
      return fail(cost, Status::Invalid, "the filter does not fit the input (no output)");
    if (kind != OpKind::TrConv) {
      sh.sy = layer.stride.y;
      sh.sx = layer.stride.x;
      // MAESTRO has no padding: the padded input is the input. A dilated filter is costed as an
      // undilated one over the input rows that give the same output size.
      p.top_dims[vY] = layer.dilation.y == 1 ? layer.dim(Dim::Y) + 2 * layer.pad.y
                                             : (oy - 1) * sh.sy + layer.dim(Dim::R);
      p.top_dims[vX] = layer.dilation.x == 1 ? layer.dim(Dim::X) + 2 * layer.pad.x
                                             : (ox - 1) * sh.sx + layer.dim(Dim::S);
    }
  }
  if (kind == OpKind::Fc) {
    p.top_dims[vY] = p.top_dims[vX] = p.top_dims[vR] = p.top_dims[vS] = 1;
  }
  p.top_dims[vYo] = sh.conv_like ? p.top_dims[vY] - p.top_dims[vR] + 1 : 1;
  p.top_dims[vXo] = sh.conv_like ? p.top_dims[vX] - p.top_dims[vS] + 1 : 1;
  return true;
}

// Step 3: which dimensions the kind uses, and the tensors' coupled variables (MAESTRO's).
void set_tensors(Shape& sh, const mapping::Mapping& mapping, Problem& p) {
  const workload::Layer& layer = sh.layer;
  bool maps_n = false, maps_g = false;
  for (const Directive& d : mapping.directives) {
    if (d.kind == DirectiveKind::Cluster) continue;
    maps_n |= d.dim == Dim::N;
    maps_g |= d.dim == Dim::G;
  }
  const bool has_n = layer.dim(Dim::N) > 1 || maps_n;
  switch (sh.kind) {
    case OpKind::DsConv: {
      const bool has_g = layer.dim(Dim::G) > 1 || maps_g;
      if (has_n && has_g) {
        set_tensor(p.tensors[kInput], {vN, vG, vC, vY, vX});
        set_tensor(p.tensors[kWeight], {vG, vC, vR, vS});
        set_tensor(p.tensors[kOutput], {vN, vG, vC, vY, vX});
      } else if (has_g) {
        set_tensor(p.tensors[kInput], {vG, vC, vY, vX});
        set_tensor(p.tensors[kWeight], {vG, vC, vR, vS});
        set_tensor(p.tensors[kOutput], {vG, vC, vY, vX});
      } else if (has_n) {
        set_tensor(p.tensors[kInput], {vN, vC, vY, vX});
        set_tensor(p.tensors[kWeight], {vC, vR, vS});
        set_tensor(p.tensors[kOutput], {vN, vC, vY, vX});
      } else {
        set_tensor(p.tensors[kInput], {vC, vY, vX});
        set_tensor(p.tensors[kWeight], {vC, vR, vS});
        set_tensor(p.tensors[kOutput], {vC, vY, vX});
      }
      break;
    }
    case OpKind::NgConv:
      if (has_n) {
        set_tensor(p.tensors[kInput], {vN, vG, vC, vY, vX});
        set_tensor(p.tensors[kOutput], {vN, vG, vK, vC, vY, vX});
      } else {
        set_tensor(p.tensors[kInput], {vG, vC, vY, vX});
        set_tensor(p.tensors[kOutput], {vG, vK, vC, vY, vX});
      }
      set_tensor(p.tensors[kWeight], {vG, vK, vC, vR, vS});
      break;
    case OpKind::Gemm:
      set_tensor(p.tensors[kInput], {vM, vK});
      set_tensor(p.tensors[kWeight], {vK, vN});
      set_tensor(p.tensors[kOutput], {vM, vN});
      break;
    case OpKind::BatchedGemm:
      set_tensor(p.tensors[kInput], {vG, vM, vK});
      set_tensor(p.tensors[kWeight], {vG, vK, vN});
      set_tensor(p.tensors[kOutput], {vG, vM, vN});
      break;
    default:  // Conv, TrConv, Fc
      if (has_n) {
        set_tensor(p.tensors[kInput], {vN, vC, vY, vX});
        set_tensor(p.tensors[kOutput], {vN, vK, vY, vX});
      } else {
        set_tensor(p.tensors[kInput], {vC, vY, vX});
        set_tensor(p.tensors[kOutput], {vK, vY, vX});
      }
      set_tensor(p.tensors[kWeight], {vK, vC, vR, vS});
      break;
  }
  sh.used = static_cast<uint16_t>(p.tensors[kInput].mask | p.tensors[kWeight].mask);
}

// Step 4: the number of cluster levels and the PEs of a level-0 sub-cluster.
bool count_levels(const workload::Layer& layer, const arch::Arch& arch,
                  const mapping::Mapping& mapping, Problem& p, Cost& cost) {
  int64_t cluster_prod = 1;
  int nlevels = 1;
  for (const Directive& d : mapping.directives) {
    if (d.kind != DirectiveKind::Cluster) continue;
    const int64_t c = d.size.resolve(layer);
    if (c <= 0)
      return fail(cost, Status::Invalid, dir_text(d) + ": expected a positive cluster size");
    if (++nlevels > kMaxLevels)
      return fail(cost, Status::Invalid,
                  "more than " + std::to_string(kMaxLevels - 1) + " Cluster directives: at most " +
                      std::to_string(kMaxLevels) + " cluster levels");
    if (cluster_prod > arch.num_pes / c + 1)
      cluster_prod = arch.num_pes + 1;  // no overflow
    else
      cluster_prod *= c;
  }
  if (cluster_prod > arch.num_pes)
    return fail(cost, Status::Infeasible,
                "the Cluster directives need at least " + std::to_string(cluster_prod) +
                    " PEs; the accelerator has " + std::to_string(arch.num_pes));
  p.nlevels = nlevels;
  p.levels[0].cluster_size = arch.num_pes / cluster_prod;
  p.pes_allocated = p.levels[0].cluster_size * cluster_prod;
  return true;
}

// Step 5a: level li's maps as written, up to the next Cluster (deduplicated, clamped to the
// extents; a second map of a variable is ignored with a note). `pos` walks the directives.
bool gather_maps(const Shape& sh, const mapping::Mapping& mapping, int li, Problem& p, size_t& pos,
                 RawDir* raw, int& nraw, std::string& notes, Cost& cost) {
  const workload::Layer& layer = sh.layer;
  // Extents a map may tile at any level (the reader clamps against these too).
  auto extent = [&](uint8_t v, bool primed) -> int64_t {
    if (primed) return v == vY ? layer.out_y() : layer.out_x();
    return p.top_dims[v];
  };
  nraw = 0;
  uint16_t seen = 0;
  for (; pos < mapping.directives.size(); ++pos) {
    const Directive& d = mapping.directives[pos];
    if (d.kind == DirectiveKind::Cluster) {
      if (li + 1 < p.nlevels) p.levels[li + 1].cluster_size = d.size.resolve(layer);
      ++pos;
      break;
    }
    const uint8_t v = var_of(d.dim);
    if (!(sh.used >> v & 1u)) {
      if (layer.dims[v] == 1) continue;  // a map over a dimension of size 1 changes nothing
      return fail(cost, Status::Invalid,
                  dir_text(d) + " maps " + std::string(1, var_letter(v)) + ", which " +
                      std::string(workload::op_kind_name(sh.kind)) + " layers do not have");
    }
    int64_t size = d.size.resolve(layer), ofs = d.offset.resolve(layer);
    if (size <= 0 || ofs <= 0)
      return fail(cost, Status::Invalid, dir_text(d) + ": expected a positive size and offset");
    if (seen >> v & 1u) {
      notes += (notes.empty() ? "ignored " : ", ") + dir_text(d) + " (cluster level " +
               std::to_string(li) + " maps " + std::string(1, var_letter(v)) + " already)";
      continue;
    }
    seen = static_cast<uint16_t>(seen | (1u << v));
    const bool primed = d.primed && sh.conv_like && (v == vY || v == vX);
    const int64_t ext = extent(v, primed);
    size = std::min(size, ext);
    ofs = std::min(ofs, ext);
    if (ofs > size && ext > size)
      return fail(cost, Status::Invalid,
                  dir_text(d) + " skips elements: its offset is larger than its tile");
    raw[nraw].d = Dir{size, ofs, v, d.kind == DirectiveKind::Spatial};
    raw[nraw].primed = primed;
    raw[nraw].src = &d;
    ++nraw;
  }
  return true;
}

// Step 5b: Y'/X' maps in input rows/columns, size + R_tile - 1 (the level's R map, else the
// parent's, else R).
void unprime(const Problem& p, const Level* parent, RawDir* raw, int nraw) {
  auto filter_tile = [&](uint8_t f) -> int64_t {
    for (int i = 0; i < nraw; ++i)
      if (raw[i].d.var == f) return raw[i].d.size;
    if (parent)
      for (int i = 0; i < parent->n; ++i)
        if (parent->dirs[i].var == f) return parent->dirs[i].size;
    return p.top_dims[f];
  };
  for (int i = 0; i < nraw; ++i) {
    if (!raw[i].primed) continue;
    const uint8_t f = raw[i].d.var == vY ? vR : vS;
    raw[i].d.size += filter_tile(f) - 1;
  }
}

// Step 5c: the completed level: the parent's maps this level lacks (in front, last first), the
// level's own, then the remaining variables of the input tensors unrolled (alphabetical,
// MAESTRO's order); strides applied. Returns the number of directives in `done`.
int complete_dirs(const Shape& sh, const Problem& p, int li, const Level* parent, const RawDir* raw,
                  int nraw, Dir* done) {
  int n = 0;
  uint16_t have = 0;
  for (int i = 0; i < nraw; ++i) have = static_cast<uint16_t>(have | (1u << raw[i].d.var));
  if (parent)
    for (int i = parent->n - 1; i >= 0; --i) {
      const Dir& u = parent->dirs[i];
      if (have >> u.var & 1u) continue;
      done[n++] = Dir{u.size, u.ofs, u.var, false};
      have = static_cast<uint16_t>(have | (1u << u.var));
    }
  for (int i = 0; i < nraw; ++i) done[n++] = raw[i].d;
  static constexpr uint8_t kAlpha[] = {vC, vG, vK, vM, vN, vR, vS, vX, vY};
  for (uint8_t v : kAlpha)
    if ((sh.used >> v & 1u) && !(have >> v & 1u)) {
      done[n++] = Dir{p.top_dims[v], p.top_dims[v], v, false};
      have = static_cast<uint16_t>(have | (1u << v));
    }

  // Strides.
  if (sh.conv_like)
    for (int i = 0; i < n; ++i) {
      Dir& d = done[i];
      const int64_t st = d.var == vY ? sh.sy : d.var == vX ? sh.sx : 1;
      if (st == 1) continue;
      const int64_t R = p.top_dims[d.var == vY ? vR : vS];
      if (d.size < R) continue;
      const int64_t o = (d.size + st - R) / st;
      d.size = o * std::min(st, R) + std::max<int64_t>(R - st, 0);
      d.ofs = (li > 0 && R < st) ? o * R : o * st;
    }
  return n;
}

// Step 5d: stores the completed level; it needs a SpatialMap, and an input tile no narrower
// than the filter tile (else no complete window: no output at all).
bool store_level(const Shape& sh, int li, const Dir* done, int n, const RawDir* raw, int nraw,
                 Level& L, Cost& cost) {
  L.n = n;
  L.first_spatial = -1;
  for (int i = 0; i < n; ++i) {
    L.dirs[i] = done[i];
    if (done[i].spatial && L.first_spatial < 0) L.first_spatial = i;
  }
  if (L.first_spatial < 0)
    return fail(cost, Status::Invalid,
                "cluster level " + std::to_string(li) +
                    " has no SpatialMap: every cluster level needs one to spread its work "
                    "over its sub-clusters");
  if (!sh.conv_like) return true;
  for (int w = 0; w < 2; ++w) {
    const uint8_t in = w ? vX : vY, f = w ? vS : vR;
    int64_t in_size = 0, f_size = 0;
    for (int i = 0; i < n; ++i) {
      if (done[i].var == in) in_size = done[i].size;
      if (done[i].var == f) f_size = done[i].size;
    }
    if (in_size >= f_size) continue;
    std::string culprit;
    for (int i = 0; i < nraw; ++i)
      if (raw[i].d.var == in) culprit = dir_text(*raw[i].src);
    return fail(
        cost, Status::Invalid,
        "cluster level " + std::to_string(li) + ": " +
            (culprit.empty() ? std::string("the inherited map of ") + var_letter(in) : culprit) +
            " gives each sub-cluster " + std::to_string(in_size) + " input " +
            (w ? "columns" : "rows") + ", fewer than the " + std::to_string(f_size) + " filter " +
            (w ? "columns (S)" : "rows (R)") + " mapped there: no output fits (map " +
            var_letter(in) + "' to tile outputs)");
  }
  return true;
}

// Step 6: index lists of one level (where each variable is mapped, the coupled, spatial and
// reduction directives, the output's directives) and its L1 words per tensor (double-buffered).
void index_level(const Problem& p, Level& L) {
  for (int v = 0; v < kNumVars; ++v) L.dir_of[v] = -1;
  for (int i = 0; i < L.n; ++i) L.dir_of[L.dirs[i].var] = static_cast<int8_t>(i);
  L.nspatial = L.nreduction = 0;
  for (int t = 0; t < kNumTensors; ++t) {
    const TensorVars& tv = p.tensors[t];
    L.ncoupled[t] = L.ncoupled_sp[t] = 0;
    for (int i = 0; i < L.n; ++i)
      if (tv.mask >> L.dirs[i].var & 1u) L.coupled[t][L.ncoupled[t]++] = static_cast<uint8_t>(i);
    for (int k = 0; k < tv.n; ++k) {
      const int i = L.dir_of[tv.vars[k]];
      if (t == kOutput) L.out_dir[k] = static_cast<uint8_t>(i);
      if (L.dirs[i].spatial) L.coupled_sp[t][L.ncoupled_sp[t]++] = static_cast<uint8_t>(i);
    }
  }
  for (int t = 0; t < kNumTensors; ++t) {
    double v = 2;
    for (int k = 0; k < p.tensors[t].n; ++k)
      v *= static_cast<double>(L.dirs[L.dir_of[p.tensors[t].vars[k]]].size);
    L.l1_words[t] = v;
  }
  for (int i = 0; i < L.n; ++i) {
    if (L.dirs[i].spatial) L.spatial[L.nspatial++] = static_cast<uint8_t>(i);
    if (!(p.tensors[kOutput].mask >> L.dirs[i].var & 1u))
      L.reduction[L.nreduction++] = static_cast<uint8_t>(i);
  }
}

// Step 7: bandwidths and sparsity (words per element stored, the compute fraction skipped).
void set_rates(const arch::Arch& arch, const EvalOptions& options, Problem& p) {
  p.noc_bw = arch.noc_words_per_cycle;
  p.offchip_bw = arch.offchip_words_per_cycle;
  const SparsityOptions& sp = options.sparsity;
  const int word_bits = static_cast<int>(8 * std::max<int64_t>(1, arch.word_bytes));
  for (int t = 0; t < kNumTensors; ++t)
    p.words_per_elem[t] = storage_ratio(sp.tensors[t], sp.mode, word_bits);
  p.compute_scale = sp.mode == SparseMode::Skip ? effectual_fraction(sp) : 1.0;
}

}  // namespace

bool build_problem(const workload::Layer& layer, const arch::Arch& arch,
                   const mapping::Mapping& mapping, const EvalOptions& options, Problem& p,
                   Cost& cost) {
  if (!check_inputs(layer, arch, mapping, cost)) return false;
  Shape sh{layer, layer.kind};
  if (!set_coordinates(sh, p, cost)) return false;
  set_tensors(sh, mapping, p);
  p.macs = layer.macs();
  if (!count_levels(layer, arch, mapping, p, cost)) return false;

  // Each cluster level, outermost first: its maps, completed from its parent's.
  std::string notes;
  size_t pos = 0;
  for (int li = 0; li < p.nlevels; ++li) {
    RawDir raw[kMaxDirs];
    int nraw = 0;
    if (!gather_maps(sh, mapping, li, p, pos, raw, nraw, notes, cost)) return false;
    const Level* parent = li > 0 ? &p.levels[li - 1] : nullptr;
    unprime(p, parent, raw, nraw);
    Dir done[kMaxDirs];
    const int n = complete_dirs(sh, p, li, parent, raw, nraw, done);
    if (!store_level(sh, li, done, n, raw, nraw, p.levels[li], cost)) return false;
  }
  for (int li = 0; li < p.nlevels; ++li) index_level(p, p.levels[li]);
  set_rates(arch, options, p);
  if (!notes.empty()) cost.reason = std::move(notes);
  return true;
}

}  // namespace sparsemap::cost::detail

namespace sparsemap::cost {

// Evenness, as the reference README defines it. Extents start as the layer's (Y'/X': output
// size); each Cluster makes the level's tiles the next level's extents (a Y tile s gives a Y'
// extent (s - R_tile) / stride + 1 and a Y' tile t a Y extent (t - 1) * stride + R_tile).
bool has_loop_edges(const workload::Layer& layer, const mapping::Mapping& mapping) {
  using detail::kNumVars;
  using workload::Dim;
  int64_t ext[kNumVars];
  for (int v = 0; v < workload::kNumDims; ++v) ext[v] = layer.dims[v];
  ext[detail::vYo] = layer.out_y();
  ext[detail::vXo] = layer.out_x();
  int64_t tile[kNumVars];
  bool set[kNumVars] = {};
  auto next_level = [&]() {
    for (int w = 0; w < 2; ++w) {
      const int in = w ? detail::vX : detail::vY, out = w ? detail::vXo : detail::vYo;
      const int f = w ? detail::vS : detail::vR;
      const int64_t st = w ? layer.stride.x : layer.stride.y;
      const int64_t rf = set[f] ? tile[f] : ext[f];
      if (set[out]) {
        ext[out] = tile[out];
        ext[in] = (tile[out] - 1) * st + rf;
      } else if (set[in]) {
        ext[in] = tile[in];
        ext[out] = tile[in] >= rf ? (tile[in] - rf) / st + 1 : 0;
      }
      set[in] = set[out] = false;
    }
    for (int v = 0; v < kNumVars; ++v)
      if (set[v]) {
        ext[v] = tile[v];
        set[v] = false;
      }
  };
  for (const mapping::Directive& d : mapping.directives) {
    if (d.kind == mapping::DirectiveKind::Cluster) {
      next_level();
      continue;
    }
    int v = workload::index(d.dim);
    if (d.primed && (d.dim == Dim::Y || d.dim == Dim::X))
      v = d.dim == Dim::Y ? detail::vYo : detail::vXo;
    const int64_t size = d.size.resolve(layer), ofs = d.offset.resolve(layer);
    if (size <= 0 || ofs <= 0 || size > ext[v]) return true;
    if ((ext[v] - size) % ofs != 0) return true;
    tile[v] = size;
    set[v] = true;
  }
  return false;
}

}  // namespace sparsemap::cost
