// Shared by the Timeloop/Accelergy fuzz targets (fuzz/timeloop_*_fuzz.cpp): a small companion
// design (exercise 03 of the Timeloop tutorial: a 3-level conv1d) that supplies the parts a
// target does not fuzz, and the checks every target runs once its part parsed: the loop-nest
// model never throws and an evaluation that succeeds conserves the problem's operations.
#pragma once

#include <string>

#include "fuzz_main.h"
#include "sparsemap/cost/loopnest.h"
#include "sparsemap/io/timeloop.h"

namespace sparsemap::fuzz {

inline const char* kTimeloopArch = R"(architecture:
  version: 0.4
  nodes:
  - !Container
    name: System
    attributes: {technology: "40nm", global_cycle_seconds: 1e-9}
  - !Component
    name: MainMemory
    class: DRAM
    attributes: {width: 256, datawidth: 8}
  - !Component
    name: GlobalBuffer
    class: SRAM
    attributes: {depth: 32768, width: 64, datawidth: 8}
  - !Container
    name: PE
    spatial: {meshX: 4}
  - !Component
    name: RegisterFile
    class: regfile
    attributes: {depth: 64, width: 8, datawidth: 8}
  - !Component
    name: MACC
    class: intmac
    attributes: {width: 8}
)";

inline const char* kTimeloopProblem = R"(problem:
  version: 0.4
  shape:
    name: Conv1D_OC
    dimensions: [ K, R, P ]
    data_spaces:
    - name: Weights
      projection: [ [ [K] ], [ [R] ] ]
    - name: Inputs
      projection: [ [ [R], [P] ] ]
    - name: Outputs
      projection: [ [ [K] ], [ [P] ] ]
      read_write: True
  instance: {K: 32, R: 3, P: 16}
)";

inline const char* kTimeloopMapping = R"(mapping:
  - target: MainMemory
    type: temporal
    factors: R=1 P=1 K=1
    permutation: PRK
  - target: GlobalBuffer
    type: temporal
    factors: R=1 P=16 K=4
    permutation: PRK
  - target: inter_PE_spatial
    type: spatial
    factors: K=4
    permutation: K
    split: 1
  - target: RegisterFile
    type: temporal
    factors: R=3 P=1 K=2
    permutation: RPK
  - target: RegisterFile
    type: datatype
    keep: [Outputs]
    bypass: [Weights, Inputs]
)";

inline const char* kTimeloopErt = R"(ERT:
  version: 0.4
  tables:
  - name: System_top_level.MainMemory[1..1]
    actions:
    - {name: read, energy: 512}
    - {name: write, energy: 512}
    - {name: update, energy: 512}
  - name: System_top_level.GlobalBuffer[1..1]
    actions:
    - {name: read, arguments: {data_delta: 0, address_delta: 1}, energy: 9.8}
    - {name: write, energy: 10.1}
    - {name: update, energy: 10.1}
  - name: System_top_level.RegisterFile[1..4]
    actions:
    - {name: read, energy: 0.42}
    - {name: write, energy: 0.42}
    - {name: update, energy: 0.42}
    - {name: leak, energy: 0.001}
  - name: System_top_level.MACC[1..4]
    actions:
    - {name: compute, energy: 0.56}
)";

inline const char* kTimeloopArt = R"(ART:
  version: 0.4
  tables:
  - name: System_top_level.MainMemory[1..1]
    area: 0
  - name: System_top_level.GlobalBuffer[1..1]
    area: 217363.2
  - name: System_top_level.RegisterFile[1..4]
    area: 1512.5
  - name: System_top_level.MACC[1..4]
    area: 332.25
)";

// One part of the companion design, parsed (the texts above are valid: a failure is a finding).
inline io::TimeloopInputs companion(const char* text) {
  io::TimeloopInputs in;
  if (!accepts([&] { in = io::parse_timeloop_yaml(text, "companion.yaml"); }))
    finding("the companion design does not parse");
  return in;
}

// evaluate_loopnest never throws; an evaluation that succeeds reports the problem's operations,
// at least one cycle per operation per utilized compute unit, and a utilisation in [0, 1].
inline void check_evaluation(const workload::Einsum& p, const arch::Hierarchy& h,
                             const mapping::LoopNest& m, const arch::EnergyTable* ert) {
  cost::LoopNestResult r;
  try {
    r = cost::evaluate_loopnest(p, h, m, ert);
  } catch (const std::exception& e) {
    finding(std::string("evaluate_loopnest threw: ") + e.what());
  }
  if (!r.ok()) return;
  if (r.macs != p.operations()) finding("evaluate_loopnest lost operations");
  if (r.cycles < 1 || r.utilization < 0 || r.utilization > 1.0000001)
    finding("evaluate_loopnest: cycles " + std::to_string(r.cycles) + ", utilization " +
            std::to_string(r.utilization));
}

// A mapping that puts every loop of `p` at the outermost storage level of `h` (valid for any
// problem whose bounds are known), so that a fuzzed problem or architecture reaches the model.
inline mapping::LoopNest everything_outermost(const workload::Einsum& p, const arch::Hierarchy& h) {
  mapping::LoopNest m;
  if (h.storage.empty()) return m;
  mapping::LoopNestDirective d;
  d.target = h.storage.front().name;
  for (const auto& [dim, bound] : p.bounds) d.factors.push_back({dim, bound});
  m.directives.push_back(d);
  return m;
}

}  // namespace sparsemap::fuzz
