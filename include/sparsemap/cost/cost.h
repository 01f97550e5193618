// The result of evaluating one layer under one mapping on one accelerator: Cost.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sparsemap::cost {

// Feasibility of an evaluation. Infeasible and invalid are values, never exceptions:
//   Ok          the numbers are meaningful;
//   Infeasible  the mapping is well formed but does not fit the accelerator (more PEs than it
//               has; with EvalOptions::enforce_buffers, more L1/L2 than it has);
//   Invalid     the mapping cannot be evaluated for this layer (no SpatialMap in a cluster
//               level, a tile that skips elements, a layer kind without MACs, ...).
enum class Status : uint8_t { Ok, Infeasible, Invalid };
std::string_view status_name(Status s);  // "ok", "infeasible", "invalid"

// The three operands, in MAESTRO's order and vocabulary (input activations, filter, output).
enum Tensor : int { kInput = 0, kWeight = 1, kOutput = 2, kNumTensors = 3 };
std::string_view tensor_name(int t);  // "input", "weight", "output"

// Accesses of one tensor, in words, following MAESTRO's accounting:
//   l2_reads   words read from L2 and sent over the NoC (inputs, weights); for the output, the
//              words drained from L2 to off-chip memory (its size);
//   l2_writes  for inputs and weights, the words filled from off-chip (their size); for the
//              output, the (partial) results written back from the PEs;
//   l1_writes  words written into the PEs' L1 (inputs, weights: what arrives over the NoC;
//              output: partial sums produced);
//   l1_reads   operand reads by the MACs (one per MAC per operand) and partial-sum reads.
struct AccessCounts {
  double l1_reads = 0;
  double l1_writes = 0;
  double l2_reads = 0;
  double l2_writes = 0;
  bool operator==(const AccessCounts& o) const {
    return l1_reads == o.l1_reads && l1_writes == o.l1_writes && l2_reads == o.l2_reads &&
           l2_writes == o.l2_writes;
  }
};

// Energy in nanojoules, by component. total() == Cost::energy_nj.
struct EnergyBreakdown {
  double mac_nj = 0;      // effectual MACs x arch.energy.mac_pj
  double l1_nj = 0;       // L1 reads and writes of all tensors
  double l2_nj = 0;       // L2 reads and writes of all tensors
  double noc_nj = 0;      // words over the NoC x arch.energy.noc_pj
  double offchip_nj = 0;  // compulsory off-chip words x arch.energy.offchip_pj
  double total() const { return mac_nj + l1_nj + l2_nj + noc_nj + offchip_nj; }
  bool operator==(const EnergyBreakdown& o) const {
    return mac_nj == o.mac_nj && l1_nj == o.l1_nj && l2_nj == o.l2_nj && noc_nj == o.noc_nj &&
           offchip_nj == o.offchip_nj;
  }
};

// Per-step delays of the outermost cluster level, in cycles (MAESTRO's "Ingress/Egress/Compute
// Delay" columns): the NoC time to bring a step's operands in, to send its results out, and
// the compute time of the step (the slowest sub-cluster).
struct DelayStats {
  double min = 0;
  double max = 0;
  double avg = 0;  // weighted by how often each step occurs
  bool operator==(const DelayStats& o) const {
    return min == o.min && max == o.max && avg == o.avg;
  }
};

// Everything evaluate() reports about one layer. Plain value; all quantities carry their unit.
struct Cost {
  Status status = Status::Ok;
  std::string reason;  // why not Ok; empty when Ok unless a note applies (e.g. a dropped directive)

  int64_t runtime_cycles = 0;   // end-to-end, with NoC, off-chip and pipeline fill
  double compute_cycles = 0;    // sum of the per-step compute delays (no communication)
  int64_t macs = 0;             // the layer's multiply-accumulates (always Layer::macs())
  double mapped_macs = 0;       // MACs the mapping's tiles perform (> macs when tiles overlap)
  double effectual_macs = 0;    // mapped MACs whose operands are all nonzero (sparsity)
  int64_t pes_used = 0;         // PEs that receive work (the array bound uses this)
  double avg_pes_utilized = 0;  // average active PEs over the steps (MAESTRO's column)

  double energy_nj = 0;
  EnergyBreakdown energy;
  std::array<AccessCounts, kNumTensors> access{};  // per tensor; see AccessCounts

  int64_t l1_bytes = 0;  // L1 needed per PE (double-buffered), all tensors
  int64_t l2_bytes = 0;  // L2 needed (double-buffered), all tensors
  std::array<int64_t, kNumTensors> l1_bytes_by_tensor{};
  std::array<int64_t, kNumTensors> l2_bytes_by_tensor{};

  double noc_words_per_cycle = 0;      // peak NoC bandwidth the mapping needs
  double noc_avg_words_per_cycle = 0;  // average over steps
  double offchip_words_per_cycle = 0;  // off-chip bandwidth the mapping needs
  double offchip_words = 0;            // compulsory off-chip traffic: inputs, weights, outputs

  DelayStats ingress, egress, compute;

  double area_mm2 = 0;  // PEs used + the L1/L2 this mapping needs: the one area rule
                        // (arch/area.h) with DiGamma's table from arch.area
  double power_mw = 0;  // energy_nj / runtime at arch.clock_mhz

  bool ok() const { return status == Status::Ok; }
};

}  // namespace sparsemap::cost
