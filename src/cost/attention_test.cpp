// The attention cost model against FLAT's and FuseMax's reference rows (tests/data/flat/, see
// its PROVENANCE.md) and hand-worked cases.
#include "sparsemap/cost/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sparsemap/arch/presets.h"
#include "sparsemap/error.h"
#include "support/flat_rows.h"

namespace sparsemap::cost {
namespace {

using testing::flat::config_of;
using testing::flat::hw_of;
using testing::flat::Row;
using testing::flat::shape_of;

std::vector<Row> read_csv(const std::string& name) {
  const std::string path = std::string(SPARSEMAP_SOURCE_DIR) + "/tests/data/flat/" + name;
  std::vector<Row> rows = testing::flat::read_rows(path);
  EXPECT_FALSE(rows.empty()) << path;
  return rows;
}

int64_t seq_of(const std::string& s) {
  if (s.back() == 'K') return std::stoll(s.substr(0, s.size() - 1)) * 1024;
  if (s.back() == 'M') return std::stoll(s.substr(0, s.size() - 1)) * 1024 * 1024;
  return std::stoll(s);
}

double rel(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

TEST(AttentionHw, FromFlatPresets) {
  const AttentionHw cloud = hw_of("cloud");
  EXPECT_EQ(cloud.pe_rows, 256);
  EXPECT_EQ(cloud.pe_cols, 256);
  EXPECT_EQ(cloud.buffer_bytes, 32 * 1024 * 1024);
  EXPECT_NEAR(cloud.dram_bytes_per_s, 400.0 * (1ull << 30), 1e-3);
  EXPECT_DOUBLE_EQ(cloud.clock_hz, 940e6);
  EXPECT_EQ(cloud.softmax_lanes, 256);
  EXPECT_DOUBLE_EQ(cloud.dram_pj_per_byte, 31.2);
  const AttentionHw edge = hw_of("edge");
  EXPECT_EQ(edge.pd(), 32);
  EXPECT_EQ(edge.buffer_bytes, 512 * 1024);
  EXPECT_NEAR(edge.dram_bytes_per_s, 50.0 * (1ull << 30), 1e-4);
}

// ideal_latency = B H N^2 (E + F) / (Pd^2 f) on all 96 rows.
TEST(AttentionReference, IdealLatencyAll96Rows) {
  const auto rows = read_csv("flat_validation.csv");
  ASSERT_EQ(rows.size(), 96u);
  for (const auto& r : rows) {
    const AttentionCost c =
        evaluate_flat(shape_of(r), hw_of(r.at("platform")), config_of(r), FlatOptions{false});
    EXPECT_LT(rel(c.ideal_s, std::stod(r.at("ideal_latency"))), 1e-12)
        << r.at("platform") << " " << r.at("models") << " " << r.at("seq_len");
  }
}

// actual_latency = max(t_gemm_eff, mem_traffic / BW) with the recorded traffic, all 96 rows.
TEST(AttentionReference, ActualLatencyRuleAll96Rows) {
  double worst = 0;
  for (const auto& r : read_csv("flat_validation.csv")) {
    const AttentionHw hw = hw_of(r.at("platform"));
    const double t = std::max(flat_gemm_seconds(shape_of(r), hw),
                              std::stod(r.at("mem_traffic")) / hw.dram_bytes_per_s);
    worst = std::max(worst, rel(t, std::stod(r.at("actual_latency"))));
  }
  EXPECT_LT(worst, 0.0055);  // 0.53% measured (the recorded latency carries its own rounding)
}

// FLAT's configured DRAM traffic (QK and AV Einsums, softmax not counted) and actual latency,
// with the configuration each row records, split by the constants' tuning set.
//
// The model's two fitted constants (AttentionHw::stream_factor and logit_spill_weight) were
// fitted by bench/flat_fit.cpp on the tuning half of flat_validation: the 48 rows at N = 512,
// 2K, 8K, 32K, 128K and 512K (odd log2 N; both platforms, all models). The 48 rows at 1K, 4K,
// 16K, 64K, 256K and 1M are held out. Figures on the tuning half are in-sample.
bool in_tuning_set(const Row& r) {
  const int64_t n = seq_of(r.at("seq_len"));
  int lg = 0;
  while ((int64_t{1} << (lg + 1)) <= n) ++lg;
  return lg % 2 == 1;
}

// The footprint criterion (bench/flat_fit.cpp): a row's footprint is reproduced when the
// model's spilled fraction is within 1e-4 of the recorded proportion_spilled. The spill
// traffic is proportional to the spilled fraction, so where the footprint is not reproduced the
// traffic check would test the footprint rule, not the traffic rules: those rows (11 of 96:
// cloud XLM 4K and the 10 edge rows that spill) are checked apart, with their errors.
bool footprint_reproduced(const Row& r, const AttentionCost& c) {
  return std::fabs(c.spilled_fraction - std::stod(r.at("proportion_spilled"))) <= 1e-4;
}

struct HalfErrors {
  int rows = 0, reproduced = 0, spilled = 0;
  double worst_latency = 0, worst_traffic = 0, worst_spilled_fraction = 0;
  std::vector<std::pair<std::string, double>> not_reproduced;  // id, signed traffic error
};

HalfErrors check_half(bool tuning) {
  HalfErrors h;
  for (const auto& r : read_csv("flat_validation.csv")) {
    if (in_tuning_set(r) != tuning) continue;
    const AttentionCost c =
        evaluate_flat(shape_of(r), hw_of(r.at("platform")), config_of(r), FlatOptions{false});
    const std::string id = r.at("platform") + " " + r.at("models") + " " + r.at("seq_len");
    const double el = rel(c.latency_s, std::stod(r.at("actual_latency")));
    EXPECT_LT(el, 0.01) << id;  // latency within 1% on every row (compute-bound where it spills)
    h.worst_latency = std::max(h.worst_latency, el);
    ++h.rows;
    const double et = c.dram_bytes / std::stod(r.at("mem_traffic")) - 1;
    if (!footprint_reproduced(r, c)) {
      h.not_reproduced.emplace_back(id, et);
      std::printf("  footprint not reproduced: %s traffic %+.2f%%\n", id.c_str(), 100 * et);
      continue;
    }
    ++h.reproduced;
    if (std::stod(r.at("proportion_spilled")) > 0) ++h.spilled;
    h.worst_traffic = std::max(h.worst_traffic, std::fabs(et));
    h.worst_spilled_fraction =
        std::max(h.worst_spilled_fraction,
                 std::fabs(c.spilled_fraction - std::stod(r.at("proportion_spilled"))));
  }
  std::printf(
      "%s: %d rows, latency worst %.4f%%; footprint reproduced on %d (%d spilled): "
      "traffic worst %.4f%%, spilled fraction worst %.2e\n",
      tuning ? "tuning set (in-sample)" : "held out", h.rows, 100 * h.worst_latency, h.reproduced,
      h.spilled, 100 * h.worst_traffic, h.worst_spilled_fraction);
  return h;
}

// In-sample: the constants were fitted on these rows.
TEST(AttentionReference, TuningSetTrafficAndLatencyInSample) {
  const HalfErrors h = check_half(true);
  EXPECT_EQ(h.rows, 48);
  EXPECT_LT(h.worst_latency, 0.0053);  // 0.52%
  EXPECT_EQ(h.reproduced, 44);
  EXPECT_EQ(h.spilled, 7);
  EXPECT_LT(h.worst_traffic, 0.0091);  // 0.90%, cloud XLM 32K
  EXPECT_EQ(h.worst_spilled_fraction, 0.0);
}

// Out of sample: rows the constants never saw. The tolerances lock in what is achieved.
TEST(AttentionReference, HeldOutTrafficAndLatency) {
  const HalfErrors h = check_half(false);
  EXPECT_EQ(h.rows, 48);
  EXPECT_LT(h.worst_latency, 0.0014);  // 0.13%
  EXPECT_EQ(h.reproduced, 41);
  EXPECT_EQ(h.spilled, 11);
  EXPECT_LT(h.worst_traffic, 0.0122);  // 1.21%, cloud XLM 16K
  EXPECT_EQ(h.worst_spilled_fraction, 0.0);
}

// The rows whose footprint is not reproduced, from both halves (4 in the tuning set, 7 held
// out), with their traffic errors locked: cloud XLM 4K (-5.9%; head granularity with E = 128,
// the data's footprint is larger than the rules': unexplained) and the 10 edge rows that spill
// (-7.8% at 1K, -25.4% at 2K, -10.2% at 4K, XLM 2K -35.4%: the data charges the spilled
// fraction on more buffer accesses than the rules count, like Timeloop's per-tensor access
// counts, which the reference could not derive either). Latency matches on all of them (they
// are compute-bound).
TEST(AttentionReference, TrafficWhereFootprintIsNotReproduced) {
  std::vector<std::pair<std::string, double>> all;
  for (bool tuning : {true, false})
    for (const auto& x : check_half(tuning).not_reproduced) all.push_back(x);
  ASSERT_EQ(all.size(), 11u);
  double lo = 0, hi = -1;
  for (const auto& [id, e] : all) lo = std::min(lo, e), hi = std::max(hi, e);
  EXPECT_GT(lo, -0.355);  // -35.4%, edge XLM 2K
  EXPECT_LT(hi, -0.058);  // -5.9%, cloud XLM 4K: every one of them under-counts
}

// Hand-worked: cloud BERT at 512 (head granularity, Q/K/V/AV bypass, logits on chip,
// output-stationary both): per (b, h) Q and K are re-read per 256-key / 256-row block
// (N/Pd = 2 times each), V likewise, AV written once:
//   2 * 512*64 + 2 * 512*64 + 2 * 512*64 + 512*64 = 7 * 32768 elements = 7 Q-volumes.
TEST(AttentionFlat, HandWorkedCloudHead512) {
  AttentionShape s{64, 12, 512, 512, 64, 64, 768, 3072};
  FlatConfig c;
  c.granularity = Granularity::Head;
  c.on_chip[kL] = c.on_chip[kA] = true;
  const AttentionCost r = evaluate_flat(s, hw_of("cloud"), c, FlatOptions{false});
  EXPECT_DOUBLE_EQ(r.dram_bytes, 2.0 * 64 * 12 * 7 * 512 * 64);
  EXPECT_DOUBLE_EQ(r.footprint_bytes, 2.0 * 512 * 512 + 4.0 * 2 * 256 * 128);
  EXPECT_EQ(r.spilled_fraction, 0.0);
  EXPECT_EQ(r.bound, Bound::Compute);
}

// Spill, hand-worked on a tiny accelerator: Pd = 4, S = 4096 B, w = 2, one head, N = M = 64,
// E = F = 8, head granularity with both logit tensors on chip.
//   footprint = 2 * 64 * 64 + 4 * 2 * 4 * 16 = 8192 + 512 = 8704 B
//   ps = 1 - 4096 / 8704 = 0.529411...
//   base traffic (elements): Q 16*64*8, K 16*64*8, V 16*64*8, AV 64*8 = 25088
//   spill (elements): ps * 2 * (1 + min(8, 4) / (2 * 4)) * 64 * 64 = ps * 12288
TEST(AttentionFlat, HandWorkedSpill) {
  AttentionHw hw;
  hw.pe_rows = hw.pe_cols = 4;
  hw.buffer_bytes = 4096;
  hw.word_bytes = 2;
  hw.softmax_lanes = 4;
  AttentionShape s{1, 1, 64, 64, 8, 8, 0, 0};
  FlatConfig c;
  c.granularity = Granularity::Head;
  c.on_chip[kL] = c.on_chip[kA] = true;
  const AttentionCost r = evaluate_flat(s, hw, c, FlatOptions{false});
  EXPECT_DOUBLE_EQ(r.footprint_bytes, 8704.0);
  const double ps = 1.0 - 4096.0 / 8704.0;
  EXPECT_DOUBLE_EQ(r.spilled_fraction, ps);
  EXPECT_DOUBLE_EQ(r.spill_dram_bytes, 2.0 * ps * 12288.0);
  EXPECT_DOUBLE_EQ(r.dram_bytes, 2.0 * (25088.0 + ps * 12288.0));
  EXPECT_DOUBLE_EQ(r.stage_dram_bytes[0] + r.stage_dram_bytes[1] + r.stage_dram_bytes[2],
                   r.dram_bytes);
  EXPECT_DOUBLE_EQ(r.dram_bytes_by_tensor[kL], 2.0 * ps * 6144.0);  // half the logit spill
  // Row tiles of 16 rows fit: 2*16*64 + 512 = 2560 B <= 4096, no spill; K and V (bypassing)
  // are re-read per 4-row array pass as before, so only the spill term goes away.
  c.granularity = Granularity::Row;
  c.row_tile = 16;
  const AttentionCost row = evaluate_flat(s, hw, c, FlatOptions{false});
  EXPECT_DOUBLE_EQ(row.footprint_bytes, 2560.0);
  EXPECT_EQ(row.spilled_fraction, 0.0);
  EXPECT_DOUBLE_EQ(row.dram_bytes, 2.0 * 25088.0);
  // Batch granularity fuses all heads: with H = 2 the logit tile doubles.
  s.heads = 2;
  c.granularity = Granularity::Batch;
  EXPECT_DOUBLE_EQ(evaluate_flat(s, hw, c, FlatOptions{false}).footprint_bytes,
                   2.0 * 2 * 64 * 64 + 512);
  // Resident K that does not fit is re-read for the spilled part per array pass of rows.
  s.heads = 1;
  c.granularity = Granularity::Head;
  c.on_chip[kK] = true;
  const AttentionCost k = evaluate_flat(s, hw, c, FlatOptions{false});
  EXPECT_DOUBLE_EQ(k.footprint_bytes, 8704.0 + 2 * 64 * 8);
  const double psk = 1.0 - 4096.0 / k.footprint_bytes;
  EXPECT_DOUBLE_EQ(k.dram_bytes, 2.0 * (25088.0 - 15 * 512 + psk * (12288.0 + 15 * 512)));
}

AttentionShape attn_shape(const std::string& model, int64_t n) {
  for (const auto& w : read_csv("workloads.csv"))
    if (w.at("model") == model)
      return {64,
              std::stoll(w.at("heads")),
              n,
              n,
              std::stoll(w.at("E_qk_head_dim")),
              std::stoll(w.at("F_v_head_dim")),
              std::stoll(w.at("d_model")),
              std::stoll(w.at("S_ffn_dim"))};
  ADD_FAILURE() << model;
  return {};
}

// FuseMax's attn-flat latency: FLAT's cloud configuration plus the 256-lane softmax unit;
// softmax-bound, 4 B H N^2 / (256 f), exact up to 64K.
TEST(AttentionReference, AttnFlatLatencySoftmaxBound) {
  const auto val = read_csv("flat_validation.csv");
  int checked = 0;
  for (const auto& r : read_csv("attn-flat.csv")) {
    const int64_t n = seq_of(r.at("seq_len"));
    if (n > 65536) continue;
    const Row* cfg = nullptr;
    for (const auto& v : val)
      if (v.at("platform") == "cloud" && v.at("models") == r.at("model") &&
          v.at("seq_len") == r.at("seq_len"))
        cfg = &v;
    ASSERT_NE(cfg, nullptr);
    const AttentionCost c =
        evaluate_flat(attn_shape(r.at("model"), n), hw_of("cloud"), config_of(*cfg));
    EXPECT_LT(rel(c.latency_s, std::stod(r.at("latency"))), 1e-12) << r.at("model") << n;
    EXPECT_EQ(c.bound, Bound::Softmax);
    ++checked;
  }
  EXPECT_EQ(checked, 16);
}

// FuseMax's unfused baseline traffic: w B H [4 N^2 + 2 N (E + F)], exact up to 64K.
TEST(AttentionReference, UnfusedTrafficExactTo64K) {
  int checked = 0;
  for (const auto& r : read_csv("attn-unfused.csv")) {
    const int64_t n = seq_of(r.at("seq_len"));
    const AttentionCost c = evaluate_unfused(attn_shape(r.at("model"), n), hw_of("cloud"));
    const double want = std::stod(r.at("traffic"));
    EXPECT_DOUBLE_EQ(c.stage_dram_bytes[0] + c.stage_dram_bytes[1] + c.stage_dram_bytes[2],
                     c.dram_bytes);
    if (n <= 65536) {
      EXPECT_EQ(c.dram_bytes, want) << r.at("model") << n;
      ++checked;
    } else {
      EXPECT_LT(rel(c.dram_bytes, want), 0.004) << r.at("model") << n;
    }
  }
  EXPECT_EQ(checked, 16);
}

// Up to 64K tokens on cloud, FLAT at row granularity (R = 128) keeps its working set in the
// 32 MiB buffer, while the unfused baseline's logits (w B H N^2) do not fit.
TEST(AttentionFlat, CloudStaysOnChipTo64KWhereBaselineSpills) {
  for (const char* model : {"BERT", "TrXL", "T5", "XLM"}) {
    const AttentionShape s = attn_shape(model, 65536);
    FlatConfig c;
    c.granularity = Granularity::Row;
    c.row_tile = 128;
    c.on_chip[kL] = c.on_chip[kA] = true;
    const AttentionCost f = evaluate_flat(s, hw_of("cloud"), c);
    EXPECT_LE(f.footprint_bytes, 32.0 * 1024 * 1024) << model;
    EXPECT_EQ(f.spilled_fraction, 0.0) << model;
    EXPECT_EQ(f.spill_dram_bytes, 0.0) << model;
    const AttentionCost b = evaluate_unfused(s, hw_of("cloud"));
    EXPECT_GT(b.footprint_bytes, 32.0 * 1024 * 1024) << model;
    EXPECT_GT(b.spilled_fraction, 0.99) << model;
    EXPECT_LT(f.dram_bytes, b.dram_bytes) << model;
    // Softmax-bound: staying within the buffer costs nothing; FuseMax's attn-flat latency.
    EXPECT_EQ(f.bound, Bound::Softmax) << model;
    EXPECT_DOUBLE_EQ(f.latency_s, 4.0 * 64 * s.heads * 65536.0 * 65536.0 / (256 * 940e6));
  }
}

TEST(AttentionInput, BadShapesAndBuffers) {
  const AttentionHw hw = hw_of("edge");
  AttentionShape ok{1, 12, 512, 512, 64, 64, 768, 0};
  EXPECT_NO_THROW(validate_attention(ok, hw));
  auto bad = ok;
  bad.heads = 0;
  EXPECT_THROW(validate_attention(bad, hw), InputError);
  bad = ok;
  bad.queries = 0;
  EXPECT_THROW(validate_attention(bad, hw), InputError);
  bad = ok;
  bad.e = 1024;
  try {
    validate_attention(bad, hw);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("larger than the model dimension"), std::string::npos);
  }
  AttentionHw tiny = hw;
  tiny.buffer_bytes = 1024;
  try {
    validate_attention(ok, tiny);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("buffer too small for any tile"), std::string::npos);
  }
  arch::Arch a = arch::preset("flat-edge");
  a.array_shape = {};
  a.num_pes = 1000;
  EXPECT_THROW(attention_hw(a), InputError);
  FlatConfig c;
  c.granularity = Granularity::Row;
  c.row_tile = 0;
  EXPECT_FALSE(evaluate_flat(ok, hw, c).feasible);
}

}  // namespace
}  // namespace sparsemap::cost
