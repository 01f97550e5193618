// Evaluations per second of the loop-nest model (one thread) on a Timeloop problem:
//   loopnest_bench [benchmark flags] FILES...   (arch, problem, mapping, ERT as `sparsemap
//   timeloop` takes them; bench/timeloop_side_by_side.sh runs it beside timeloop-model).
// Three cases:
//   Point/given   the files' mapping, resolved once, evaluated again and again
//                 (LoopNestEvaluator::evaluate, as a search calls it);
//   Point/random  4,096 distinct random mappings of the problem (factors drawn from each
//                 bound's prime factors over every level's temporal and spatial slots, loop
//                 orders shuffled, spatial factors kept within each fan-out), cycled; the
//                 counter `ok` is the share that fits every capacity;
//   Named/given   evaluate_loopnest from the named mapping (resolution included).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "../tests/support/random_loopnest.h"
#include "sparsemap/cost/loopnest.h"
#include "sparsemap/error.h"
#include "sparsemap/io/timeloop.h"

namespace {

using namespace sparsemap;

io::TimeloopInputs& inputs() {
  static io::TimeloopInputs in;
  return in;
}

void point_given(benchmark::State& state) {
  const auto& in = inputs();
  const cost::LoopNestEvaluator ev(*in.problem, *in.arch, in.ert ? &*in.ert : nullptr);
  cost::LoopNestPoint x;
  if (const std::string why = ev.resolve(*in.mapping, &x); !why.empty()) {
    state.SkipWithError(why.c_str());
    return;
  }
  cost::LoopNestWorkspace ws;
  for (auto _ : state) benchmark::DoNotOptimize(ev.evaluate(x, ws));
  state.SetItemsProcessed(state.iterations());
}

void point_random(benchmark::State& state) {
  const auto& in = inputs();
  const cost::LoopNestEvaluator ev(*in.problem, *in.arch, in.ert ? &*in.ert : nullptr);
  std::mt19937_64 rng(2026);
  std::vector<cost::LoopNestPoint> pool;
  for (int i = 0; i < 4096; ++i)
    pool.push_back(testing::random_point(ev, *in.problem, *in.arch, rng));
  cost::LoopNestWorkspace ws;
  size_t i = 0, ok = 0, n = 0;
  for (auto _ : state) {
    const cost::LoopNestSummary s = ev.evaluate(pool[i], ws);
    ok += s.ok();
    ++n;
    i = (i + 1) % pool.size();
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["ok"] = n ? static_cast<double>(ok) / static_cast<double>(n) : 0;
}

void named_given(benchmark::State& state) {
  const auto& in = inputs();
  for (auto _ : state)
    benchmark::DoNotOptimize(
        cost::evaluate_loopnest(*in.problem, *in.arch, *in.mapping, in.ert ? &*in.ert : nullptr));
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: loopnest_bench [benchmark flags] ARCH PROBLEM MAPPING [ERT]\n");
    return 2;
  }
  try {
    inputs() = io::read_timeloop_files(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  if (!inputs().problem || !inputs().arch || !inputs().mapping) {
    std::fprintf(stderr, "loopnest_bench: the files hold no problem, architecture or mapping\n");
    return 2;
  }
  benchmark::RegisterBenchmark("LoopNest/Point/given", point_given);
  benchmark::RegisterBenchmark("LoopNest/Point/random", point_random);
  benchmark::RegisterBenchmark("LoopNest/Named/given", named_given);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
