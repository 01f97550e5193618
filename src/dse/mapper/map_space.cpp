// GAMMA's map space: genome layout, repair and decoding to MAESTRO directives.
#include "sparsemap/dse/mapper/map_space.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sparsemap/error.h"

namespace sparsemap::dse::mapper {
namespace {

using mapping::Directive;
using mapping::SizeExpr;
using workload::Dim;
using workload::OpKind;

// Divisors of n in ascending order (n >= 1).
std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> lo, hi;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      lo.push_back(d);
      if (d != n / d) hi.push_back(n / d);
    }
  lo.insert(lo.end(), hi.rbegin(), hi.rend());
  return lo;
}

int64_t count_divisors(int64_t n) {
  int64_t c = 0;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) c += (d * d == n) ? 1 : 2;
  return c;
}

// The log-uniform choice over 1..cap: floor((cap + 1)^g), clamped.
int64_t log_uniform(double g, int64_t cap) {
  if (cap <= 1) return 1;
  const double v = std::floor(std::exp(g * std::log(static_cast<double>(cap) + 1.0)));
  return std::clamp<int64_t>(static_cast<int64_t>(v), 1, cap);
}

double log_uniform_gene(int64_t v, int64_t cap) {
  if (cap <= 1) return 0.5;
  v = std::clamp<int64_t>(v, 1, cap);
  const double g = std::log(static_cast<double>(v) + 0.5) / std::log(static_cast<double>(cap) + 1);
  return std::clamp(g, 0.0, std::nextafter(1.0, 0.0));
}

int index_of(double g, size_t n) {
  const auto i = static_cast<int64_t>(std::floor(g * static_cast<double>(n)));
  return static_cast<int>(std::clamp<int64_t>(i, 0, static_cast<int64_t>(n) - 1));
}

double gene_of_index(size_t i, size_t n) { return (static_cast<double>(i) + 0.5) / n; }

}  // namespace

const char* slot_name(int slot) {
  static const char* names[kSlots] = {"K", "C", "Y'", "X'", "R", "S"};
  return slot >= 0 && slot < kSlots ? names[slot] : "?";
}

const std::vector<std::string>& constraint_names() {
  static const std::vector<std::string> n = {"none", "nvdla", "eyeriss", "shidiannao"};
  return n;
}

Constraint parse_constraint(const std::string& text) {
  std::string t = text;
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "none" || t.empty()) return Constraint::None;
  if (t == "nvdla") return Constraint::Nvdla;
  if (t == "eyeriss" || t == "rs" || t == "row-stationary") return Constraint::Eyeriss;
  if (t == "shidiannao" || t == "yx" || t == "yxp-os") return Constraint::ShiDianNao;
  throw InputError(
      {"<flag --constraint>", 0, 0},
      "unknown constraint class '" + text + "'; expected one of: none, nvdla, eyeriss, shidiannao");
}

std::string constraint_name(Constraint c) { return constraint_names()[static_cast<size_t>(c)]; }

Objective parse_objective(const std::string& text) {
  if (text == "latency") return Objective::Latency;
  if (text == "energy") return Objective::Energy;
  if (text == "edp") return Objective::Edp;
  if (text == "throughput") return Objective::Throughput;
  throw InputError(
      {"<flag --objective>", 0, 0},
      "unknown objective '" + text + "'; expected one of: latency, energy, edp, throughput");
}

std::string objective_name(Objective o) {
  switch (o) {
    case Objective::Latency:
      return "latency";
    case Objective::Energy:
      return "energy";
    case Objective::Edp:
      return "edp";
    case Objective::Throughput:
      return "throughput";
  }
  return "?";
}

