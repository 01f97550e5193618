// Accelerator description: comparison, validation and the area model.
#include "sparsemap/arch/arch.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "sparsemap/arch/area.h"
#include "sparsemap/error.h"

namespace sparsemap::arch {

bool WordEnergy::operator==(const WordEnergy& o) const {
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

// The one area rule (arch/area.h) with DiGamma's table on to_hierarchy(a): area_mm2 =
// (8 l2_bytes sram_um2_per_bit + num_pes 8 l1_bytes sram_um2_per_bit + num_pes pe_um2) / 1e6.
// digamma_parts are that table's parts without building the hierarchy (equal bit for bit).
double area_mm2(const Arch& a) {
  return area_sum(digamma_parts(a.num_pes, a.l1_bytes, a.l2_bytes, a.area)) / 1e6;
}

namespace {

std::string number_text(double v) {
  std::ostringstream os;
  os << std::setprecision(10) << v;
  return os.str();
}

}  // namespace

std::optional<FieldError> check_fields(const Arch& a) {
  auto integer = [](int64_t v, const char* field, int64_t lo,
                    int64_t hi) -> std::optional<FieldError> {
    if (v >= lo && v <= hi) return std::nullopt;
    return FieldError{field, "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
                      std::to_string(v)};
  };
  auto real = [](double v, const char* field, double lo, double hi,
                 bool open_lo) -> std::optional<FieldError> {
    if (std::isfinite(v) && (open_lo ? v > lo : v >= lo) && v <= hi) return std::nullopt;
    return FieldError{
        field,
        std::string("in ") + (open_lo ? "(" : "[") + number_text(lo) + ", " + number_text(hi) + "]",
        number_text(v)};
  };
  const std::optional<FieldError> checks[] = {
      integer(a.num_pes, "num_pes", 1, kMaxPes),
      integer(a.l1_bytes, "l1_bytes", 1, kMaxL1Bytes),
      integer(a.l2_bytes, "l2_bytes", 1, kMaxL2Bytes),
      real(a.noc_words_per_cycle, "noc_words_per_cycle", kMinWordsPerCycle, kMaxWordsPerCycle,
           false),
      real(a.offchip_words_per_cycle, "offchip_words_per_cycle", kMinWordsPerCycle,
           kMaxWordsPerCycle, false),
      integer(a.word_bytes, "word_bytes", 1, kMaxWordBytes),
      real(a.clock_mhz, "clock_mhz", kMinClockMhz, kMaxClockMhz, false),
      real(a.energy.mac_pj, "energy.mac_pj", 0, kMaxEnergyPj, false),
      real(a.energy.l1_read_pj, "energy.l1_read_pj", 0, kMaxEnergyPj, false),
      real(a.energy.l1_write_pj, "energy.l1_write_pj", 0, kMaxEnergyPj, false),
      real(a.energy.l2_read_pj, "energy.l2_read_pj", 0, kMaxEnergyPj, false),
      real(a.energy.l2_write_pj, "energy.l2_write_pj", 0, kMaxEnergyPj, false),
      real(a.energy.noc_pj, "energy.noc_pj", 0, kMaxEnergyPj, false),
      real(a.energy.offchip_pj, "energy.offchip_pj", 0, kMaxEnergyPj, false),
      real(a.area.pe_um2, "area.pe_um2", 0, kMaxPeUm2, true),
      real(a.area.sram_um2_per_bit, "area.sram_um2_per_bit", 0, kMaxSramUm2PerBit, true)};
  for (const auto& c : checks)
    if (c) return c;
  if (!a.array_shape.empty()) {
    int64_t prod = 1;  // stays <= kMaxPes * kMaxPes: no overflow
    std::string shape;
    for (int64_t d : a.array_shape) {
      shape += (shape.empty() ? "[" : ", ") + std::to_string(d);
      if (d < 1 || d > kMaxPes)
        return FieldError{"array_shape", "entries in [1, " + std::to_string(kMaxPes) + "]",
                          std::to_string(d)};
      prod = std::min(prod * d, kMaxPes + 1);
    }
    if (prod != a.num_pes)
      return FieldError{
          "array_shape", "to multiply to num_pes = " + std::to_string(a.num_pes),
          shape + "] (product " +
              (prod > kMaxPes ? "over " + std::to_string(kMaxPes) : std::to_string(prod)) + ")"};
  }
  return std::nullopt;
}

void validate(const Arch& a, const std::string& where_label) {
  if (const auto e = check_fields(a)) throw InputError({where_label, 0, 0}, e->message());
}

}  // namespace sparsemap::arch
