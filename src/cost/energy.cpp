// Energy, area and power of an evaluated layer, and the sparsity scaling of its access counts.
#include <algorithm>

#include "model_internal.h"
#include "sparsemap/arch/area.h"

namespace sparsemap::cost::detail {

void finish_energy(const Problem& p, const arch::Arch& arch, const EvalOptions& options, Cost& c) {
  const SparsityOptions& sp = options.sparsity;
  const bool skip = sp.mode == SparseMode::Skip;
  const double eff = effectual_fraction(sp);
  // Sparse accounting (dense: every factor is 1):
  //   operand and partial-sum L1 reads/writes happen per MAC: x eff when skipping;
  //   fills, NoC transfers and L2 traffic move stored words: x words per element.
  const double per_mac = skip ? eff : 1.0;
  for (int t = 0; t < kNumTensors; ++t) {
    AccessCounts& a = c.access[t];
    const double w = p.words_per_elem[t];
    if (t == kOutput) {
      a.l1_reads *= per_mac;
      a.l1_writes *= per_mac;
    } else {
      a.l1_reads *= per_mac;
      a.l1_writes *= w;
    }
    a.l2_reads *= w;
    a.l2_writes *= w;
  }

  // E = MACs_eff e_mac + sum_t (L1r e_l1r + L1w e_l1w + L2r e_l2r + L2w e_l2w)
  //     + NoC words e_noc + off-chip words e_off            (pJ; reported in nJ)
  // NoC words: inputs and weights sent from L2, outputs returned to it. Off-chip words: the
  // compulsory traffic (inputs and weights filled into L2 once, the output drained once).
  const arch::WordEnergy& e = arch.energy;
  EnergyBreakdown& b = c.energy;
  b = EnergyBreakdown{};
  b.mac_nj = c.effectual_macs * e.mac_pj / 1000.0;
  double noc_words = 0;
  c.offchip_words = 0;
  for (int t = 0; t < kNumTensors; ++t) {
    const AccessCounts& a = c.access[t];
    b.l1_nj += (a.l1_reads * e.l1_read_pj + a.l1_writes * e.l1_write_pj) / 1000.0;
    b.l2_nj += (a.l2_reads * e.l2_read_pj + a.l2_writes * e.l2_write_pj) / 1000.0;
    noc_words += t == kOutput ? a.l2_writes : a.l2_reads;
    c.offchip_words += t == kOutput ? a.l2_reads : a.l2_writes;
  }
  b.noc_nj = noc_words * e.noc_pj / 1000.0;
  b.offchip_nj = c.offchip_words * e.offchip_pj / 1000.0;
  c.energy_nj = b.total();

  // Area of what the mapping needs: the one area rule (arch/area.h) with DiGamma's table
  // (the arch's constants) on the hierarchy the mapping uses, i.e. to_hierarchy of the arch
  // with num_pes = pes_used, l1_bytes and l2_bytes = the buffers it needs:
  //   area = (8 l2_bytes sram_um2_per_bit + pes_used 8 l1_bytes sram_um2_per_bit
  //           + pes_used pe_um2) / 1e6                                        (mm^2)
  // digamma_parts gives that table's parts without allocating.
  c.area_mm2 =
      arch::area_sum(arch::digamma_parts(c.pes_used, c.l1_bytes, c.l2_bytes, arch.area)) / 1e6;
  // Power: nJ per microsecond is mW; runtime_cycles / clock_mhz microseconds.
  c.power_mw = c.runtime_cycles > 0
                   ? c.energy_nj * arch.clock_mhz / static_cast<double>(c.runtime_cycles)
                   : 0.0;
}

}  // namespace sparsemap::cost::detail
