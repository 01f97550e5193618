// libFuzzer target for mapping DB files (dse::mapper::read_mapping_db, which takes a path: the
// bytes go through a scratch file). Checked on every input: the reader returns or throws
// InputError (no crash, hang, leak or UB); what it accepts then warm-starts a tiny map_layers
// run (as `map --mapping-db` does), which must also return or throw InputError.
#include <cstdio>

#include "fuzz_main.h"
#include "mapper_setup.h"

namespace mapper = sparsemap::dse::mapper;

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  const mapper::ModelOutcome out = mapper::map_layers(tiny_layers(), tiny_arch(), tiny_options());
  std::vector<mapper::DbEntry> db;
  for (const auto& l : out.layers) db.push_back({l.layer, l.decoded});
  const std::string path = scratch_path(".seed.json");
  Seeds s;
  mapper::write_mapping_db(db, path);
  s.push_back({"two_layers.json", read_bytes(path)});
  mapper::write_mapping_db({db.front()}, path);
  s.push_back({"one_layer.json", read_bytes(path)});
  std::remove(path.c_str());
  s.push_back({"empty.json", "{\"mappings\": []}"});
  return s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  static const std::string path = fuzz::scratch_path(".db.json");
  fuzz::write_bytes(path, std::string(reinterpret_cast<const char*>(data), size));
  std::vector<mapper::DbEntry> db;
  if (!fuzz::accepts([&] { db = mapper::read_mapping_db(path); })) return 0;
  mapper::MapperOptions o = fuzz::tiny_options();
  o.budget = 9;
  o.warm_start = true;
  o.warm_compare = false;
  o.mapping_db = db;
  fuzz::accepts([&] { mapper::map_layers({fuzz::tiny_layers().front()}, fuzz::tiny_arch(), o); });
  return 0;
}
