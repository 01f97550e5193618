// Evaluations per second of the cost model on distinct random GAMMA-style two-level mappings of
// ResNet-50's and BERT-base's GEMM-class layers (one thread; no memoisation across calls).
// MAESTRO, for comparison, takes about 1.5 to 3 ms per layer evaluation (process included).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "../tests/support/random_mappings.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/workload/zoo.h"

namespace {

using namespace sparsemap;

struct Case {
  workload::Layer layer;
  mapping::Mapping mapping;
};

// A pool of distinct (layer, mapping) pairs, drawn before timing.
std::vector<Case> make_pool(const char* model, size_t n, bool even) {
  const workload::Model m = workload::zoo_model(model);
  std::vector<workload::Layer> layers;
  for (const auto& l : m.layers)
    if (workload::is_gemm_class(l.kind)) layers.push_back(l);
  std::mt19937_64 rng(2024);
  std::vector<Case> pool;
  pool.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const workload::Layer& l = layers[i % layers.size()];
    pool.push_back({l, cost::testing::random_mapping(l, 168, rng, even)});
  }
  return pool;
}

void run(benchmark::State& state, const char* model, bool even) {
  const std::vector<Case> pool = make_pool(model, 8192, even);
  const arch::Arch hw = arch::preset("gamma-edge");
  size_t i = 0, ok = 0;
  for (auto _ : state) {
    const Case& c = pool[i];
    const cost::Cost r = cost::evaluate(c.layer, hw, c.mapping);
    benchmark::DoNotOptimize(r.runtime_cycles);
    ok += r.ok();
    if (++i == pool.size()) i = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["ok_fraction"] =
      static_cast<double>(ok) / static_cast<double>(std::max<size_t>(1, state.iterations()));
}

void BM_Evaluate_ResNet50(benchmark::State& s) { run(s, "resnet50", false); }
void BM_Evaluate_ResNet50_Even(benchmark::State& s) { run(s, "resnet50", true); }
void BM_Evaluate_BertBase(benchmark::State& s) { run(s, "bert-base", false); }
void BM_Evaluate_BertBase_Even(benchmark::State& s) { run(s, "bert-base", true); }

BENCHMARK(BM_Evaluate_ResNet50);
BENCHMARK(BM_Evaluate_ResNet50_Even);
BENCHMARK(BM_Evaluate_BertBase);
BENCHMARK(BM_Evaluate_BertBase_Even);

}  // namespace

BENCHMARK_MAIN();