MapSpace::MapSpace(const workload::Layer& layer, const arch::Arch& arch,
                   const MapSpaceOptions& options)
    : layer_(layer), arch_(arch), options_(options) {
  if (options_.max_levels < 1 || options_.max_levels > 4)
    throw InputError({"<flag --levels>", 0, 0}, "expected 1 to 4 cluster levels");
  if (options_.constraint != Constraint::None && options_.max_levels < 2)
    throw InputError({"<flag --levels>", 0, 0}, "constraint class '" +
                                                    constraint_name(options_.constraint) +
                                                    "' needs at least 2 cluster levels");
  if (!workload::is_gemm_class(layer.kind))
    throw InputError({"<layer " + layer.name + ">", 0, 0},
                     std::string(workload::op_kind_name(layer.kind)) +
                         " layers have no MACs: the mapper maps GEMM-class layers");
  auto set = [&](int slot, Dim d, bool primed, int64_t ext) {
    proto_[slot] = Directive::temporal(d, SizeExpr::lit(1), SizeExpr::lit(1), primed);
    extent_[slot] = std::max<int64_t>(1, ext);
  };
  for (int s = 0; s < kSlots; ++s) extent_[s] = 0;  // 0: no dimension behind the slot
  const OpKind k = layer.kind;
  switch (k) {
    case OpKind::Gemm:
    case OpKind::BatchedGemm:
      set(0, Dim::N, false, layer.dim(Dim::N));
      set(1, Dim::K, false, layer.dim(Dim::K));
      set(2, Dim::M, false, layer.dim(Dim::M));
      if (k == OpKind::BatchedGemm) {
        if (!options_.maestro_compatible)
          set(3, Dim::G, false, layer.dim(Dim::G));
        else if (layer.dim(Dim::G) > 1)
          outer_.push_back(Dim::G);
      }
      break;
    case OpKind::Fc:
      set(0, Dim::K, false, layer.dim(Dim::K));
      set(1, Dim::C, false, layer.dim(Dim::C));
      set(2, Dim::N, false, layer.dim(Dim::N));
      break;
    default:  // conv-like
      if (k != OpKind::DsConv) set(0, Dim::K, false, layer.dim(Dim::K));
      set(1, Dim::C, false, layer.dim(Dim::C));
      set(2, Dim::Y, true, layer.out_y());
      set(3, Dim::X, true, layer.out_x());
      set(4, Dim::R, false, layer.dim(Dim::R));
      set(5, Dim::S, false, layer.dim(Dim::S));
      if (layer.dim(Dim::N) > 1) outer_.push_back(Dim::N);
      if (k == OpKind::NgConv && layer.dim(Dim::G) > 1) outer_.push_back(Dim::G);
  }
  for (int s = 0; s < kSlots; ++s)
    if (extent_[s] > 1) present_.push_back(s);
  if (present_.empty())
    for (int s = 0; s < kSlots; ++s)
      if (extent_[s] > 0) {
        present_.push_back(s);
        break;
      }
  auto window = [&](int s) { return options_.maestro_compatible && (s == 4 || s == 5); };
  for (int s : present_)
    if (!window(s)) parallel_.push_back(s);
  if (parallel_.empty())
    for (int s = 0; s < kSlots; ++s)
      if (extent_[s] > 0 && !window(s)) {
        parallel_.push_back(s);
        break;
      }
  if (parallel_.empty()) parallel_ = present_;
}

int64_t MapSpace::tile_from_gene(double g, int64_t parent) const {
  if (parent <= 1) return 1;
  if (!options_.divisors_only) return log_uniform(g, parent);
  const std::vector<int64_t> d = divisors(parent);
  return d[index_of(g, d.size())];
}

double MapSpace::gene_from_tile(int64_t tile, int64_t parent) const {
  if (parent <= 1) return 0.5;
  if (!options_.divisors_only) return log_uniform_gene(tile, parent);
  const std::vector<int64_t> d = divisors(parent);
  size_t i = 0;  // the largest divisor <= tile
  for (size_t j = 0; j < d.size(); ++j)
    if (d[j] <= tile) i = j;
  return gene_of_index(i, d.size());
}

