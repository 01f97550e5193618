// Test helper: a SparseLoopResult against Sparseloop's printed statistics (sparseloop_stats.h),
// shared by the exercises' references (sparseloop_test.cpp) and the generated runs
// (sparseloop_generated_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sparsemap/cost/sparseloop.h"
#include "support/sparseloop_stats.h"

namespace sparsemap::cost::sparseloop_ref {

// Energy per compute as the reference prints it, with two decimals: ours rounds to the same
// digits (within half the last one; measured: at most 0.0050 fJ apart on every reference, i.e.
// under 0.013% of the smallest component compared). The issue asks for 0.5%.
inline void expect_energy(double got, double ref, const std::string& what) {
  EXPECT_NEAR(got, ref, 0.0051) << what;
}

inline const char* const kActions[3] = {"reads", "fills", "updates"};

// Everything the reference prints that the model reports: computes (algorithmic, actual,
// gated, skipped), cycles, utilisation, per level and data space the algorithmic / actual /
// gated / skipped reads, fills and updates and the metadata accesses per rank, exact; energy
// per component (fJ per algorithmic and per actual compute) to the printed digits.
inline void expect_matches(const SparseLoopResult& got, const RefSparseStats& ref,
                           const std::string& label) {
  SCOPED_TRACE(label);
  ASSERT_TRUE(got.ok()) << got.reason;
  EXPECT_EQ(got.algorithmic_computes, ref.algorithmic_computes);
  EXPECT_EQ(got.actual_computes, ref.actual_computes);
  EXPECT_EQ(got.gated_computes, ref.gated_computes);
  EXPECT_EQ(got.skipped_computes, ref.skipped_computes);
  EXPECT_EQ(got.compute_cycles, ref.compute_cycles);
  EXPECT_EQ(got.cycles, ref.cycles);
  EXPECT_NEAR(got.utilization * 100, ref.utilization_pct, ref.utilization_half_step_pct);
  ASSERT_FALSE(ref.levels.empty());
  for (const auto& rl : ref.levels) {
    const SparseLevel* l = got.level(rl.name);
    ASSERT_NE(l, nullptr) << rl.name;
    for (const auto& [name, rd] : rl.ds) {
      const SparseDataspace* d = l->dataspace(name);
      ASSERT_NE(d, nullptr) << rl.name << " " << name;
      const SparseCounts* c[3] = {&d->reads, &d->fills, &d->updates};
      for (int a = 0; a < 3; ++a) {
        const std::string act = kActions[a];
        const std::string where = rl.name + " " + name + " " + act;
        EXPECT_EQ(c[a]->algorithmic, rd.get("Algorithmic scalar " + act)) << where;
        EXPECT_EQ(c[a]->actual, rd.get("Actual scalar " + act)) << where;
        EXPECT_EQ(c[a]->gated, rd.get("Gated scalar " + act)) << where;
        EXPECT_EQ(c[a]->skipped, rd.get("Skipped scalar " + act)) << where;
      }
      const std::vector<RankUnits>* fmt[3][3] = {
          {&d->format_reads, &d->gated_format_reads, &d->skipped_format_reads},
          {&d->format_fills, &d->gated_format_fills, &d->skipped_format_fills},
          {&d->format_updates, &d->gated_format_updates, &d->skipped_format_updates}};
      const char* const kinds[3] = {"Actual", "Gated", "Skipped"};
      for (int a = 0; a < 3; ++a)
        for (int k = 0; k < 3; ++k) {
          const std::string key = std::string(kinds[k]) + " scalar format " + kActions[a];
          const std::string where = rl.name + " " + name + " " + key;
          const auto it = rd.rank_counts.find(key);
          if (it == rd.rank_counts.end()) {
            // Printed as one number (0) or not at all (no format): every rank 0.
            for (const auto& u : *fmt[a][k])
              EXPECT_TRUE(u.metadata == 0 && u.payload == 0) << where;
            continue;
          }
          ASSERT_EQ(fmt[a][k]->size(), it->second.size()) << where;
          for (size_t r = 0; r < it->second.size(); ++r) {
            EXPECT_EQ((*fmt[a][k])[r].metadata, it->second[r].first) << where << " rank " << r;
            EXPECT_EQ((*fmt[a][k])[r].payload, it->second[r].second) << where << " rank " << r;
          }
        }
    }
  }
  for (const auto& [component, fj] : ref.fj_per_algorithmic_compute)
    expect_energy(got.fj_per_algorithmic_compute(component), fj,
                  component + " fJ/algorithmic compute");
  for (const auto& [component, fj] : ref.fj_per_compute)
    expect_energy(got.fj_per_compute(component), fj, component + " fJ/compute");
}

}  // namespace sparsemap::cost::sparseloop_ref
