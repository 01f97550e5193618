// The checkpoint of map_network (internal): which distinct layers are done, and how to check
// that a checkpoint belongs to the run resuming it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/dse/timeloop/network.h"

namespace sparsemap::dse::timeloop {

// What a run's result depends on: its layers (names, bounds, genome lengths), the accelerator
// (every level's instances, capacity, block size and bandwidths; the compute), the energy
// table and the mapper's options. Threads, MPI ranks and checkpoint settings are not in it:
// results do not depend on them.
nlohmann::json network_fingerprint(const std::vector<NetworkLayer>& layers,
                                   const arch::Hierarchy& h, const arch::EnergyTable* ert,
                                   const NetworkOptions& o);

// One finished distinct layer as the checkpoint keeps it: what its search returned (the best
// genome; empty when the space was enumerated, which a resumed run enumerates again).
struct DoneLayer {
  std::string algo;
  search::Genome genome;
  int64_t evaluations = 0;
  double seconds = 0;
  nlohmann::json to_json() const;
};

// {"kind": "sparsemap-timeloop-map-checkpoint", "fingerprint": ..., "done": [...]}.
nlohmann::json network_checkpoint(const nlohmann::json& fingerprint,
                                  const std::vector<DoneLayer>& done);

// The finished layers of the checkpoint at `path`, checked against this run (`fingerprint`,
// the genome length of each distinct layer in `genes`): InputError naming the file when it is
// not such a checkpoint, belongs to another run, or holds a genome that does not fit.
std::vector<DoneLayer> read_network_checkpoint(const std::string& path,
                                               const nlohmann::json& fingerprint,
                                               const std::vector<size_t>& genes);

}  // namespace sparsemap::dse::timeloop
