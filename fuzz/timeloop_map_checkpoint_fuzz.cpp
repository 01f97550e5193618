// libFuzzer target for the checkpoints of `map --hw ARCH.yaml` (map_network with resume: the
// run's checkpoint FILE and the search-in-progress state FILE.search). An input is the
// checkpoint's bytes, optionally followed by "\n#search\n" and the .search file's bytes.
// Checked on every input: the resumed run of two tiny layers on the companion design (exercise
// 03's conv1d, timeloop_fuzz.h) returns or throws InputError (no crash, abort, hang, leak or
// UB). The seeds are real checkpoints of that run (finished, mid-search, between layers), so
// mutations get past the fingerprint.
#include <cstdio>

#include "sparsemap/dse/timeloop/network.h"
#include "timeloop_fuzz.h"

namespace tl = sparsemap::dse::timeloop;

namespace {

struct Stop {};  // thrown from the progress callback: a run killed mid-search

const sparsemap::io::TimeloopInputs& inputs() {
  static const sparsemap::io::TimeloopInputs in = sparsemap::io::parse_timeloop_yaml(
      std::string(sparsemap::fuzz::kTimeloopArch) + sparsemap::fuzz::kTimeloopProblem,
      "companion.yaml");
  return in;
}

// Two layers of the companion problem (K = 32 and K = 8): GAMMA, 30 evaluations each.
std::vector<tl::NetworkLayer> layers() {
  std::vector<tl::NetworkLayer> out = {{"a", *inputs().problem}, {"b", *inputs().problem}};
  out[1].problem.bounds["K"] = 8;
  return out;
}

tl::NetworkOptions options(const std::string& path) {
  tl::NetworkOptions o;
  o.mapper.algo = "gamma";
  o.mapper.budget = 30;
  o.mapper.population = 10;
  o.mapper.checkpoint_every = 9;
  o.checkpoint_file = path;
  return o;
}

}  // namespace

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  const std::string path = scratch_path(".seed.json");
  tl::NetworkOptions o = options(path);
  const auto& h = *inputs().arch;
  Seeds s;
  tl::map_network(layers(), h, nullptr, o);
  s.push_back({"finished.json", read_bytes(path)});
  try {  // killed in the second layer's search, after its first checkpoint
    tl::map_network(layers(), h, nullptr, o, [](size_t u, size_t, int64_t n, int64_t, double) {
      if (u == 1 && n >= 18) throw Stop{};
    });
  } catch (const Stop&) {
  }
  s.push_back(
      {"mid_search.json", read_bytes(path) + kSearchSeparator + read_bytes(path + ".search")});
  s.push_back({"between.json", read_bytes(path)});
  std::remove(path.c_str());
  std::remove((path + ".search").c_str());
  return s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  static const std::string path = fuzz::scratch_path(".ckpt.json");
  fuzz::write_checkpoint_pair(path, std::string(reinterpret_cast<const char*>(data), size));
  tl::NetworkOptions o = options(path);
  o.resume = true;
  fuzz::accepts([&] { tl::map_network(layers(), *inputs().arch, nullptr, o); });
  return 0;
}
