// libFuzzer target for co-design checkpoints (`codesign --resume`): dse::codesign::run_codesign
// with `resume` reads the checkpoint (search::read_checkpoint, then the co-design context check)
// and continues the search from it. The bytes go through a scratch file (the reader takes a
// path). Checked on every input: the resume returns or throws InputError (no crash, abort,
// hang, leak or UB). Seeds: checkpoints of real tiny runs of each algorithm, mid-run and done.
#include <cstring>

#include "fuzz_main.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/dse/codesign/codesign.h"
#include "sparsemap/workload/layer.h"

namespace cd = sparsemap::dse::codesign;

namespace {

std::shared_ptr<const cd::CodesignSpace> space() {
  using namespace sparsemap;
  static const auto s = [] {
    cd::CodesignOptions o;
    o.area_budget_mm2 = 0.2;
    o.pe_limit = 64;
    const std::vector<workload::Layer> layers = {workload::conv2d("c1", 1, 3, 8, 8, 8, 3, 1, 1),
                                                 workload::fc("fc", 1, 32, 10)};
    return std::make_shared<const cd::CodesignSpace>(layers, arch::preset("gamma-edge"), o);
  }();
  return s;
}

cd::RunOptions options(const std::string& algo, const std::string& file) {
  cd::RunOptions ro;
  ro.algo = algo;
  ro.budget = 40;
  ro.seed = 3;
  ro.population = 10;
  ro.checkpoint_file = file;
  ro.checkpoint_every = 10;
  return ro;
}

}  // namespace

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  const std::string path = scratch_path(".codesign_seed.json");
  return checkpoint_seeds(path, {"digamma", "ga", "random"}, 25,
                          [&](const std::string& algo, const Progress& progress) {
                            cd::RunOptions ro = options(algo, path);
                            ro.progress = progress;
                            cd::run_codesign(space(), ro);
                          });
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  static const std::string path = fuzz::scratch_path(".codesign.json");
  fuzz::write_bytes(path, std::string(reinterpret_cast<const char*>(data), size));
  cd::RunOptions ro = options("digamma", path);
  ro.resume = true;
  ro.checkpoint_every = 1 << 30;  // the input stays as it is
  // The algorithm the checkpoint was written by, when it names one of the seeds' algorithms.
  for (const char* algo : {"\"ga\"", "\"random\""})
    if (std::string(reinterpret_cast<const char*>(data), size).find(algo) != std::string::npos)
      ro.algo = std::string(algo + 1, std::strlen(algo) - 2);
  fuzz::accepts([&] { cd::run_codesign(space(), ro); });
  return 0;
}
