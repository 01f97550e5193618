// Named accelerator presets. Each states where its numbers come from.
#include "sparsemap/arch/presets.h"

#include <algorithm>
#include <cctype>

#include "sparsemap/arch/maestro_limits.h"
#include "sparsemap/error.h"

namespace sparsemap::arch {
namespace {

// MAESTRO's activity energy (cost-model/include/base/BASE_constants.hpp and its CSV writer):
// per access, an L1 access costs 1.68 and an L2 access 18.61 MAC energies, and one MAC energy
// is 0.00023 nJ (its printed energies are counts x ratios x 0.00023). MAESTRO counts no NoC or
// off-chip energy.
WordEnergy maestro_energy() {
  constexpr double kMacPj = 0.23;
  WordEnergy e;
  e.mac_pj = kMacPj;
  e.l1_read_pj = 1.68 * kMacPj;
  e.l1_write_pj = 1.68 * kMacPj;
  e.l2_read_pj = 18.61 * kMacPj;
  e.l2_write_pj = 18.61 * kMacPj;
  e.noc_pj = 0.0;
  e.offchip_pj = 0.0;
  return e;
}

// FLAT's platforms as the FuseMax artifact re-models them with Accelergy (45 nm):
// fp16 MAC 17.16 pJ; global buffer about 1.9 pJ per 16-bit value (485 pJ read / 451 pJ write
// per 4096-bit access); DRAM 249.6 pJ per 64-bit access = 62.4 pJ per 2-byte word;
// register file 0.23-0.39 pJ per access (L1 here).
WordEnergy flat_energy() {
  WordEnergy e;
  e.mac_pj = 17.16;
  e.l1_read_pj = 0.39;
  e.l1_write_pj = 0.39;
  e.l2_read_pj = 485.0 / 256.0;
  e.l2_write_pj = 451.0 / 256.0;
  e.noc_pj = 0.0;
  e.offchip_pj = 62.4;
  return e;
}

Arch make(std::string name, std::string source, int64_t pes, std::vector<int64_t> shape, int64_t l1,
          int64_t l2, double noc, double offchip, int64_t word, double mhz, WordEnergy energy) {
  Arch a;
  a.name = std::move(name);
  a.source = std::move(source);
  a.num_pes = pes;
  a.array_shape = std::move(shape);
  a.l1_bytes = l1;
  a.l2_bytes = l2;
  a.noc_words_per_cycle = noc;
  a.offchip_words_per_cycle = offchip;
  a.word_bytes = word;
  a.clock_mhz = mhz;
  a.energy = energy;
  return a;
}

// Bytes per second -> words per cycle at `mhz` with `word` bytes per word.
double words_per_cycle(double bytes_per_s, double mhz, int64_t word) {
  return bytes_per_s / (mhz * 1e6) / static_cast<double>(word);
}

std::vector<Arch> build_presets() {
  std::vector<Arch> v;
  v.push_back(make("maestro-example",
                   "MAESTRO (Kwon et al., MICRO 2019) example accelerator_1.m: 256 PEs, "
                   "l1_size_cstr 100, l2_size_cstr 3000, noc_bw_cstr 1000, offchip_bw_cstr 50",
                   256, {}, 100, 3000, 1000, 50, 1, 1000, maestro_energy()));
  v.push_back(make("gamma-edge",
                   "GAMMA (Kao and Krishna, ICCAD 2020) defaults: 168 PEs, L1 512 B, "
                   "L2 108,000 B, NoC and off-chip bandwidth 81,920,000 (unconstrained)",
                   168, {}, 512, 108000, kMaestroUnboundedWordsPerCycle,
                   kMaestroUnboundedWordsPerCycle, 1, 1000, maestro_energy()));
  const double mhz = 940;  // FLAT's clock, from FuseMax's global_cycle_seconds (TPUv3)
  v.push_back(make("flat-edge",
                   "FLAT (Kao et al., ASPLOS 2023) edge platform as re-modelled by FuseMax "
                   "(MICRO 2024): 32x32 PEs, 512 KiB on chip, 50 GiB/s, 940 MHz, 2-byte words; "
                   "L1 64 B per PE and NoC 32 words/cycle are ours (not given)",
                   32 * 32, {32, 32}, 64, 512 * 1024, 32 * 2,
                   words_per_cycle(50.0 * (1ull << 30), mhz, 2), 2, mhz, flat_energy()));
  v.push_back(make("flat-cloud",
                   "FLAT (Kao et al., ASPLOS 2023) cloud platform as re-modelled by FuseMax "
                   "(MICRO 2024): 256x256 PEs, 32 MiB on chip, 400 GiB/s, 940 MHz, 2-byte words; "
                   "L1 64 B per PE and NoC 512 words/cycle are ours (not given)",
                   256 * 256, {256, 256}, 64, 32 * 1024 * 1024, 256 * 2,
                   words_per_cycle(400.0 * (1ull << 30), mhz, 2), 2, mhz, flat_energy()));
  return v;
}

std::string normalise(std::string_view name) {
  std::string s(name);
  for (char& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c == '_') c = '-';
  }
  return s;
}

}  // namespace

const std::vector<Arch>& presets() {
  static const std::vector<Arch> all = build_presets();
  return all;
}

bool is_preset(std::string_view name) {
  const std::string n = normalise(name);
  return std::any_of(presets().begin(), presets().end(),
                     [&](const Arch& a) { return a.name == n; });
}

Arch preset(std::string_view name) {
  const std::string n = normalise(name);
  for (const auto& a : presets())
    if (a.name == n) return a;
  std::string names;
  for (const auto& a : presets()) names += (names.empty() ? "" : ", ") + a.name;
  throw InputError({"<flag --hw>", 0, 0}, "unknown accelerator preset '" + std::string(name) +
                                              "'; expected one of: " + names +
                                              ", or a .m/.yaml file");
}

}  // namespace sparsemap::arch
