// The ConfuciuX problem: templates with constants substituted, MAESTRO's area rule, the
// per-state cache and the budget between the minimum and maximum designs.
#include <algorithm>
#include <cmath>

#include "sparsemap/arch/area.h"
#include "sparsemap/arch/maestro_hierarchy.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/hwalloc/hwalloc.h"
#include "sparsemap/error.h"

namespace sparsemap::dse::hwalloc {

using mapping::Directive;
using mapping::SizeExpr;
using workload::Dim;
using workload::OpKind;

std::string_view dataflow_name(Dataflow d) {
  switch (d) {
    case Dataflow::Dla:
      return "dla";
    case Dataflow::Shi:
      return "shi";
    case Dataflow::Eye:
      return "eye";
    default:
      return "dpt";
  }
}

mapping::Mapping template_mapping(Dataflow d, int64_t k_tile, int64_t c_tile, int64_t cluster) {
  const SizeExpr kt = SizeExpr::lit(k_tile), ct = SizeExpr::lit(c_tile),
                 cl = SizeExpr::lit(cluster), one = SizeExpr::lit(1), r = SizeExpr::sz(Dim::R),
                 s = SizeExpr::sz(Dim::S);
  auto sp = [](Dim dim, SizeExpr a, SizeExpr b, bool primed = false) {
    return Directive::spatial(dim, a, b, primed);
  };
  auto tm = [](Dim dim, SizeExpr a, SizeExpr b, bool primed = false) {
    return Directive::temporal(dim, a, b, primed);
  };
  mapping::Mapping m;
  auto& v = m.directives;
  switch (d) {
    case Dataflow::Dla:  // K spatial across clusters, C spatial inside a cluster
      v = {sp(Dim::K, kt, kt), tm(Dim::C, cl, cl), tm(Dim::R, r, r),       tm(Dim::S, s, s),
           tm(Dim::Y, r, one), tm(Dim::X, s, one), Directive::cluster(cl), sp(Dim::C, one, one),
           tm(Dim::Y, r, one), tm(Dim::X, s, one), tm(Dim::R, r, r),       tm(Dim::S, s, s)};
      break;
    case Dataflow::Shi:  // output rows across clusters, output columns inside a cluster
      v = {tm(Dim::K, kt, kt),         sp(Dim::Y, r, r, true), tm(Dim::X, cl, cl, true),
           tm(Dim::C, ct, ct),         tm(Dim::R, r, r),       tm(Dim::S, s, s),
           Directive::cluster(cl),     tm(Dim::C, one, one),   tm(Dim::Y, one, one, true),
           sp(Dim::X, one, one, true), tm(Dim::R, r, r),       tm(Dim::S, s, s)};
      break;
    case Dataflow::Eye:  // upstream's eye.m: output rows across and inside clusters, X' inside
      v = {tm(Dim::C, ct, ct),         tm(Dim::K, kt, kt),   sp(Dim::Y, cl, cl, true),
           tm(Dim::X, s, s, true),     tm(Dim::R, r, r),     tm(Dim::S, s, s),
           Directive::cluster(cl),     tm(Dim::C, one, one), sp(Dim::Y, one, one, true),
           sp(Dim::X, one, one, true), tm(Dim::R, r, r),     tm(Dim::S, s, s)};
      break;
    case Dataflow::Dpt:  // depthwise: channels spatial, one level
      v = {sp(Dim::C, kt, kt), tm(Dim::Y, r, one), tm(Dim::X, s, one), tm(Dim::R, r, r),
           tm(Dim::S, s, s)};
      break;
  }
  return m;
}

mapping::Mapping eye_mapping(int64_t k_tile, int64_t c_tile, int64_t pes, int64_t filter_rows) {
  const SizeExpr kt = SizeExpr::lit(k_tile), ct = SizeExpr::lit(c_tile), one = SizeExpr::lit(1),
                 r = SizeExpr::sz(Dim::R), s = SizeExpr::sz(Dim::S);
  mapping::Mapping m;
  // Level 0 (both cases): output rows side by side, one per column (or per PE).
  m.directives = {
      Directive::temporal(Dim::C, ct, ct),        Directive::temporal(Dim::K, kt, kt),
      Directive::spatial(Dim::Y, one, one, true), Directive::temporal(Dim::X, s, s, true),
      Directive::temporal(Dim::R, r, r),          Directive::temporal(Dim::S, s, s)};
  if (pes < filter_rows) return m;  // fewer PEs than a column: each PE holds all R filter rows
  // A column of R PEs: PE i takes input row i of the output row's window and filter row i (two
  // coupled spatial maps: the diagonal of row stationary), partial sums summed down the column.
  const std::vector<Directive> column = {
      Directive::cluster(SizeExpr::lit(filter_rows)), Directive::temporal(Dim::C, one, one),
      Directive::spatial(Dim::Y, one, one),           Directive::spatial(Dim::R, one, one),
      Directive::temporal(Dim::X, one, one, true),    Directive::temporal(Dim::S, s, s)};
  m.directives.insert(m.directives.end(), column.begin(), column.end());
  return m;
}

mapping::Mapping layer_mapping(const workload::Layer& layer, const LayerChoice& c) {
  if (c.dataflow == Dataflow::Eye) return eye_mapping(c.k_tile, 1, c.pes, layer.dim(Dim::R));
  return template_mapping(c.dataflow, c.k_tile, 1, c.pes);
}

arch::Arch confuciux_arch(int64_t num_pes) {
  arch::Arch a;
  a.name = "confuciux";
  a.source = "ConfuciuX's MAESTRO flags (MAGMA's without --offchip_bw_cstr)";
  a.num_pes = num_pes;
  a.l1_bytes = arch::kMaestroUnboundedBufferBytes;
  a.l2_bytes = arch::kMaestroUnboundedBufferBytes;
  a.noc_words_per_cycle = static_cast<double>(kMaestroNocBw);
  a.offchip_words_per_cycle = 70000;
  a.word_bytes = 1;
  return a;
}

// The one area rule (arch/area.h) with MAESTRO's table on the three-level hierarchy of the
// accelerator the mapping uses (formula in hwalloc.h).
double maestro_area(int64_t num_pes, int64_t l1_bytes, int64_t l2_bytes, int64_t noc_bw) {
  arch::Arch a;
  a.num_pes = num_pes;
  a.l1_bytes = l1_bytes;
  a.l2_bytes = l2_bytes;
  a.noc_words_per_cycle = static_cast<double>(noc_bw);
  a.word_bytes = 1;
  const arch::Hierarchy h = arch::three_level_hierarchy(a);
  return arch::area_um2(h, arch::maestro_art(h));
}

double platform_fraction(const std::string& name) {
  if (name == "cloud") return 0.5;
  if (name == "iot") return 0.1;
  if (name == "eiot") return 0.05;
  throw InputError({"<flag --platform>", 0, 0}, "expected cloud|iot|eiot, got '" + name + "'");
}

workload::Layer padded_layer(const workload::Layer& layer, const mapping::Mapping& m) {
  workload::Layer out = layer;
  const auto levels = m.levels();
  if (levels.empty()) return out;
  for (const Directive& d : levels[0]) {
    const int64_t size = d.size.resolve(layer), off = d.offset.resolve(layer);
    if (size != off || size <= 1) continue;
    if (d.primed && (d.dim == Dim::Y || d.dim == Dim::X)) {
      const bool y = d.dim == Dim::Y;
      const int64_t o = y ? layer.out_y() : layer.out_x();
      if (size >= o || o % size == 0) continue;
      const int64_t want = (o + size - 1) / size * size;
      const int64_t stride = y ? layer.stride.y : layer.stride.x;
      const int64_t dil = y ? layer.dilation.y : layer.dilation.x;
      const int64_t pad = y ? layer.pad.y : layer.pad.x;
      const int64_t f = layer.dim(y ? Dim::R : Dim::S);
      out.dim(d.dim) = (want - 1) * stride + dil * (f - 1) + 1 - 2 * pad;
    } else if (!d.primed) {
      const int64_t e = layer.dim(d.dim);
      if (size >= e || e % size == 0) continue;
      out.dim(d.dim) = (e + size - 1) / size * size;
    }
  }
  return out;
}

namespace {

// The layer as ConfuciuX sees it: CONV (FC as a 1x1 CONV) or depthwise; nullopt otherwise.
bool convertible(const workload::Layer& l, workload::Layer& out) {
  out = l;
  switch (l.kind) {
    case OpKind::Conv:
    case OpKind::DsConv:
      return true;
    case OpKind::Fc: {
      out = workload::conv2d(l.name, l.dim(Dim::N), l.dim(Dim::C), 1, 1, l.dim(Dim::K), 1);
      return true;
    }
    case OpKind::Gemm: {  // O[M][N] = A[M][K] B[K][N]: K=N outputs, C=K inputs, Y=M rows
      out = workload::conv2d(l.name, 1, l.dim(Dim::K), l.dim(Dim::M), 1, l.dim(Dim::N), 1);
      return true;
    }
    default:
      return false;
  }
}

bool same_shape(const workload::Layer& a, const workload::Layer& b) {
  return a.kind == b.kind && a.dims == b.dims && a.stride == b.stride && a.pad == b.pad &&
         a.dilation == b.dilation;
}

}  // namespace

namespace {

// A layer's policy features before normalisation: K, C, Y, X, R, S and 2 for depthwise, else 1.
std::array<double, 7> raw_features(const workload::Layer& l) {
  return {double(l.dim(Dim::K)),
          double(l.dim(Dim::C)),
          double(l.dim(Dim::Y)),
          double(l.dim(Dim::X)),
          double(l.dim(Dim::R)),
          double(l.dim(Dim::S)),
          l.kind == OpKind::DsConv ? 2.0 : 1.0};
}

}  // namespace

Problem::Problem(const workload::Model& model, const ProblemOptions& options)
    : model_name_(model.name), options_(options) {
  const std::string& df = options.dataflow;
  std::vector<Dataflow> conv_dfs;
  if (df == "dla") {
    conv_dfs = {Dataflow::Dla};
  } else if (df == "shi") {
    conv_dfs = {Dataflow::Shi};
  } else if (df == "eye") {
    conv_dfs = {Dataflow::Eye};
  } else if (df == "mixed") {
    conv_dfs = {Dataflow::Dla, Dataflow::Shi, Dataflow::Eye};
  } else {
    throw InputError({"<flag --dataflow>", 0, 0}, "expected dla|shi|eye|mixed, got '" + df + "'");
  }
  if (!(options.fraction >= 0 && options.fraction <= 1))
    throw InputError({"<flag --fraction>", 0, 0}, "expected a constraint fraction in [0, 1]");
  for (const workload::Layer& l : model.layers) {
    workload::Layer c;
    if (!convertible(l, c)) continue;
    if (c.dim(Dim::N) != 1 || c.dim(Dim::G) != 1) continue;  // batch 1, no groups
    layers_.push_back(c);
  }
  if (layers_.empty())
    throw InputError({"<model " + model.name + ">", 0, 0},
                     "no CONV, DSCONV or FC layer to assign resources to");
  if (layers_.size() > kMaxLayers)
    throw InputError(
        {"<model " + model.name + ">", 0, 0},
        std::to_string(layers_.size()) + " layers; expected at most " + std::to_string(kMaxLayers));
  for (size_t i = 0; i < layers_.size(); ++i) {
    size_t s = i;
    for (size_t j = 0; j < i; ++j)
      if (same_shape(layers_[i], layers_[j])) {
        s = shape_of_[j];
        break;
      }
    shape_of_.push_back(s);
    dataflows_.push_back(layers_[i].kind == OpKind::DsConv ? std::vector<Dataflow>{Dataflow::Dpt}
                                                           : conv_dfs);
  }
  for (size_t i = 0; i < layers_.size(); ++i) {
    const std::array<double, 7> f = raw_features(layers_[i]);
    for (int k = 0; k < 7; ++k) feature_max_[k] = std::max(feature_max_[k], f[k]);
  }

  // The budget: min + fraction (max - min) over the corner designs (every layer at the
  // smallest or largest PE level and KTileSz; each dataflow of the choice list in turn).
  bool first = true;
  for (size_t dfi = 0; dfi < conv_dfs.size(); ++dfi)
    for (int64_t pes : {kPeLevels.front(), kPeLevels.back()})
      for (int64_t kt : {int64_t{1}, int64_t{kLevels}}) {
        Design d(layers_.size());
        for (size_t i = 0; i < layers_.size(); ++i)
          d[i] = {pes, kt, dataflows_[i][std::min(dfi, dataflows_[i].size() - 1)]};
        const DesignCost c = evaluate(d);
        if (!c.ok) continue;
        min_ = first ? c.constraint : std::min(min_, c.constraint);
        max_ = first ? c.constraint : std::max(max_, c.constraint);
        first = false;
      }
  // The minimum design (1 PE, KTileSz 1) must be priceable: it is the design every budget
  // admits, where the GA starts when RL found nothing feasible. A layer too large for the cost
  // model's exact counts (2^53 cycles) at 1 PE is refused here, naming it.
  const Design lo = minimum_design();
  for (size_t i = 0; i < layers_.size(); ++i) {
    const LayerCost c = layer_cost(i, lo[i]);
    if (!c.ok)
      throw InputError(
          {"<model " + model.name + ">", 0, 0},
          "layer " + layers_[i].name +
              " cannot be priced on the minimum design (1 PE, KTileSz 1): " + c.reason);
  }
  if (first)
    throw InputError({"<model " + model.name + ">", 0, 0},
                     "the cost model evaluates none of the corner designs");
  budget_ = min_ + options.fraction * (max_ - min_);
  setup_calls_ = calls();
  setup_lookups_ = lookups_;
}

std::array<float, 7> Problem::features(size_t i) const {
  const std::array<double, 7> f = raw_features(layers_[i]);
  std::array<float, 7> out{};
  for (int k = 0; k < 7; ++k) out[k] = static_cast<float>(f[k] / feature_max_[k]);
  return out;
}

LayerChoice Problem::choice_from_levels(size_t layer, int pe_level, int buffer_level,
                                        int dataflow_index) const {
  const auto& dfs = dataflows_[layer];
  LayerChoice c;
  c.pes = kPeLevels[std::clamp(pe_level, 0, kLevels - 1)];
  c.k_tile = std::clamp(buffer_level, 0, kLevels - 1) + 1;
  c.dataflow = dfs[std::clamp<size_t>(dataflow_index, 0, dfs.size() - 1)];
  return c;
}

LayerCost Problem::compute(size_t shape, const LayerChoice& c) const {
  const workload::Layer& layer = layers_[shape];
  LayerCost out;
  const mapping::Mapping m = layer_mapping(layer, c);
  const workload::Layer priced =
      options_.edges == EdgePricing::Padded ? padded_layer(layer, m) : layer;
  const cost::Cost cost = cost::evaluate(priced, confuciux_arch(c.pes), m);
  if (!cost.ok()) {
    out.reason = cost.reason;
    return out;
  }
  out.ok = true;
  out.latency_cycles = cost.runtime_cycles;
  out.energy_nj = cost.energy_nj;
  out.area = maestro_area(c.pes, cost.l1_bytes, cost.l2_bytes);
  out.power_mw = cost.power_mw;
  return out;
}

LayerCost Problem::layer_cost(size_t layer, const LayerChoice& c) {
  SPARSEMAP_ASSERT(layer < layers_.size());
  const size_t shape = shape_of_[layer];
  const uint64_t key = (uint64_t(shape) << 24) ^ (uint64_t(c.pes) << 8) ^
                       (uint64_t(c.k_tile) << 2) ^ uint64_t(static_cast<uint8_t>(c.dataflow));
  ++lookups_;
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  LayerCost lc = compute(shape, c);
  order_.push_back({int64_t(shape), c.pes, c.k_tile, int64_t(static_cast<uint8_t>(c.dataflow))});
  cache_.emplace(key, lc);
  return lc;
}

DesignCost Problem::combine(const std::vector<LayerCost>& costs) const {
  DesignCost d;
  d.ok = true;
  for (const LayerCost& c : costs) {
    if (!c.ok) d.ok = false;
    d.latency_cycles += c.latency_cycles;
    d.energy_nj += c.energy_nj;
    if (options_.deployment == Deployment::Pipelined) {
      d.area += c.area;
      d.power_mw += c.power_mw;
    } else {
      d.area = std::max(d.area, c.area);
      d.power_mw = std::max(d.power_mw, c.power_mw);
    }
  }
  d.objective = options_.objective == Objective::Latency ? double(d.latency_cycles) : d.energy_nj;
  d.constraint = options_.constraint == ConstraintKind::Area ? d.area : d.power_mw;
  d.feasible = d.ok && d.constraint <= budget_;
  return d;
}

DesignCost Problem::evaluate(const Design& d) {
  SPARSEMAP_ASSERT(d.size() == layers_.size());
  std::vector<LayerCost> costs(d.size());
  for (size_t i = 0; i < d.size(); ++i) costs[i] = layer_cost(i, d[i]);
  return combine(costs);
}

bool Problem::valid_choice(size_t layer, const LayerChoice& c) const {
  if (layer >= layers_.size() || c.pes < 1 || c.pes > kMaxPes || c.k_tile < 1 ||
      c.k_tile > kMaxKTile)
    return false;
  const auto& dfs = dataflows_[layer];
  return std::find(dfs.begin(), dfs.end(), c.dataflow) != dfs.end();
}

bool Problem::valid_design(const Design& d) const {
  if (d.size() != layers_.size()) return false;
  for (size_t i = 0; i < d.size(); ++i)
    if (!valid_choice(i, d[i])) return false;
  return true;
}

Design Problem::minimum_design() const {
  Design d(layers_.size());
  for (size_t i = 0; i < layers_.size(); ++i) d[i] = {1, 1, dataflows_[i][0]};
  return d;
}

void Problem::replay(const std::vector<std::array<int64_t, 4>>& log) {
  for (const auto& s : log) {
    const auto shape = static_cast<size_t>(s[0]);
    const LayerChoice c{s[1], s[2], static_cast<Dataflow>(std::clamp<int64_t>(s[3], 0, 3))};
    if (shape >= layers_.size() || shape_of_[shape] != shape || s[3] < 0 || s[3] > 3 ||
        !valid_choice(shape, c))
      throw InputError({"<checkpoint>", 0, 0}, "a cached state does not belong to this problem");
    layer_cost(shape, c);
  }
}

namespace {
template <typename E>
E parse_enum(const std::string& s, const std::string& flag,
             std::initializer_list<std::pair<const char*, E>> names, const char* expected) {
  for (const auto& [n, e] : names)
    if (s == n) return e;
  throw InputError({"<flag " + flag + ">", 0, 0},
                   std::string("expected ") + expected + ", got '" + s + "'");
}
}  // namespace

Objective parse_objective(const std::string& s, const std::string& flag) {
  return parse_enum<Objective>(
      s, flag, {{"latency", Objective::Latency}, {"energy", Objective::Energy}}, "latency|energy");
}
ConstraintKind parse_constraint(const std::string& s, const std::string& flag) {
  return parse_enum<ConstraintKind>(
      s, flag, {{"area", ConstraintKind::Area}, {"power", ConstraintKind::Power}}, "area|power");
}
Deployment parse_deployment(const std::string& s, const std::string& flag) {
  return parse_enum<Deployment>(
      s, flag, {{"pipelined", Deployment::Pipelined}, {"sequential", Deployment::Sequential}},
      "pipelined|sequential");
}
EdgePricing parse_edges(const std::string& s, const std::string& flag) {
  return parse_enum<EdgePricing>(
      s, flag, {{"padded", EdgePricing::Padded}, {"physical", EdgePricing::Physical}},
      "padded|physical");
}

}  // namespace sparsemap::dse::hwalloc
