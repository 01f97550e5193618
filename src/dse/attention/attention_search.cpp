// FLAT's design-space search over granularity, row tile, placement and stationarity, the
// unfused baseline mapped by the single-operator model, and the rest of the layer.
#include "sparsemap/dse/attention/attention_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/error.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/search/optimizer.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::dse::attention {

using cost::AttentionCost;
using cost::FlatConfig;
using cost::Granularity;
using cost::Stationarity;

Objective parse_objective(const std::string& s) {
  if (s == "latency") return Objective::Latency;
  if (s == "energy") return Objective::Energy;
  throw InputError({"<flag --objective>", 0, 0},
                   "unknown objective '" + s + "'; expected latency or energy");
}

int64_t FlatSpace::size() const {
  return 3 * static_cast<int64_t>(std::max<size_t>(1, row_tiles.size())) * 64 * 9;
}

FlatSpace flat_space(const cost::AttentionShape& s) {
  FlatSpace sp;
  for (int64_t r = 1; r < s.queries; r *= 2) sp.row_tiles.push_back(r);
  return sp;
}

std::vector<int64_t> genome_levels(const FlatSpace& space) {
  return {3, static_cast<int64_t>(std::max<size_t>(1, space.row_tiles.size())), 64, 3, 3};
}

namespace {

int64_t gene(double g, int64_t levels) {
  const auto i = static_cast<int64_t>(g * static_cast<double>(levels));
  return std::clamp<int64_t>(i, 0, levels - 1);
}

constexpr Granularity kGranularities[3] = {Granularity::Batch, Granularity::Head, Granularity::Row};
constexpr Stationarity kStationarities[3] = {Stationarity::Output, Stationarity::Weight,
                                             Stationarity::Input};

double objective_value(const AttentionCost& c, Objective o) {
  if (!c.feasible) return search::kInfeasible;
  return o == Objective::Latency ? c.latency_s : c.energy_pj;
}

}  // namespace

FlatConfig decode(const FlatSpace& space, const std::vector<double>& genome) {
  const std::vector<int64_t> lv = genome_levels(space);
  FlatConfig c;
  c.granularity = kGranularities[gene(genome[0], lv[0])];
  if (space.row_tiles.empty() && c.granularity == Granularity::Row)
    c.granularity = Granularity::Head;
  c.row_tile = c.granularity == Granularity::Row ? space.row_tiles[gene(genome[1], lv[1])] : 0;
  const int64_t bits = gene(genome[2], lv[2]);
  for (int t = 0; t < cost::kNumAttnTensors; ++t) c.on_chip[t] = ((bits >> t) & 1) != 0;
  c.qk = kStationarities[gene(genome[3], lv[3])];
  c.av = kStationarities[gene(genome[4], lv[4])];
  return c;
}

bool better(const AttentionCost& a, const AttentionCost& b, Objective o) {
  if (a.feasible != b.feasible) return a.feasible;
  const double va = objective_value(a, o), vb = objective_value(b, o);
  if (va != vb) return va < vb;
  if (a.dram_bytes != b.dram_bytes) return a.dram_bytes < b.dram_bytes;
  return a.footprint_bytes < b.footprint_bytes;
}

