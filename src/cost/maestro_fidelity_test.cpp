// Fidelity to MAESTRO on its own reference runs (shared/reference/maestro), and physical
// soundness where MAESTRO is wrong (loop edges, oversize tiles, its crashes).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "maestro_reference.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/io/util.h"

namespace sparsemap::cost {
namespace {

using testing::Record;

// Physics of an Ok cost: MACs conserved, never faster than the used PEs allow.
::testing::AssertionResult physical(const Cost& c, const workload::Layer& l,
                                    const std::string& what) {
  if (!c.ok()) return ::testing::AssertionFailure() << what << ": " << c.reason;
  if (c.macs != l.macs())
    return ::testing::AssertionFailure() << what << ": MACs " << c.macs << " != " << l.macs();
  if (c.mapped_macs < static_cast<double>(c.macs))
    return ::testing::AssertionFailure() << what << ": mapped MACs below the layer's";
  const double bound = std::ceil(static_cast<double>(c.macs) / static_cast<double>(c.pes_used));
  if (static_cast<double>(c.runtime_cycles) < bound)
    return ::testing::AssertionFailure()
           << what << ": runtime " << c.runtime_cycles << " below the bound " << bound;
  return ::testing::AssertionSuccess();
}

struct Worst {
  double err;
  std::string text;
};

void print_worst(const char* title, std::vector<Worst> w, size_t n = 8) {
  std::sort(w.begin(), w.end(), [](const Worst& a, const Worst& b) { return a.err > b.err; });
  std::printf("  worst %s:\n", title);
  for (size_t i = 0; i < std::min(n, w.size()) && w[i].err > 0; ++i)
    std::printf("    %6.2f%%  %s\n", 100 * w[i].err, w[i].text.c_str());
}

// The even set: random/ (240) + the even layers of the example networks, once per distinct
// (layer, mapping, hardware), without ResNeXt50_yxp_os FC1000 (MAESTRO: 0 MACs).
TEST(MaestroFidelity, EvenLayersMatchMaestro) {
  SPARSEMAP_REFERENCE_DIR_OR_SKIP(ref_root);
  const std::string ref = ref_root + "/maestro";
  std::vector<Record> all = testing::load_cases(ref + "/random", "expected.csv");
  const size_t n_random = all.size();
  for (Record& r : testing::load_networks(ref)) all.push_back(std::move(r));

  // Evaluate in file order (MAESTRO's printed energy depends on the layer before).
  std::vector<Cost> costs(all.size());
  std::vector<double> maestro_energy(all.size(), NAN);
  double prev_l1 = 0;
  std::string prev_net;
  for (size_t i = 0; i < all.size(); ++i) {
    const Record& r = all[i];
    costs[i] = evaluate(r.dl.layer, r.arch, r.dl.mapping);
    if (r.network != prev_net || r.network.empty()) prev_l1 = 0;
    prev_net = r.network;
    maestro_energy[i] =
        testing::maestro_energy(costs[i], testing::cluster_levels(r.dl.mapping), prev_l1);
    prev_l1 = testing::total_l1(costs[i]);
  }

  std::set<std::string> seen;
  std::vector<double> e_rt, e_l1, e_l2, e_en, ratio_en;
  std::vector<Worst> w_rt, w_l1, w_l2, w_en;
  int macs_exact = 0, macs_maestro_wrong = 0, n_even = 0, n_random_even = 0, counts_exact = 0,
      counts_total = 0, bw_exact = 0, bw_total = 0;
  std::vector<std::string> maestro_mac_defects;
  for (size_t i = 0; i < all.size(); ++i) {
    const Record& r = all[i];
    if (!r.even) {
      if (i < n_random) ADD_FAILURE() << r.source << " should be even";
      continue;
    }
    if (r.source == "ResNeXt50_yxp_os/FC1000") continue;
    if (!seen.insert(testing::key_of(r)).second) continue;
    ++n_even;
    n_random_even += i < n_random;
    const Cost& c = costs[i];
    ASSERT_TRUE(c.ok()) << r.source << ": " << c.reason;
    EXPECT_TRUE(physical(c, r.dl.layer, r.source));
    const double er = testing::rel_err(c.runtime_cycles, r.runtime);
    const double el1 = testing::rel_err(c.l1_bytes, r.l1), el2 = testing::rel_err(c.l2_bytes, r.l2);
    const double een = testing::rel_err(maestro_energy[i], r.energy);
    e_rt.push_back(er);
    e_l1.push_back(el1);
    e_l2.push_back(el2);
    e_en.push_back(een);
    ratio_en.push_back(c.energy_nj / r.energy);
    w_rt.push_back({er, r.source + ": " + std::to_string(c.runtime_cycles) + " vs " +
                            std::to_string(static_cast<int64_t>(r.runtime))});
    w_l1.push_back({el1, r.source});
    w_l2.push_back({el2, r.source});
    w_en.push_back({een, r.source});
    if (static_cast<double>(c.macs) == r.macs) {
      ++macs_exact;
    } else if (r.macs != static_cast<double>(r.dl.layer.macs())) {
      ++macs_maestro_wrong;  // MAESTRO's count is not the layer's; ours is
      maestro_mac_defects.push_back(r.source + " (MAESTRO " +
                                    std::to_string(static_cast<int64_t>(r.macs)) + ", layer " +
                                    std::to_string(r.dl.layer.macs()) + ")");
    } else {
      ADD_FAILURE() << r.source << ": MACs " << c.macs << " vs MAESTRO " << r.macs;
    }
    if (!std::isnan(r.noc_bw)) {
      bw_total += 2;
      bw_exact += (c.noc_words_per_cycle == r.noc_bw) + (c.offchip_words_per_cycle == r.offchip_bw);
    }
    if (!std::isnan(r.counts[0][0]))
      for (int t = 0; t < kNumTensors; ++t) {
        const double mine[4] = {c.access[t].l1_reads, c.access[t].l1_writes, c.access[t].l2_reads,
                                c.access[t].l2_writes};
        for (int k = 0; k < 4; ++k) {
          ++counts_total;
          counts_exact += mine[k] == r.counts[t][k];
        }
      }
  }
  const double rt5 = testing::fraction_within(e_rt, 0.05),
               rt05 = testing::fraction_within(e_rt, 0.005);
  const double l1_5 = testing::fraction_within(e_l1, 0.05),
               l2_5 = testing::fraction_within(e_l2, 0.05);
  const double en10 = testing::fraction_within(e_en, 0.10);
  std::printf("MAESTRO fidelity on %d even layers (%d random + %d distinct from 33 networks)\n",
              n_even, n_random_even, n_even - n_random_even);
  std::printf("  runtime: %.1f%% within 5%%, %.1f%% within 0.5%%, exact %.1f%%   [%s]\n", 100 * rt5,
              100 * rt05, 100 * testing::fraction_within(e_rt, 0),
              testing::distribution(e_rt).c_str());
  std::printf("  L1: %.1f%% within 5%% [%s]\n", 100 * l1_5, testing::distribution(e_l1).c_str());
  std::printf("  L2: %.1f%% within 5%% [%s]\n", 100 * l2_5, testing::distribution(e_l2).c_str());
  std::printf("  MACs: %d exact; %d where MAESTRO's count is not the layer's (ours is):\n",
              macs_exact, macs_maestro_wrong);
  for (const auto& s : maestro_mac_defects) std::printf("    %s\n", s.c_str());
  std::printf(
      "  per-tensor L1/L2 access counts (networks): %d of %d exact (the others: layers "
      "where MAESTRO's MAC count is wrong)\n",
      counts_exact, counts_total);
  std::printf("  NoC and off-chip bandwidth needs (networks): %d of %d exact\n", bw_exact,
              bw_total);
  std::printf("  energy, MAESTRO's accounting from our counts: %.1f%% within 10%% [%s]\n",
              100 * en10, testing::distribution(e_en).c_str());
  std::printf("  energy_nj (ours: MACs + own L1 + L2) / MAESTRO's printed energy: %s\n",
              testing::distribution(ratio_en).c_str());
  print_worst("runtime", w_rt);
  print_worst("L1", w_l1, 4);
  print_worst("L2", w_l2, 4);
  print_worst("energy", w_en, 4);

  EXPECT_GE(n_random_even, 240);
  EXPECT_GE(rt5, 0.95);
  EXPECT_GE(rt05, 0.80);
  EXPECT_GE(l1_5, 0.95);
  EXPECT_GE(l2_5, 0.95);
  EXPECT_GE(en10, 0.90);
  EXPECT_EQ(macs_exact + macs_maestro_wrong, n_even);
}

// Uneven layers: compared with MAESTRO (which is wrong there), physics asserted.
TEST(MaestroFidelity, UnevenLayersArePhysical) {
  SPARSEMAP_REFERENCE_DIR_OR_SKIP(ref_root);
  const std::string ref = ref_root + "/maestro";
  std::vector<Record> all = testing::load_cases(ref + "/uneven", "maestro_output.csv");
  const size_t n_cases = all.size();
  std::set<std::string> seen;
  for (Record& r : testing::load_networks(ref))
    if (!r.even && seen.insert(testing::key_of(r)).second) all.push_back(std::move(r));
  std::vector<double> ratio;
  int below_maestro = 0, above_maestro = 0, n = 0;
  for (const Record& r : all) {
    const Cost c = evaluate(r.dl.layer, r.arch, r.dl.mapping);
    EXPECT_TRUE(physical(c, r.dl.layer, r.source));
    if (!c.ok() || !(r.runtime > 0)) continue;
    ++n;
    ratio.push_back(static_cast<double>(c.runtime_cycles) / r.runtime);
    below_maestro += static_cast<double>(c.runtime_cycles) < r.runtime;
    above_maestro += static_cast<double>(c.runtime_cycles) > r.runtime;
  }
  std::sort(ratio.begin(), ratio.end());
  std::printf("Uneven layers: %zu (%zu uneven/ cases + %zu distinct network layers)\n", all.size(),
              n_cases, all.size() - n_cases);
  if (!ratio.empty())
    std::printf(
        "  runtime ours/MAESTRO: min %.3f p10 %.3f p50 %.3f p90 %.3f max %.3f; "
        "ours lower on %d, higher on %d, equal on %d\n",
        ratio.front(), ratio[ratio.size() / 10], ratio[ratio.size() / 2],
        ratio[ratio.size() * 9 / 10], ratio.back(), below_maestro, above_maestro,
        n - below_maestro - above_maestro);
}

// defects/edge_study_template.m: for a fixed outer K tile, the inner tile must not matter.
TEST(MaestroFidelity, EdgeStudyInnerTileDoesNotMatter) {
  SPARSEMAP_REFERENCE_DIR_OR_SKIP(ref_root);
  const std::string dir = ref_root + "/maestro/defects";
  const std::string tpl = io::read_file(dir + "/edge_study_template.m");
  const arch::Arch hw = io::read_maestro_hw(dir + "/gamma_edge.hw.m");
  auto subst = [&](int outer, int inner) {
    std::string s = tpl;
    for (auto [key, val] : {std::pair<std::string, int>{"OUTER", outer}, {"INNER", inner}})
      for (size_t p; (p = s.find(key)) != std::string::npos;)
        s.replace(p, key.size(), std::to_string(val));
    return io::parse_dfsl(s, "edge_study.m").layers.at(0);
  };
  std::printf("Edge study (K = 64, 168 PEs): runtime per outer tile over inner tiles\n");
  for (int outer : {32, 35, 40, 48, 64}) {
    int64_t lo = INT64_MAX, hi = 0;
    std::string line;
    for (int inner : {outer, 34, 20, 7, 5, 1}) {
      if (inner > outer) continue;
      const io::DfslLayer l = subst(outer, inner);
      const Cost c = evaluate(l.layer, hw, l.mapping);
      ASSERT_TRUE(physical(c, l.layer, "outer " + std::to_string(outer)));
      lo = std::min(lo, c.runtime_cycles);
      hi = std::max(hi, c.runtime_cycles);
      line += " " + std::to_string(inner) + ":" + std::to_string(c.runtime_cycles);
    }
    std::printf("  outer %2d:%s  (spread %.2f%%)\n", outer, line.c_str(),
                100.0 * static_cast<double>(hi - lo) / static_cast<double>(lo));
    EXPECT_LE(static_cast<double>(hi), 1.05 * static_cast<double>(lo)) << "outer " << outer;
  }
}

// The networks MAESTRO crashed (136) or aborted (255) on: every layer evaluated physically or
// refused with a reason that names a directive.
TEST(MaestroFidelity, CrashedNetworksEvaluate) {
  SPARSEMAP_REFERENCE_DIR_OR_SKIP(ref_root);
  const std::string ref = ref_root + "/maestro";
  std::ifstream codes(ref + "/maestro_exit_codes.txt");
  std::string net;
  int code, nets = 0;
  while (codes >> net >> code) {
    if (code == 0) continue;
    ++nets;
    const io::DfslNetwork n = io::read_dfsl(ref + "/networks/" + net + ".m");
    const arch::Arch hw = io::read_maestro_hw(ref + "/accelerator_1.m");
    int ok = 0, refused = 0;
    std::string example;
    for (const io::DfslLayer& l : n.layers) {
      const Cost c = evaluate(l.layer, hw, l.mapping);
      if (c.ok()) {
        EXPECT_TRUE(physical(c, l.layer, net + "/" + l.layer.name));
        ++ok;
      } else {
        EXPECT_EQ(c.status, Status::Invalid) << c.reason;
        EXPECT_NE(c.reason.find("Map("), std::string::npos) << net << ": " << c.reason;
        if (example.empty()) example = l.layer.name + ": " + c.reason;
        ++refused;
      }
    }
    std::printf("  %-22s (MAESTRO exit %3d): %2d layers evaluated, %2d refused%s%s\n", net.c_str(),
                code, ok, refused, example.empty() ? "" : "; e.g. ", example.c_str());
  }
  EXPECT_EQ(nets, 8);
}

// invalid/: Y'/X' tiles larger than the output. The reader clamps them; the results are
// physical (MAESTRO: 0 cycles, 0 MACs).
TEST(MaestroFidelity, OversizeTilesAreClampedAndPhysical) {
  SPARSEMAP_REFERENCE_DIR_OR_SKIP(ref_root);
  const std::vector<Record> cases =
      testing::load_cases(ref_root + "/maestro/invalid", "maestro_output.csv");
  EXPECT_EQ(cases.size(), 8u);
  for (const Record& r : cases) {
    EXPECT_TRUE(r.dl.clamped) << r.source;
    const Cost c = evaluate(r.dl.layer, r.arch, r.dl.mapping);
    EXPECT_TRUE(physical(c, r.dl.layer, r.source));
    EXPECT_GT(c.runtime_cycles, 0);
    EXPECT_EQ(r.runtime, 0) << "MAESTRO's output changed?";
  }
}

// GAMMA's three "best" ResNet-50 mappings sit in MAESTRO's holes; ours are above the bound.
TEST(MaestroFidelity, GammaHolesAreClosed) {
  SPARSEMAP_REFERENCE_DIR_OR_SKIP(ref_root);
  const std::string dir = ref_root + "/maestro/defects";
  const arch::Arch hw = io::read_maestro_hw(dir + "/gamma_edge.hw.m");
  const std::pair<const char*, double> maestro[] = {{"gamma_best_resnet50_l2.m", 34293},
                                                    {"gamma_best_resnet50_l10.m", 236},
                                                    {"gamma_best_resnet50_l30.m", 3613}};
  for (auto [file, theirs] : maestro) {
    const io::DfslLayer l = io::read_dfsl(dir + "/" + file).layers.at(0);
    const Cost c = evaluate(l.layer, hw, l.mapping);
    EXPECT_TRUE(physical(c, l.layer, file));
    const double bound = std::ceil(static_cast<double>(l.layer.macs()) / 168.0);
    std::printf("  %-28s MAESTRO %8.0f cycles, ours %9lld (bound on 168 PEs %.0f)\n", file, theirs,
                static_cast<long long>(c.runtime_cycles), bound);
    EXPECT_GE(static_cast<double>(c.runtime_cycles), bound) << file;
  }
}

}  // namespace
}  // namespace sparsemap::cost