MapSpace::Decoded MapSpace::decode_raw(const search::Genome& g) const {
  SPARSEMAP_ASSERT(g.size() == dims());
  Decoded d;
  const int L = options_.max_levels;
  int fixed_par[2] = {-1, -1};
  switch (options_.constraint) {
    case Constraint::Nvdla:
      fixed_par[0] = 0, fixed_par[1] = 1;
      break;
    case Constraint::Eyeriss:
      fixed_par[0] = 2, fixed_par[1] = 4;
      break;
    case Constraint::ShiDianNao:
      fixed_par[0] = 2, fixed_par[1] = 3;
      break;
    case Constraint::None:
      break;
  }
  d.levels = options_.constraint != Constraint::None ? 2 : 1 + index_of(g[0], L);
  std::array<int64_t, kSlots> parent = extent_;
  for (int s = 0; s < kSlots; ++s) parent[s] = std::max<int64_t>(1, extent_[s]);
  int64_t pes_left = arch_.num_pes;  // P / (cluster sizes so far)
  for (int l = 0; l < d.levels; ++l) {
    const double* b = g.data() + 1 + kBlock * l;
    // Parallel slot.
    int par = parallel_[index_of(b[kParGene], parallel_.size())];
    if (l < 2 && fixed_par[l] >= 0) {
      par = fixed_par[l];
      if (extent_[par] == 0) {  // the layer has no such dimension: first other choice
        for (int s : parallel_)
          if (s != (l == 0 ? fixed_par[1] : d.parallel[0])) {
            par = s;
            break;
          }
      }
    }
    d.parallel[l] = par;
    // Loop order: ascending keys, ties by slot.
    std::array<int, kSlots>& ord = d.order[l];
    std::iota(ord.begin(), ord.end(), 0);
    if (!options_.fixed_order)
      std::stable_sort(ord.begin(), ord.end(),
                       [&](int a, int c) { return b[kKeyGene + a] < b[kKeyGene + c]; });
    // Tiles, relative to the parent's.
    for (int s = 0; s < kSlots; ++s) d.tile[l][s] = tile_from_gene(b[kTileGene + s], parent[s]);
    if (options_.maestro_compatible) d.tile[l][4] = parent[4], d.tile[l][5] = parent[5];
    // Cluster size (levels >= 1): log-uniform (or a divisor) of what is left, then no more
    // than the chunks of this level's parallel slot.
    if (l >= 1) {
      int64_t c = options_.divisors_only
                      ? [&] {
                          const auto dv = divisors(pes_left);
                          return dv[index_of(b[kClusterGene], dv.size())];
                        }()
                      : log_uniform(b[kClusterGene], pes_left);
      const int64_t chunks = (parent[par] + d.tile[l][par] - 1) / d.tile[l][par];
      if (c > chunks) {
        c = chunks;
        if (options_.divisors_only) {  // the largest divisor of what is left <= chunks
          const auto dv = divisors(pes_left);
          for (int64_t v : dv)
            if (v <= chunks) c = v;
        }
      }
      d.cluster[l] = std::max<int64_t>(1, c);
      pes_left /= d.cluster[l];
    }
    parent = d.tile[l];
  }
  return d;
}

mapping::Mapping MapSpace::to_mapping(const Decoded& d) const {
  mapping::Mapping m;
  m.directives.reserve(static_cast<size_t>(8 * d.levels + 2));
  for (Dim od : outer_)
    m.directives.push_back(Directive::temporal(od, SizeExpr::lit(1), SizeExpr::lit(1)));
  for (int l = 0; l < d.levels; ++l) {
    if (l >= 1) m.directives.push_back(Directive::cluster(SizeExpr::lit(d.cluster[l])));
    for (int s : d.order[l]) {
      const bool sp = s == d.parallel[l];
      // Every slot with a dimension is written, size-1 ones too: an unmapped Y'/X' would be
      // unrolled over the whole input (MAESTRO's rule) and need far more L1.
      if (extent_[s] == 0 || (!sp && extent_[s] <= 1 && s != 2 && s != 3)) continue;
      const int64_t t = d.tile[l][s];
      Directive dir = proto_[s];
      dir.kind = sp ? mapping::DirectiveKind::Spatial : mapping::DirectiveKind::Temporal;
      dir.size = SizeExpr::lit(t);
      dir.offset = SizeExpr::lit(t);
      m.directives.push_back(dir);
    }
  }
  return m;
}

