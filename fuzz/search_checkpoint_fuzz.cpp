// libFuzzer target for search checkpoints (search::read_checkpoint, which takes a path: the
// bytes go through a scratch file; then run_search resumes from the state with the optimiser the
// checkpoint names). Checked on every input: reading and resuming return or throw InputError
// (no crash, abort, hang, leak or UB). Seeds: a real checkpoint of every optimiser.
#include <cmath>
#include <cstdio>

#include "fuzz_main.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/search/optimizer.h"

namespace search = sparsemap::search;

namespace {

constexpr size_t kDims = 4;

double sphere(const search::Genome& g) {
  double s = 0;
  for (double x : g) s += (x - 0.3) * (x - 0.3);
  return s;
}

std::unique_ptr<search::Optimizer> optimizer(const std::string& name) {
  search::OptimizerOptions oo;
  oo.seed = 7;
  oo.budget = 48;
  oo.ga.population = 10;
  return search::make_optimizer(
      name, kDims, oo,
      name == "exhaustive" ? std::vector<int64_t>(kDims, 3) : std::vector<int64_t>{});
}

search::SearchOptions options() {
  search::SearchOptions so;
  so.budget = 48;
  so.batch = 8;
  return so;
}

}  // namespace

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  const std::string path = scratch_path(".seed.json");
  Seeds s;
  for (const std::string& name : search::optimizer_names()) {
    auto opt = optimizer(name);
    search::SearchOptions so = options();
    so.budget = 24;
    so.checkpoint_file = path;
    so.checkpoint_every = 8;
    search::run_search(*opt, search::Evaluator(1), sphere, so);
    s.push_back({name + ".json", read_bytes(path)});
  }
  std::remove(path.c_str());
  return s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  static const std::string path = fuzz::scratch_path(".search.json");
  fuzz::write_bytes(path, std::string(reinterpret_cast<const char*>(data), size));
  nlohmann::json j;
  if (!fuzz::accepts([&] { j = search::read_checkpoint(path); })) return 0;
  std::string name = "ga";
  if (j["optimizer"].contains("name") && j["optimizer"]["name"].is_string())
    name = j["optimizer"]["name"].get<std::string>();
  fuzz::accepts([&] {
    auto opt = optimizer(name);
    search::run_search(*opt, search::Evaluator(1), sphere, options(), &j);
  });
  return 0;
}
