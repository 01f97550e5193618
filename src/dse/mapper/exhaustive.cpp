// Exhaustive enumeration of constrained, divisor-only map spaces.
#include "sparsemap/dse/mapper/exhaustive.h"

#include <thread>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::dse::mapper {
namespace {

std::vector<int64_t> divisors_of(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

}  // namespace

int64_t enumerate_space(const MapSpace& space,
                        const std::function<void(const MapSpace::Decoded&)>& visit) {
  const MapSpaceOptions& o = space.options();
  if (!o.divisors_only || !o.fixed_order || o.constraint == Constraint::None)
    throw InputError({"<exhaustive>", 0, 0},
                     "exhaustive enumeration needs divisors_only, fixed_order and a constraint");
  // The parallel slots and everything else but tiles and the cluster size come from decoding
  // any genome.
  MapSpace::Decoded base = space.decode_raw(search::Genome(space.dims(), 0.0));
  const int p1 = base.parallel[1];
  // Per slot, every chain (t0, t1) with t1 | t0 | extent.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> chains(kSlots);
  for (int s = 0; s < kSlots; ++s)
    for (int64_t t0 : divisors_of(std::max<int64_t>(1, space.extent(s))))
      for (int64_t t1 : divisors_of(t0)) chains[s].push_back({t0, t1});
  const std::vector<int64_t> clusters = divisors_of(space.arch().num_pes);
  int64_t count = 0;
  std::vector<size_t> idx(kSlots, 0);
  while (true) {
    MapSpace::Decoded d = base;
    for (int s = 0; s < kSlots; ++s) {
      d.tile[0][s] = chains[s][idx[s]].first;
      d.tile[1][s] = chains[s][idx[s]].second;
    }
    const int64_t chunks = d.tile[0][p1] / d.tile[1][p1];
    for (int64_t c : clusters) {
      if (c > chunks) break;
      d.cluster[1] = c;
      ++count;
      if (visit) visit(d);
    }
    int s = 0;
    for (; s < kSlots; ++s) {
      if (++idx[s] < chains[s].size()) break;
      idx[s] = 0;
    }
    if (s == kSlots) break;
  }
  return count;
}

ExhaustiveResult exhaustive_best(const MapSpace& space, const FitnessSpec& spec, int threads) {
  std::vector<MapSpace::Decoded> all;
  enumerate_space(space, [&](const MapSpace::Decoded& d) { all.push_back(d); });
  threads = std::max(1, threads);
  std::vector<double> f(all.size(), search::kInfeasible);
  auto work = [&](int t) {
    for (size_t i = static_cast<size_t>(t); i < all.size(); i += static_cast<size_t>(threads)) {
      const mapping::Mapping m = space.to_mapping(all[i]);
      double sum = 0, worst = 0;
      bool ok = true;
      for (const auto& sp : spec.sparsity) {
        cost::EvalOptions eo;
        eo.enforce_buffers = true;
        eo.sparsity = sp;
        const double v =
            objective_value(cost::evaluate(space.layer(), space.arch(), m, eo), spec.objective);
        if (v >= search::kInfeasible) {
          ok = false;
          break;
        }
        sum += v;
        worst = std::max(worst, v);
      }
      if (ok) f[i] = spec.worst_case ? worst : sum / static_cast<double>(spec.sparsity.size());
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  ExhaustiveResult r;
  r.points = static_cast<int64_t>(all.size());
  r.best = search::kInfeasible;
  for (size_t i = 0; i < all.size(); ++i)
    if (f[i] < r.best) {
      r.best = f[i];
      r.best_decoded = all[i];
    }
  return r;
}

}  // namespace sparsemap::dse::mapper
