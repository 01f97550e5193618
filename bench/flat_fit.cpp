// Fits the attention model's two constants (cost::AttentionHw::stream_factor and
// logit_spill_weight) on a declared tuning set of flat_validation.csv and reports the model's
// errors on the tuning set and on the held-out rows (docs/flat.md, "Validation").
//
//   build/flat_fit [tests/data/flat/flat_validation.csv]
//
// Tuning set: the rows at N = 512, 2K, 8K, 32K, 128K, 512K (odd log2 N: 48 rows, both
// platforms, all four models). Held out: N = 1K, 4K, 16K, 64K, 256K, 1M (48 rows).
// Every row is evaluated with the configuration it records and FlatOptions{softmax = false}
// (FLAT's own cost rules), as src/cost/attention_test.cpp does.
//
// 1. stream_factor k: a spilled row (proportion_spilled > 0) records
//    proportion_buffered = S / footprint, and footprint = F0 + k w Pd (E + F), with F0 the
//    model's footprint at k = 0; so it implies k = (S / proportion_buffered - F0) / (w Pd (E + F)).
//    k = the median of the implied values over the tuning set's spilled rows.
// 2. The footprint criterion: a row's footprint is *reproduced* when the model's spilled
//    fraction (at the fitted k) is within kFootprintTolerance of the recorded
//    proportion_spilled. The traffic of a row whose footprint is not reproduced tests the
//    footprint rule, not the traffic rules (the spill term is proportional to the spilled
//    fraction), so those rows are reported apart, with their errors.
// 3. logit_spill_weight a: traffic is linear in a, T(a) = T(0) + a (T(1) - T(0)); a spilled
//    row with a logit tensor on chip implies a = (traffic - T(0)) / (T(1) - T(0)).
//    a = the median of the implied values over the tuning set's spilled rows with logits on
//    chip whose footprint is reproduced.
// Not a Google Benchmark program: nothing is timed. Built with the benchmarks
// (SPARSEMAP_BUILD_BENCH), never run by ctest.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/attention.h"
#include "support/flat_rows.h"

namespace {

using namespace sparsemap;
using testing::flat::config_of;
using testing::flat::Row;
using testing::flat::shape_of;

constexpr double kFootprintTolerance = 1e-4;  // absolute, on the spilled fraction (0..1)

// The tuning half: odd log2 N (512, 2K, 8K, 32K, 128K, 512K).
bool in_tuning_set(const Row& r) {
  const int64_t n = std::stoll(r.at("P"));
  int lg = 0;
  while ((int64_t{1} << (lg + 1)) <= n) ++lg;
  return lg % 2 == 1;
}

std::string id_of(const Row& r) {
  return r.at("platform") + " " + r.at("models") + " " + r.at("seq_len");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

cost::AttentionCost eval(const Row& r, double k, double a) {
  cost::AttentionHw hw = testing::flat::hw_of(r.at("platform"));
  hw.stream_factor = k;
  hw.logit_spill_weight = a;
  return cost::evaluate_flat(shape_of(r), hw, config_of(r), cost::FlatOptions{false});
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "tests/data/flat/flat_validation.csv";
  const std::vector<Row> rows = testing::flat::read_rows(path);
  if (rows.size() != 96) {
    std::fprintf(stderr, "%s: expected flat_validation.csv's 96 rows, got %zu\n", path.c_str(),
                 rows.size());
    return 2;
  }
  // 1. stream_factor.
  std::vector<double> ks;
  std::printf("stream_factor implied by the tuning set's spilled rows:\n");
  for (const Row& r : rows) {
    const double ps = std::stod(r.at("proportion_spilled"));
    if (!in_tuning_set(r) || !(ps > 0)) continue;
    const cost::AttentionHw hw = testing::flat::hw_of(r.at("platform"));
    const cost::AttentionShape s = shape_of(r);
    const double f0 = eval(r, 0, 0.5).footprint_bytes;
    const double need =
        static_cast<double>(hw.buffer_bytes) / std::stod(r.at("proportion_buffered"));
    const double k = (need - f0) / (static_cast<double>(hw.word_bytes) *
                                    static_cast<double>(hw.pd()) * static_cast<double>(s.e + s.f));
    ks.push_back(k);
    std::printf("  %-18s %.4f\n", id_of(r).c_str(), k);
  }
  const double k = median(ks);
  std::printf("stream_factor = median of %zu = %.4f\n\n", ks.size(), k);

  // 2. Footprint criterion; 3. logit_spill_weight.
  std::vector<double> as;
  std::printf("logit_spill_weight implied by the tuning set's spilled rows with logits on chip:\n");
  for (const Row& r : rows) {
    const double ps = std::stod(r.at("proportion_spilled"));
    const cost::FlatConfig c = config_of(r);
    if (!in_tuning_set(r) || !(ps > 0) || !(c.on_chip[cost::kL] || c.on_chip[cost::kA])) continue;
    const cost::AttentionCost t0 = eval(r, k, 0), t1 = eval(r, k, 1);
    const bool reproduced = std::fabs(t0.spilled_fraction - ps) <= kFootprintTolerance;
    const double a =
        (std::stod(r.at("mem_traffic")) - t0.dram_bytes) / (t1.dram_bytes - t0.dram_bytes);
    std::printf("  %-18s %.4f%s\n", id_of(r).c_str(), a,
                reproduced ? "" : "  (footprint not reproduced: not used)");
    if (reproduced) as.push_back(a);
  }
  const double a = median(as);
  std::printf("logit_spill_weight = median of %zu = %.4f\n\n", as.size(), a);

  // Errors at the fitted constants, per half.
  const cost::AttentionHw shipped = testing::flat::hw_of(rows[0].at("platform"));
  std::printf("shipped constants: stream_factor %.4f, logit_spill_weight %.4f\n",
              shipped.stream_factor, shipped.logit_spill_weight);
  for (int half = 0; half < 2; ++half) {
    const bool tuning = half == 0;
    int n = 0, n_fp = 0, n_ps = 0;
    double worst_t = 0, worst_l = 0, worst_ps = 0;
    std::string worst_t_id;
    std::vector<std::string> not_reproduced;
    for (const Row& r : rows) {
      if (in_tuning_set(r) != tuning) continue;
      ++n;
      const cost::AttentionCost c = eval(r, k, a);
      const double ps = std::stod(r.at("proportion_spilled"));
      const double el = std::fabs(c.latency_s / std::stod(r.at("actual_latency")) - 1);
      worst_l = std::max(worst_l, el);
      const double et = c.dram_bytes / std::stod(r.at("mem_traffic")) - 1;
      if (std::fabs(c.spilled_fraction - ps) > kFootprintTolerance) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s %+.1f%%", id_of(r).c_str(), 100 * et);
        not_reproduced.push_back(buf);
        continue;
      }
      ++n_fp;
      if (ps > 0) ++n_ps;
      worst_ps = std::max(worst_ps, std::fabs(c.spilled_fraction - ps));
      if (std::fabs(et) > worst_t) worst_t = std::fabs(et), worst_t_id = id_of(r);
    }
    std::printf(
        "%s (%d rows): latency worst %.4f%%; footprint reproduced on %d (%d of them spilled), "
        "spilled fraction worst %.2e, traffic worst %.4f%% (%s)\n",
        tuning ? "tuning set" : "held out", n, 100 * worst_l, n_fp, n_ps, worst_ps, 100 * worst_t,
        worst_t_id.c_str());
    std::printf("  footprint not reproduced (%zu), traffic error:\n", not_reproduced.size());
    for (const auto& s : not_reproduced) std::printf("    %s\n", s.c_str());
  }
  return 0;
}
