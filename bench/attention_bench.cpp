// Attention-configuration evaluations per second (cost::evaluate_flat on distinct FLAT
// configurations of FLAT's four models, 512 to 1M tokens, edge and cloud; one thread, no
// memoisation), the exhaustive FLAT search, and, for the ratio the issue asks for, the
// single-operator model (cost::evaluate) on distinct random GAMMA-style mappings of BERT-base's
// GEMMs as in cost_model_bench.cpp. After the benchmarks, prints
//   flat_evals_per_s / single_op_evals_per_s.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <ctime>
#include <random>
#include <vector>

#include "../tests/support/random_mappings.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/attention.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/attention/attention_search.h"
#include "sparsemap/workload/zoo.h"

namespace {

using namespace sparsemap;

struct FlatCase {
  cost::AttentionShape shape;
  const cost::AttentionHw* hw;
  cost::FlatConfig config;
};

const cost::AttentionHw& edge() {
  static const cost::AttentionHw h = cost::attention_hw(arch::preset("flat-edge"));
  return h;
}
const cost::AttentionHw& cloud() {
  static const cost::AttentionHw h = cost::attention_hw(arch::preset("flat-cloud"));
  return h;
}

// A pool of distinct (shape, hw, configuration) triples, drawn before timing.
std::vector<FlatCase> flat_pool(size_t n) {
  const int64_t models[4][4] = {
      {12, 64, 64, 768}, {16, 64, 64, 1024}, {8, 64, 64, 512}, {16, 128, 128, 2048}};
  std::mt19937_64 rng(2024);
  std::vector<FlatCase> pool;
  pool.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& m = models[rng() % 4];
    const int64_t seq = int64_t{512} << (rng() % 12);
    FlatCase c{
        {64, m[0], seq, seq, m[1], m[2], m[3], 4 * m[3]}, rng() % 2 ? &edge() : &cloud(), {}};
    const auto space = dse::attention::flat_space(c.shape);
    std::vector<double> genome(5);
    for (double& g : genome) g = std::uniform_real_distribution<double>(0, 1)(rng);
    c.config = dse::attention::decode(space, genome);
    pool.push_back(c);
  }
  return pool;
}

double g_flat_rate = 0, g_single_rate = 0;

// Iterations per second of this process's CPU time (the machines are shared: wall time is not).
double per_second(const benchmark::State& state, std::clock_t t0) {
  const double s = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  return s > 0 ? static_cast<double>(state.iterations()) / s : 0;
}

void BM_FlatEvaluate(benchmark::State& state) {
  const std::vector<FlatCase> pool = flat_pool(8192);
  size_t i = 0;
  double sink = 0;
  const std::clock_t t0 = std::clock();
  for (auto _ : state) {
    const FlatCase& c = pool[i];
    const cost::AttentionCost r = cost::evaluate_flat(c.shape, *c.hw, c.config);
    sink += r.latency_s;
    benchmark::DoNotOptimize(sink);
    if (++i == pool.size()) i = 0;
  }
  g_flat_rate = per_second(state, t0);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_SingleOpEvaluate(benchmark::State& state) {
  const workload::Model m = workload::zoo_model("bert-base");
  std::vector<workload::Layer> layers;
  for (const auto& l : m.layers)
    if (workload::is_gemm_class(l.kind)) layers.push_back(l);
  std::mt19937_64 rng(2024);
  std::vector<std::pair<workload::Layer, mapping::Mapping>> pool;
  for (size_t k = 0; k < 8192; ++k) {
    const workload::Layer& l = layers[k % layers.size()];
    pool.emplace_back(l, cost::testing::random_mapping(l, 1024, rng, false));
  }
  const arch::Arch hw = arch::preset("flat-edge");
  size_t i = 0;
  const std::clock_t t0 = std::clock();
  for (auto _ : state) {
    const cost::Cost r = cost::evaluate(pool[i].first, hw, pool[i].second);
    benchmark::DoNotOptimize(r.runtime_cycles);
    if (++i == pool.size()) i = 0;
  }
  g_single_rate = per_second(state, t0);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

// One exhaustive FLAT search (every configuration) per iteration: BERT, cloud, 64K tokens.
void BM_FlatSearchExhaustive(benchmark::State& state) {
  const cost::AttentionShape s{64, 12, 65536, 65536, 64, 64, 768, 3072};
  int64_t evals = 0;
  for (auto _ : state) {
    const auto r = dse::attention::search_flat(s, cloud());
    evals += r.evaluations;
    benchmark::DoNotOptimize(r.cost.latency_s);
  }
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(evals), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_FlatEvaluate);
BENCHMARK(BM_SingleOpEvaluate);
BENCHMARK(BM_FlatSearchExhaustive)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (g_flat_rate > 0 && g_single_rate > 0)
    std::printf(
        "attention configurations: %.0f evaluations/s (target >= 10,000); single-operator "
        "model: %.0f evaluations/s; ratio %.1fx\n",
        g_flat_rate, g_single_rate, g_flat_rate / g_single_rate);
  return 0;
}
