// libFuzzer target for map checkpoints (map_layers with resume: the run's checkpoint FILE and the
// search-in-progress state FILE.search). An input is the checkpoint's bytes, optionally followed
// by "\n#search\n" and the .search file's bytes. Checked on every input: the resumed run of a
// tiny model returns or throws InputError (no crash, abort, hang, leak or UB). The seeds are real
// checkpoints of that run (finished, partial, mid-search), so mutations get past the fingerprint.
#include <cstdio>
#include <stdexcept>

#include "fuzz_main.h"
#include "mapper_setup.h"

namespace mapper = sparsemap::dse::mapper;

namespace {

struct Stop {};  // thrown from the progress callback: a run killed mid-search

}  // namespace

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  const std::string path = scratch_path(".seed.json");
  mapper::MapperOptions o = tiny_options();
  o.checkpoint_file = path;
  Seeds s;
  mapper::map_layers(tiny_layers(), tiny_arch(), o);
  s.push_back({"finished.json", read_bytes(path)});
  // Killed in the second layer's search, after its first checkpoint (9 samples).
  o.progress = [](size_t u, size_t, int64_t samples, int64_t, double) {
    if (u == 1 && samples >= 18) throw Stop{};
  };
  try {
    mapper::map_layers(tiny_layers(), tiny_arch(), o);
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
  mapper::MapperOptions o = fuzz::tiny_options();
  o.checkpoint_file = path;
  o.resume = true;
  fuzz::accepts([&] { mapper::map_layers(fuzz::tiny_layers(), fuzz::tiny_arch(), o); });
  return 0;
}
