// Checkpoints of a `hwalloc` run: everything a resumed run needs, as CBOR, checked on reading.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/dse/hwalloc/hwalloc.h"
#include "sparsemap/dse/hwalloc/methods.h"

namespace sparsemap::dse::hwalloc {

// A run between two steps. `phase`: start | rl | ga (confuciux) | baseline | done.
struct RunState {
  std::string phase = "start";
  Tracker tracker;
  int64_t designs = 0;   // designs evaluated so far (RL episodes and individuals)
  std::string rng;       // the std::mt19937_64 state as its stream text
  nlohmann::json extra;  // {"worst": x} (RL), {"ga": GaState} or {"optimizer": state}
  std::string policy;    // the policy's parameters and Adam state (binary), RL phase only
};

// CBOR of `s` with the run's signature, the states `p` evaluated so far, in order, and its
// lookup count.
std::vector<uint8_t> encode_run_state(const std::string& signature, const RunState& s,
                                      const Problem& p);
// Writes encode_run_state() to `path` atomically (PATH.tmp, then rename); InputError at `path`
// when it cannot.
void write_run_state(const std::string& path, const std::string& signature, const RunState& s,
                     const Problem& p);

// Reads back a checkpoint of the run `signature` for `method`, replaying its states into `p`
// (a fresh problem of the same run) and restoring its lookups, so both counts are those of an
// uninterrupted run. Checks: the
// signature, every state belongs to `p`, the phase is one of `method`, the design count is not
// negative, the random-number state parses, the best design is a design of `p` whose states
// were all evaluated and whose cost is the one recorded (re-derived, not trusted), and so is
// every GA individual. Anything else is an InputError at `file` (the policy and an optimiser
// state are checked where they are loaded, at "<checkpoint>").
RunState decode_run_state(const std::vector<uint8_t>& bytes, const std::string& file,
                          const std::string& signature, const std::string& method, Problem& p);
// io::read_file (bounded; a folder is refused), then decode_run_state.
RunState read_run_state(const std::string& path, const std::string& signature,
                        const std::string& method, Problem& p);

}  // namespace sparsemap::dse::hwalloc
