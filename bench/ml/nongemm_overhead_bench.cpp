// NonGEMM Bench's profiling overhead: the median wall time of profiled inferences (callbacks on,
// recording) against un-profiled ones, alternated ABBA on the same model. Not a ctest.
//
//   nongemm_overhead_bench [--threads T] [--rounds R] [--batch B] [--[no-]reuse-memory]
//                          [MODEL ...]
//   (default: resnet50 bert-base, 2 threads, 30 rounds, batch 1, freed memory kept as in
//   `sparsemap nongemm`)
//
// Run with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset in the command line (docs/design.md):
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE build-ml/nongemm_overhead_bench
// Prints one JSON object per model, then a summary line each.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/error.h"
#include "sparsemap/ml/nongemm/profile.h"

int main(int argc, char** argv) {
  using namespace sparsemap::ml::nongemm;
  int threads = 2, rounds = 30;
  int64_t batch = 1;
  bool reuse_memory = true;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--threads" || a == "--rounds" || a == "--batch") && i + 1 < argc) {
      const long v = std::strtol(argv[++i], nullptr, 10);
      if (a == "--threads") threads = static_cast<int>(v);
      if (a == "--rounds") rounds = static_cast<int>(v);
      if (a == "--batch") batch = v;
    } else if (a == "--reuse-memory" || a == "--no-reuse-memory") {
      reuse_memory = a == "--reuse-memory";
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(
          stderr,
          "usage: %s [--threads T] [--rounds R] [--batch B] [--[no-]reuse-memory] [MODEL ...]\n",
          argv[0]);
      return 2;
    } else {
      models.push_back(a);
    }
  }
  if (models.empty()) models = {"resnet50", "bert-base"};
  try {
    std::vector<Overhead> results;
    for (const auto& m : models) {
      ModelOptions mo;
      mo.batch = batch;
      const Overhead o = measure_overhead(m, mo, threads, rounds, reuse_memory);
      nlohmann::json j = {{"model", o.model},
                          {"batch", batch},
                          {"threads", threads},
                          {"rounds", o.rounds},
                          {"plain_ms", o.plain_ms},
                          {"profiled_ms", o.profiled_ms},
                          {"overhead_pct", o.overhead_pct},
                          {"reuse_memory", reuse_memory},
                          {"plain_runs_ms", o.plain_runs_ms},
                          {"profiled_runs_ms", o.profiled_runs_ms},
                          {"blas", blas_description()}};
      std::printf("%s\n", j.dump().c_str());
      std::fflush(stdout);
      results.push_back(o);
    }
    for (const Overhead& o : results)
      std::printf(
          "%-12s plain %8.2f ms  profiled %8.2f ms  overhead %+6.2f%%  (%d rounds, medians)\n",
          o.model.c_str(), o.plain_ms, o.profiled_ms, o.overhead_pct, o.rounds);
  } catch (const sparsemap::InputError& e) {
    std::fprintf(stderr, "nongemm_overhead_bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nongemm_overhead_bench: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}
