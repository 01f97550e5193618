// libFuzzer target for fusion-search checkpoints (`fuse --resume`): dse::fusion::search with
// `resume` reads the checkpoint (search::read_checkpoint) and continues the search from it on a
// tiny chain. The bytes go through a scratch file (the reader takes a path). Checked on every
// input: the resume returns or throws InputError (no crash, abort, hang, leak or UB). Seeds:
// checkpoints of real tiny runs of the GA and random search, mid-run and done.

#include "fuzz_main.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/fusion.h"
#include "sparsemap/dse/fusion/fusion_search.h"
#include "sparsemap/workload/layer.h"

namespace fu = sparsemap::dse::fusion;

namespace {

const sparsemap::cost::FusionCostModel& model() {
  using namespace sparsemap;
  static const cost::FusionCostModel m = [] {
    arch::Arch a;
    a.name = "small";
    a.num_pes = 16;
    a.l1_bytes = 1024;
    a.l2_bytes = 1 << 20;
    a.noc_words_per_cycle = 16;
    a.offchip_words_per_cycle = 0.5;
    a.word_bytes = 2;
    workload::Model w;
    w.name = "chain";
    w.layers = {workload::conv2d("c0", 4, 3, 8, 8, 4, 3, 1, 1),
                workload::conv2d("c1", 4, 4, 8, 8, 4, 3, 1, 1, 4),
                workload::conv2d("c2", 4, 4, 8, 8, 8, 1)};
    w.producers = workload::chain_producers(3);
    cost::FusionOptions o;
    o.buffer_bytes = 8000;
    return cost::FusionCostModel(cost::fusion_graph(w, 4), a, o);
  }();
  return m;
}

fu::SearchOptions options(const std::string& algo, const std::string& file) {
  fu::SearchOptions s;
  s.algo = algo;
  s.budget = 60;
  s.seed = 3;
  s.population = 10;
  s.checkpoint_file = file;
  s.checkpoint_every = 10;
  return s;
}

}  // namespace

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  const std::string path = scratch_path(".fusion_seed.json");
  return checkpoint_seeds(path, {"ga", "random"}, 30,
                          [&](const std::string& algo, const Progress& progress) {
                            fu::SearchOptions so = options(algo, path);
                            so.progress = progress;
                            fu::search(model(), fu::Objective::Latency, so);
                          });
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  static const std::string path = fuzz::scratch_path(".fusion.json");
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  fuzz::write_bytes(path, bytes);
  fu::SearchOptions so = options("ga", path);
  so.resume = true;
  if (bytes.find("\"random\"") != std::string::npos) so.algo = "random";
  fuzz::accepts([&] { fu::search(model(), fu::Objective::Latency, so); });
  return 0;
}