// Exhaustive: every configuration, each once (row tiles only at row granularity), in a fixed
// order. Otherwise the search engine's optimiser over the 5-gene genome, fitness = the
// objective times (1 + 1e-6 x traffic / compulsory traffic) so that ties favour less traffic.
FlatChoice search_flat(const cost::AttentionShape& s, const cost::AttentionHw& hw,
                       const SearchOptions& options) {
  cost::validate_attention(s, hw);
  const FlatSpace space = flat_space(s);
  FlatChoice best;
  best.cost.feasible = false;
  auto consider = [&](const FlatConfig& c) {
    const AttentionCost r = cost::evaluate_flat(s, hw, c, options.flat);
    ++best.evaluations;
    if (best.evaluations == 1 || better(r, best.cost, options.objective)) {
      best.cost = r;
      best.config = c;
    }
  };
  if (options.algo == "exhaustive") {
    for (Granularity g : kGranularities) {
      std::vector<int64_t> tiles{0};
      if (g == Granularity::Row) tiles = space.row_tiles;
      for (int64_t r : tiles)
        for (int bits = 0; bits < 64; ++bits)
          for (Stationarity qk : kStationarities)
            for (Stationarity av : kStationarities) {
              FlatConfig c;
              c.granularity = g;
              c.row_tile = r;
              for (int t = 0; t < cost::kNumAttnTensors; ++t) c.on_chip[t] = ((bits >> t) & 1) != 0;
              c.qk = qk;
              c.av = av;
              consider(c);
            }
    }
    return best;
  }
  const int64_t budget =
      options.algo == "bo" ? std::min(options.budget, search::kBoSampleCap) : options.budget;
  if (budget < 1) throw InputError({"<flag --budget>", 0, 0}, "expected at least 1 sample");
  search::OptimizerOptions oo;
  oo.seed = options.seed;
  oo.budget = budget;
  auto opt = search::make_optimizer(options.algo, 5, oo, genome_levels(space));
  const double compulsory =
      static_cast<double>(hw.word_bytes) * static_cast<double>(s.batch * s.heads) *
      static_cast<double>(s.queries * s.e + s.keys * (s.e + s.f) + s.queries * s.f);
  search::SearchOptions so;
  so.budget = budget;
  so.batch = 32;
  const search::Evaluator eval(1, false);
  const auto fitness = [&](const search::Genome& g) {
    const AttentionCost r = cost::evaluate_flat(s, hw, decode(space, g), options.flat);
    const double v = objective_value(r, options.objective);
    return v >= search::kInfeasible ? v : v * (1.0 + 1e-6 * r.dram_bytes / compulsory);
  };
  const search::SearchResult res = search::run_search(*opt, eval, fitness, so);
  best.config = decode(space, res.best);
  best.cost = cost::evaluate_flat(s, hw, best.config, options.flat);
  best.evaluations = res.samples + 1;
  return best;
}

MappedBlock map_block(const cost::AttentionShape& s, const arch::Arch& arch, int64_t budget,
                      uint64_t seed) {
  mapper::MapperOptions mo;
  mo.budget = budget;
  mo.seed = seed;
  MappedBlock b;
  arch::Arch unlimited = arch;
  unlimited.offchip_words_per_cycle = 1e18;  // DRAM time is the attention model's
  const int64_t g = s.batch * s.heads;
  const mapper::ModelOutcome attn =
      mapper::map_layers({workload::batched_gemm("qk", g, s.queries, s.keys, s.e),
                          workload::batched_gemm("av", g, s.queries, s.f, s.keys)},
                         unlimited, mo);
  const double f = arch.clock_mhz * 1e6;
  auto seconds = [&](const mapper::LayerOutcome& o) {
    return o.cost.ok() ? static_cast<double>(o.cost.runtime_cycles) / f : 0.0;
  };
  b.qk_s = seconds(attn.layers[0]);
  b.av_s = seconds(attn.layers[1]);
  b.qk_mapping = mapper::mapping_text(attn.layers[0].mapping);
  b.av_mapping = mapper::mapping_text(attn.layers[1].mapping);
  for (const auto& o : attn.layers) b.evaluations += o.samples;
  if (s.d_model <= 0 || s.ffn <= 0) return b;
  const int64_t tokens = s.batch * s.queries, d = s.d_model;
  const int64_t inner_q = s.heads * s.e, inner_v = s.heads * s.f;
  const mapper::ModelOutcome rest = mapper::map_layers(
      {workload::gemm("q_proj", tokens, inner_q, d), workload::gemm("k_proj", tokens, inner_q, d),
       workload::gemm("v_proj", tokens, inner_v, d), workload::gemm("o_proj", tokens, d, inner_v),
       workload::gemm("ffn1", tokens, s.ffn, d), workload::gemm("ffn2", tokens, d, s.ffn)},
      arch, mo);
  for (const auto& o : rest.layers) {
    b.evaluations += o.samples;
    if (!o.cost.ok()) continue;
    b.rest.latency_s += static_cast<double>(o.cost.runtime_cycles) / f;
    b.rest.energy_pj += o.cost.energy_nj * 1e3;
    b.rest.dram_bytes += o.cost.offchip_words * static_cast<double>(arch.word_bytes);
  }
  return b;
}

cost::AttentionCost best_unfused(const cost::AttentionShape& s, const cost::AttentionHw& hw,
                                 const MappedBlock& gemms) {
  cost::validate_attention(s, hw);
  return cost::evaluate_unfused(s, hw, gemms.qk_s, gemms.av_s);
}

}  // namespace sparsemap::dse::attention
