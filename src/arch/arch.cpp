// Accelerator description: comparison, validation and the area model.
#include "sparsemap/arch/arch.h"

#include <cmath>
#include <numeric>

#include "sparsemap/error.h"

namespace sparsemap::arch {

bool EnergyTable::operator==(const EnergyTable& o) const {
  return mac_pj == o.mac_pj && l1_read_pj == o.l1_read_pj && l1_write_pj == o.l1_write_pj &&
         l2_read_pj == o.l2_read_pj && l2_write_pj == o.l2_write_pj && noc_pj == o.noc_pj &&
         offchip_pj == o.offchip_pj;
}

bool AreaModel::operator==(const AreaModel& o) const {
  return pe_um2 == o.pe_um2 && sram_um2_per_bit == o.sram_um2_per_bit;
}

bool Arch::operator==(const Arch& o) const {
  return name == o.name && source == o.source && num_pes == o.num_pes &&
         array_shape == o.array_shape && l1_bytes == o.l1_bytes && l2_bytes == o.l2_bytes &&
         noc_words_per_cycle == o.noc_words_per_cycle &&
         offchip_words_per_cycle == o.offchip_words_per_cycle && word_bytes == o.word_bytes &&
         clock_mhz == o.clock_mhz && energy == o.energy && area == o.area;
}

// area_mm2 = (num_pes * pe_um2 + 8 * (num_pes * l1_bytes + l2_bytes) * sram_um2_per_bit) / 1e6
double area_mm2(const Arch& a) {
  const double sram_bits = 8.0 * (static_cast<double>(a.num_pes) * a.l1_bytes + a.l2_bytes);
  return (a.num_pes * a.area.pe_um2 + sram_bits * a.area.sram_um2_per_bit) / 1e6;
}

void validate(const Arch& a, const std::string& where_label) {
  auto fail = [&](const std::string& what) { throw InputError({where_label, 0, 0}, what); };
  auto positive = [&](double v, const char* field) {
    if (!(v > 0) || !std::isfinite(v)) fail(std::string("expected ") + field + " > 0");
  };
  positive(static_cast<double>(a.num_pes), "num_pes");
  positive(static_cast<double>(a.l1_bytes), "l1_bytes");
  positive(static_cast<double>(a.l2_bytes), "l2_bytes");
  positive(a.noc_words_per_cycle, "noc_words_per_cycle");
  positive(a.offchip_words_per_cycle, "offchip_words_per_cycle");
  positive(static_cast<double>(a.word_bytes), "word_bytes");
  positive(a.clock_mhz, "clock_mhz");
  positive(a.area.pe_um2, "area.pe_um2");
  positive(a.area.sram_um2_per_bit, "area.sram_um2_per_bit");
  const double energies[] = {a.energy.mac_pj,     a.energy.l1_read_pj,  a.energy.l1_write_pj,
                             a.energy.l2_read_pj, a.energy.l2_write_pj, a.energy.noc_pj,
                             a.energy.offchip_pj};
  for (double e : energies)
    if (!(e >= 0) || !std::isfinite(e)) fail("expected every energy.*_pj >= 0");
  if (!a.array_shape.empty()) {
    int64_t prod = 1;
    for (int64_t d : a.array_shape) {
      if (d <= 0) fail("expected array_shape entries > 0");
      if (prod > a.num_pes / d)  // the product passes num_pes (and could overflow int64)
        fail("array_shape multiplies to more than num_pes = " + std::to_string(a.num_pes));
      prod *= d;
    }
    if (prod != a.num_pes)
      fail("array_shape multiplies to " + std::to_string(prod) +
           ", expected num_pes = " + std::to_string(a.num_pes));
  }
}

}  // namespace sparsemap::arch