search::Genome MapSpace::encode(const Decoded& d) const {
  search::Genome g(dims(), 0.5);
  const int L = options_.max_levels;
  const int levels = std::clamp(d.levels, 1, L);
  g[0] = gene_of_index(static_cast<size_t>(levels - 1), static_cast<size_t>(L));
  std::array<int64_t, kSlots> parent;
  for (int s = 0; s < kSlots; ++s) parent[s] = std::max<int64_t>(1, extent_[s]);
  int64_t pes_left = arch_.num_pes;
  for (int l = 0; l < L; ++l) {
    double* b = g.data() + 1 + kBlock * l;
    const int src = std::min(l, levels - 1);
    // Parallel slot: its index among the present slots (else the first).
    size_t pi = 0;
    for (size_t i = 0; i < parallel_.size(); ++i)
      if (parallel_[i] == d.parallel[src]) pi = i;
    b[kParGene] = gene_of_index(pi, parallel_.size());
    for (int rank = 0; rank < kSlots; ++rank)
      b[kKeyGene + d.order[src][rank]] = (rank + 0.5) / kSlots;
    if (l >= levels) continue;  // inactive levels: neutral genes
    std::array<int64_t, kSlots> tiles{};
    for (int s = 0; s < kSlots; ++s) {
      // Re-encode the tile relative to this layer's parent extent (repair: clamp to it).
      int64_t t = std::clamp<int64_t>(d.tile[l][s], 1, parent[s]);
      b[kTileGene + s] = gene_from_tile(t, parent[s]);
      tiles[s] = tile_from_gene(b[kTileGene + s], parent[s]);
    }
    if (l >= 1) {
      const int64_t c = std::clamp<int64_t>(d.cluster[l], 1, pes_left);
      if (options_.divisors_only) {
        const auto dv = divisors(pes_left);
        size_t i = 0;
        for (size_t j = 0; j < dv.size(); ++j)
          if (dv[j] <= c) i = j;
        b[kClusterGene] = gene_of_index(i, dv.size());
        pes_left /= dv[i];
      } else {
        b[kClusterGene] = log_uniform_gene(c, pes_left);
        pes_left /= c;
      }
    }
    parent = tiles;
  }
  return g;
}

std::vector<int64_t> MapSpace::exhaustive_levels() const {
  std::vector<int64_t> lv(dims(), 1);
  const bool constrained = options_.constraint != Constraint::None;
  lv[0] = constrained ? 1 : options_.max_levels;
  for (int l = 0; l < options_.max_levels; ++l) {
    const size_t b = 1 + static_cast<size_t>(kBlock * l);
    lv[b + kParGene] = constrained && l < 2 ? 1 : static_cast<int64_t>(parallel_.size());
    for (int s = 0; s < kSlots; ++s) {
      lv[b + kKeyGene + s] = options_.fixed_order ? 1 : kSlots;
      const int64_t e = std::max<int64_t>(1, extent_[s]);
      lv[b + kTileGene + s] = options_.divisors_only ? count_divisors(e) : e;
    }
    lv[b + kClusterGene] =
        l == 0 ? 1 : (options_.divisors_only ? count_divisors(arch_.num_pes) : arch_.num_pes);
  }
  return lv;
}

double objective_value(const cost::Cost& c, Objective o) {
  if (!c.ok()) return search::kInfeasible;
  const double rt = static_cast<double>(c.runtime_cycles);
  switch (o) {
    case Objective::Latency:
      return rt;
    case Objective::Energy:
      return c.energy_nj;
    case Objective::Edp:
      return rt * c.energy_nj;
    case Objective::Throughput:
      return rt / static_cast<double>(std::max<int64_t>(1, c.macs));
  }
  return search::kInfeasible;
}

double fitness(const MapSpace& space, const search::Genome& g, const FitnessSpec& spec) {
  const mapping::Mapping m = space.decode(g);
  double sum = 0, worst = 0;
  for (const cost::SparsityOptions& sp : spec.sparsity) {
    cost::EvalOptions opt;
    opt.enforce_buffers = true;
    opt.sparsity = sp;
    const double v =
        objective_value(cost::evaluate(space.layer(), space.arch(), m, opt), spec.objective);
    if (v >= search::kInfeasible) return search::kInfeasible;
    sum += v;
    worst = std::max(worst, v);
  }
  return spec.worst_case ? worst : sum / static_cast<double>(spec.sparsity.size());
}

}  // namespace sparsemap::dse::mapper
