// Checkpoints of a hwalloc run (CBOR): writing them atomically and checking them on reading.
#include "sparsemap/dse/hwalloc/checkpoint.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "sparsemap/error.h"
#include "sparsemap/io/util.h"

namespace sparsemap::dse::hwalloc {

using nlohmann::json;

std::vector<uint8_t> encode_run_state(const std::string& signature, const RunState& s,
                                      const Problem& p) {
  json log = json::array();
  for (const auto& st : p.state_log()) log.push_back(st);
  const json j = {{"signature", signature},
                  {"phase", s.phase},
                  {"tracker", s.tracker.to_json()},
                  {"designs", s.designs},
                  {"rng", s.rng},
                  {"extra", s.extra},
                  {"states", log},
                  {"lookups", p.lookups()},
                  {"policy", json::binary(std::vector<uint8_t>(s.policy.begin(), s.policy.end()))}};
  return json::to_cbor(j);
}

void write_run_state(const std::string& path, const std::string& signature, const RunState& s,
                     const Problem& p) {
  const std::vector<uint8_t> bytes = encode_run_state(signature, s, p);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) throw InputError({path, 0, 0}, "cannot write the checkpoint");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw InputError({path, 0, 0}, "cannot write the checkpoint");
}

namespace {

// A design from a checkpoint must be one `p` can take, and every state it uses must be in the
// checkpoint's log (replayed already): re-evaluating it then costs no call.
DesignCost checked_design(Problem& p, const Design& d, const std::string& file,
                          const std::string& what) {
  if (!p.valid_design(d)) throw InputError({file, 0, 0}, what + " is not a design of this run");
  const int64_t calls = p.calls();
  const DesignCost c = p.evaluate(d);
  if (p.calls() != calls)
    throw InputError({file, 0, 0}, what + " uses states the checkpoint never evaluated");
  return c;
}

bool phase_of(const std::string& phase, const std::string& method) {
  const bool rl = method == "confuciux" || method == "rl" || method == "a2c";
  return phase == "start" || phase == "done" || (rl && phase == "rl") ||
         (method == "confuciux" && phase == "ga") || (!rl && phase == "baseline");
}

}  // namespace

RunState decode_run_state(const std::vector<uint8_t>& bytes, const std::string& file,
                          const std::string& signature, const std::string& method, Problem& p) {
  RunState s;
  try {
    const json j = json::from_cbor(bytes);
    const std::string sig = j.at("signature").get<std::string>();
    if (sig != signature)
      throw InputError({file, 0, 0}, "the checkpoint is of another run (" + sig + ")");
    std::vector<std::array<int64_t, 4>> log;
    for (const auto& st : j.at("states")) log.push_back(st.get<std::array<int64_t, 4>>());
    try {
      p.replay(log);
    } catch (const InputError& e) {
      throw InputError({file, 0, 0}, e.message());
    }
    s.phase = j.at("phase").get<std::string>();
    if (!phase_of(s.phase, method))
      throw InputError({file, 0, 0},
                       "phase '" + s.phase + "' is not a phase of --method " + method);
    s.designs = j.at("designs").get<int64_t>();
    if (s.designs < 0) throw InputError({file, 0, 0}, "a negative design count");
    s.rng = j.at("rng").get<std::string>();
    std::istringstream in(s.rng);
    Rng probe;
    if (!(in >> probe)) throw InputError({file, 0, 0}, "the random-number state does not parse");
    s.extra = j.at("extra");
    if (!s.extra.is_object()) throw InputError({file, 0, 0}, "'extra' is not an object");
    if (s.extra.contains("worst") && !s.extra["worst"].is_number())
      throw InputError({file, 0, 0}, "'worst' is not a number");
    s.tracker.from_json(j.at("tracker"));
    if (s.tracker.has_best) {
      const DesignCost c = checked_design(p, s.tracker.best, file, "the best design");
      if (!c.feasible || c.objective != s.tracker.best_cost.objective)
        throw InputError({file, 0, 0}, "the best design's cost is not the one recorded");
      s.tracker.best_cost = c;
    }
    if (s.extra.contains("ga")) {
      GaState g;
      g.from_json(s.extra["ga"]);
      if (g.generation < 0) throw InputError({file, 0, 0}, "a negative GA generation");
      for (const Design& d : g.population) checked_design(p, d, file, "a GA individual");
    }
    const auto& bin = j.at("policy").get_binary();
    s.policy.assign(bin.begin(), bin.end());
    // The lookups the run had made (replaying and checking made their own).
    const int64_t lookups = j.at("lookups").get<int64_t>();
    if (lookups < p.setup_lookups() || lookups < p.calls())
      throw InputError({file, 0, 0}, "a lookup count below the states evaluated");
    p.set_lookups(lookups);
  } catch (const json::exception& e) {
    throw InputError({file, 0, 0}, std::string("not a hwalloc checkpoint (") + e.what() + ")");
  }
  return s;
}

RunState read_run_state(const std::string& path, const std::string& signature,
                        const std::string& method, Problem& p) {
  const std::string text = io::read_file(path);
  return decode_run_state(std::vector<uint8_t>(text.begin(), text.end()), path, signature, method,
                          p);
}

}  // namespace sparsemap::dse::hwalloc
