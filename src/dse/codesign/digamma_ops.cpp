// DiGamma's genetic operators over the co-design genome (our implementation of the operators
// the DiGamma paper describes, on top of GAMMA's per-layer operators).
#include <algorithm>
#include <cmath>

#include "sparsemap/dse/codesign/codesign.h"
#include "sparsemap/dse/mapper/gamma_ops.h"
#include "sparsemap/search/random.h"

namespace sparsemap::dse::codesign {
namespace {

using search::normal01;
using search::uniform01;

// Expected fraction of the layers mutated per child.
// Operator rates (tuned with seeds 1-3 on resnet18, mobilenet-v2, vgg16, mnasnet and resnet50,
// edge and cloud, 1,000-2,000 samples):
constexpr double kLayerRate = 0.08;  // expected fraction of the layers mutated per child
constexpr double kPBest = 0.9;       // layer-wise crossover: the better parent's mapping
constexpr double kGammaRate = 0.3;   // GAMMA's per-level operator rate inside a layer
constexpr double kMigrate = 1.0;     // migration per child
constexpr double kGrow = 0.5;        // PEs grow to fill the area budget

}  // namespace

DigammaOperators::DigammaOperators(std::shared_ptr<const CodesignSpace> space, double gamma_rate)
    : space_(std::move(space)),
      gamma_(std::make_shared<mapper::GammaOperators>(space_->options().space.max_levels,
                                                      std::vector<search::Genome>{})),
      gamma_rate_(gamma_rate) {}

// Multiplies the tile genes of layer u by a factor in [0.5, 0.9): tiles shrink log-uniformly.
// inner_only: only the innermost active level (what sits in L1); else every level.
void DigammaOperators::shrink_tiles(search::Genome& g, size_t u, bool inner_only,
                                    search::Rng& rng) const {
  const CodesignSpace& sp = *space_;
  const size_t off = sp.offset(u);
  const int L = sp.options().space.max_levels;
  const int active = 1 + std::min(L - 1, static_cast<int>(g[off] * L));
  for (int l = inner_only ? active - 1 : 0; l < (inner_only ? active : L); ++l)
    for (int s = 0; s < mapper::kSlots; ++s) {
      double& x = g[off + 1 + static_cast<size_t>(mapper::MapSpace::kBlock * l) +
                    mapper::MapSpace::kTileGene + static_cast<size_t>(s)];
      x *= 0.5 + 0.4 * uniform01(rng);
    }
}

search::Genome DigammaOperators::crossover(const search::Genome& a, const search::Genome& b,
                                           search::Rng& rng) const {
  const CodesignSpace& sp = *space_;
  const std::shared_ptr<const DesignEval> ea = sp.evaluate(a), eb = sp.evaluate(b);
  const bool a_fitter = ea->fitness <= eb->fitness;
  const search::Genome& fit = a_fitter ? a : b;
  const search::Genome& other = a_fitter ? b : a;
  const DesignEval& ef = a_fitter ? *ea : *eb;
  const DesignEval& eo = a_fitter ? *eb : *ea;

  // 1. Hardware (and default mappings) from the fitter parent, or the other.
  const bool from_fit = uniform01(rng) < 0.75;
  search::Genome child = from_fit ? fit : other;
  const DesignEval& eh = from_fit ? ef : eo;

  // 2. Layer-wise crossover; the needs each inherited mapping had in its parent.
  const size_t U = sp.unique_layers(), D = sp.map_dims();
  std::vector<int64_t> need_l1(U), need_l2(U);
  for (size_t u = 0; u < U; ++u) {
    const size_t off = sp.offset(u);
    const double r = uniform01(rng);
    const bool fit_better = ef.layer_objective[u] <= eo.layer_objective[u];
    const search::Genome* src = &child;
    const DesignEval* es = &eh;
    if (r < kPBest) {
      src = fit_better ? &fit : &other;
      es = fit_better ? &ef : &eo;
    } else if (r < kPBest + 0.05) {
      const search::Genome sa(fit.begin() + off, fit.begin() + off + D);
      const search::Genome sb(other.begin() + off, other.begin() + off + D);
      const search::Genome sc = gamma_->crossover(sa, sb, rng);
      std::copy(sc.begin(), sc.end(), child.begin() + off);
      need_l1[u] = std::max(ef.layer_l1[u], eo.layer_l1[u]);
      need_l2[u] = std::max(ef.layer_l2[u], eo.layer_l2[u]);
      continue;
    }
    if (src != &child) std::copy(src->begin() + off, src->begin() + off + D, child.begin() + off);
    need_l1[u] = es->layer_l1[u];
    need_l2[u] = es->layer_l2[u];
  }

  // 3. Bottleneck mapping mutation: weight 1/(2U) + share/2 per layer.
  std::vector<double> w(U, 0.5 / static_cast<double>(U));
  double total = 0;
  for (size_t u = 0; u < U; ++u)
    if (ef.layer_objective[u] < kPenalty) total += sp.multiplicity(u) * ef.layer_objective[u];
  if (ef.feasible && total > 0)
    for (size_t u = 0; u < U; ++u) w[u] += 0.5 * sp.multiplicity(u) * ef.layer_objective[u] / total;
  else
    for (size_t u = 0; u < U; ++u) w[u] = 1.0 / static_cast<double>(U);
  // Each layer mutates with probability min(1, q U w_u) (at least one layer per child).
  double wsum = 0;
  for (double x : w) wsum += x;
  bool any = false;
  for (size_t u = 0; u < U; ++u) {
    const double p = std::min(1.0, kLayerRate * static_cast<double>(U) * w[u] / wsum);
    if (uniform01(rng) >= p && (any || u + 1 < U)) continue;
    any = true;
    const size_t off = sp.offset(u);
    search::Genome sub(child.begin() + off, child.begin() + off + D);
    gamma_->mutate(sub, kGammaRate, rng);
    for (double& v : sub) v = std::clamp(v, 0.0, search::kGeneMax);
    std::copy(sub.begin(), sub.end(), child.begin() + off);
  }

  // 3b. Migration between similar layers.
  if (U > 1 && uniform01(rng) < kMigrate) {
    double t = uniform01(rng) * wsum;
    size_t u = 0;
    for (; u + 1 < U; ++u) {
      if (t < w[u]) break;
      t -= w[u];
    }
    auto per_mac = [&](size_t x) {
      return ef.layer_objective[x] /
             static_cast<double>(std::max<int64_t>(1, sp.unique_layer(x).macs()));
    };
    size_t best = u;
    for (size_t v : sp.neighbours(u))
      if (ef.layer_objective[v] < kPenalty && per_mac(v) < per_mac(best)) best = v;
    if (best != u) {
      const mapper::MapSpace src = sp.layer_space(best, ef.pes);
      const search::Genome sv(fit.begin() + sp.offset(best), fit.begin() + sp.offset(best) + D);
      mapper::MapSpace::Decoded dec = src.decode_raw(sv);
      const mapper::MapSpace dst = sp.layer_space(u, sp.pes_of(child[0]));
      if (uniform01(rng) < 0.5)
        for (int l = 0; l < dec.levels; ++l)
          for (int s = 0; s < mapper::kSlots; ++s) {
            const double ratio = static_cast<double>(std::max<int64_t>(1, dst.extent(s))) /
                                 static_cast<double>(std::max<int64_t>(1, src.extent(s)));
            dec.tile[l][s] =
                std::max<int64_t>(1, std::llround(static_cast<double>(dec.tile[l][s]) * ratio));
          }
      const search::Genome g = dst.encode(dec);
      std::copy(g.begin(), g.end(), child.begin() + sp.offset(u));
      need_l1[u] = ef.layer_l1[best];
      need_l2[u] = ef.layer_l2[best];
    }
  }

  // 4. PE mutation.
  const int64_t step = sp.options().pe_step, K = sp.options().pe_limit / step;
  int64_t pes = sp.pes_of(child[0]);
  if (uniform01(rng) < 0.5) {
    if (uniform01(rng) < 0.125) {
      child[0] = uniform01(rng);
      pes = sp.pes_of(child[0]);
    } else {
      int64_t d = std::llround(normal01(rng) * std::max(1.0, 0.05 * static_cast<double>(K)));
      if (d == 0) d = uniform01(rng) < 0.5 ? -1 : 1;
      pes = std::clamp<int64_t>(pes + d * step, step, K * step);
      child[0] = sp.gene_of_pes(pes);
    }
  }

  // 5. Buffer sizing to need (Genes mode).
  const int64_t l1 = std::max<int64_t>(1, *std::max_element(need_l1.begin(), need_l1.end()));
  const int64_t l2 = std::max<int64_t>(1, *std::max_element(need_l2.begin(), need_l2.end()));
  const bool genes = sp.options().buffers == BufferMode::Genes;
  if (genes) {
    child[1] = sp.gene_of_l1(l1);
    child[2] = sp.gene_of_l2(l2);
  }
  const int64_t have_l1 = genes ? sp.l1_of(child[1]) : l1;
  const int64_t have_l2 = genes ? sp.l2_of(child[2]) : l2;

  // 6. Repair under the area budget with the inherited needs.
  const double budget = sp.options().area_budget_mm2;
  int64_t fit_k = 0;  // the most PE steps that fit
  {
    int64_t lo = 0, hi = K;
    while (lo < hi) {
      const int64_t mid = (lo + hi + 1) / 2;
      if (sp.area(mid * step, have_l1, have_l2) <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
    fit_k = lo;
  }
  if (fit_k >= 1) {
    if (pes > fit_k * step || uniform01(rng) < kGrow) child[0] = sp.gene_of_pes(fit_k * step);
    // Buffer shrink towards a larger array: when the budget binds before the PE limit, aim at
    // K/8 more PE steps; the SRAM left there caps L2 (at most 70% of it) and L1; every layer
    // needing more than a cap gets smaller tiles (innermost level for L1, all levels for L2).
    if (fit_k < K && uniform01(rng) < 0.5) {
      const int64_t kt = std::min(K, fit_k + std::max<int64_t>(1, K / 8));
      const int64_t pt = kt * step;
      const double bit_mm2 = sp.base().area.sram_um2_per_bit / 1e6;
      const double avail_bits = (budget - sp.area(pt, 0, 0)) / bit_mm2;
      if (avail_bits > 0) {
        const double l2_cap = std::min(8.0 * static_cast<double>(have_l2), 0.7 * avail_bits);
        const double l1_cap = (avail_bits - l2_cap) / static_cast<double>(pt);
        bool shrunk = false;
        for (size_t u = 0; u < U; ++u) {
          if (8.0 * static_cast<double>(need_l1[u]) > l1_cap)
            shrink_tiles(child, u, true, rng), shrunk = true;
          if (8.0 * static_cast<double>(need_l2[u]) > l2_cap)
            shrink_tiles(child, u, false, rng), shrunk = true;
        }
        if (shrunk) child[0] = sp.gene_of_pes(pt);
      }
    }
  } else {
    child[0] = sp.gene_of_pes(step);
    // Shrink the tiles of every layer that alone does not fit with the fewest PEs (or, if
    // none alone, of the one needing the most L2).
    std::vector<size_t> shrink;
    for (size_t u = 0; u < U; ++u)
      if (sp.area(step, std::max<int64_t>(1, need_l1[u]), std::max<int64_t>(1, need_l2[u])) >
          budget)
        shrink.push_back(u);
    if (shrink.empty())
      shrink.push_back(
          static_cast<size_t>(std::max_element(need_l2.begin(), need_l2.end()) - need_l2.begin()));
    for (size_t u : shrink) shrink_tiles(child, u, false, rng);
  }
  return child;
}

}  // namespace sparsemap::dse::codesign
