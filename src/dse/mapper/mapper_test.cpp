// Tests of the mapper: decode/repair invariants, validity and physical soundness of every
// returned mapping, GAMMA vs exhaustive optimum, determinism, checkpoint/resume, warm-start,
// GAMMA vs MAESTRO's fixed dataflows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/mapper/exhaustive.h"
#include "sparsemap/dse/mapper/gamma_ops.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/error.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/workload/zoo.h"
#include "support/test_data.h"

namespace sparsemap::dse::mapper {
namespace {

using workload::Layer;

std::vector<Layer> gemm_layers(const std::string& model) {
  std::vector<Layer> out;
  for (const Layer& l : workload::zoo_model(model).layers)
    if (workload::is_gemm_class(l.kind)) out.push_back(l);
  return out;
}

TEST(MapSpace, DecodeNeverExceedsExtentsOrParents) {
  const arch::Arch hw = arch::preset("gamma-edge");
  std::vector<Layer> layers = gemm_layers("resnet50");
  for (const Layer& l : gemm_layers("mobilenet-v2")) layers.push_back(l);
  for (const Layer& l : gemm_layers("bert-base")) layers.push_back(l);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int checked = 0;
  for (int variant = 0; variant < 4; ++variant) {
    MapSpaceOptions o;
    o.max_levels = variant == 3 ? 3 : 2;
    o.divisors_only = variant == 1;
    o.constraint = variant == 2 ? Constraint::Nvdla : Constraint::None;
    for (size_t li = 0; li < layers.size(); li += 3) {
      const MapSpace space(layers[li], hw, o);
      for (int k = 0; k < 200; ++k) {
        search::Genome g(space.dims());
        for (double& x : g) x = std::min(u(rng), 0.999999);
        const MapSpace::Decoded d = space.decode_raw(g);
        int64_t pes = 1;
        for (int l = 0; l < d.levels; ++l) {
          if (l > 0) pes *= d.cluster[l];
          for (int s = 0; s < kSlots; ++s) {
            const int64_t parent =
                l == 0 ? std::max<int64_t>(1, space.extent(s)) : d.tile[l - 1][s];
            ASSERT_GE(d.tile[l][s], 1);
            ASSERT_LE(d.tile[l][s], parent) << layers[li].name << " level " << l << " slot " << s;
            if (o.divisors_only) {
              ASSERT_EQ(parent % d.tile[l][s], 0);
            }
          }
        }
        ASSERT_LE(pes, hw.num_pes);
        if (o.constraint == Constraint::Nvdla && space.extent(0) > 1 && space.extent(1) > 1) {
          ASSERT_EQ(d.parallel[0], 0);
          ASSERT_EQ(d.parallel[1], 1);
        }
        // Y'/X' directives never exceed the output size.
        for (const auto& dir : space.to_mapping(d).directives)
          if (dir.primed) {
            const int64_t out =
                dir.dim == workload::Dim::Y ? layers[li].out_y() : layers[li].out_x();
            ASSERT_LE(dir.size.literal, out);
          }
        // encode(decode(g)) decodes to the same thing.
        const MapSpace::Decoded d2 = space.decode_raw(space.encode(d));
        ASSERT_EQ(d2.levels, d.levels);
        for (int l = 0; l < d.levels; ++l) ASSERT_EQ(d2.tile[l], d.tile[l]);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

TEST(MapSpace, BadOptionsAreInputErrors) {
  const arch::Arch hw = arch::preset("gamma-edge");
  const Layer l = gemm_layers("resnet50")[1];
  EXPECT_THROW(parse_objective("speed"), InputError);
  EXPECT_THROW(parse_constraint("tpu"), InputError);
  EXPECT_THROW(check_algo("hillclimb"), InputError);
  MapSpaceOptions o;
  o.max_levels = 5;
  EXPECT_THROW(MapSpace(l, hw, o), InputError);
  o.max_levels = 1;
  o.constraint = Constraint::Nvdla;
  EXPECT_THROW(MapSpace(l, hw, o), InputError);
  const Layer sm = workload::nongemm("sm", workload::OpKind::Softmax, "softmax", {1, 128});
  EXPECT_THROW(MapSpace(sm, hw, MapSpaceOptions{}), InputError);
}

// Every mapping returned for every ResNet-50 layer is valid and physical.
TEST(ModelMapper, EveryResNet50MappingIsValidAndPhysical) {
  const arch::Arch hw = arch::preset("gamma-edge");
  const std::vector<Layer> layers = gemm_layers("resnet50");
  MapperOptions o;
  o.budget = 300;
  o.threads = 2;
  const ModelOutcome res = map_layers(layers, hw, o);
  ASSERT_EQ(res.layers.size(), layers.size());
  for (const LayerOutcome& lo : res.layers) {
    ASSERT_TRUE(lo.cost.ok()) << lo.layer.name << ": " << lo.cost.reason;
    EXPECT_EQ(lo.cost.macs, lo.layer.macs()) << lo.layer.name;
    EXPECT_GE(lo.cost.mapped_macs, static_cast<double>(lo.layer.macs())) << lo.layer.name;
    ASSERT_GT(lo.cost.pes_used, 0);
    const int64_t bound = (lo.cost.macs + lo.cost.pes_used - 1) / lo.cost.pes_used;
    EXPECT_GE(lo.cost.runtime_cycles, bound) << lo.layer.name;
    EXPECT_LE(lo.cost.pes_used, hw.num_pes);
    EXPECT_LE(lo.cost.l1_bytes, hw.l1_bytes);
    EXPECT_LE(lo.cost.l2_bytes, hw.l2_bytes);
  }
  EXPECT_LT(res.unique_layers, layers.size());
}

TEST(ModelMapper, SkipsLayersWithoutMacs) {
  const arch::Arch hw = arch::preset("gamma-edge");
  std::vector<Layer> layers = {
      workload::gemm("g", 64, 64, 64),
      workload::nongemm("sm", workload::OpKind::Softmax, "softmax", {64, 64})};
  MapperOptions o;
  o.budget = 50;
  const ModelOutcome res = map_layers(layers, hw, o);
  ASSERT_EQ(res.layers.size(), 1u);
  ASSERT_EQ(res.skipped.size(), 1u);
  EXPECT_TRUE(res.layers[0].cost.ok());
}

// Small layers whose constrained, divisor-only, fixed-order spaces can be enumerated yet hold
// at least 100,000 points: GAMMA at a budget of 1,000 (< 1% of each space) reaches the
// exhaustive optimum exactly on every one (what it achieves: all 10 at ratio 1.0000, seed 1;
// the bar was ">= 90% within 5%", which a regression of a few percent on every layer would
// still pass; that bar is kept as well). The ctest run uses the first
// `n` = 5 layers (about 1 million points, a few seconds); the full list runs with
// --gtest_also_run_disabled_tests --gtest_filter='*DISABLED_GammaNearExhaustiveFull*'.
void gamma_near_exhaustive(size_t n) {
  const arch::Arch hw = arch::preset("gamma-edge");
  // conv2d(name, batch, C, input rows, input columns, K, R=S); the points are printed.
  std::vector<Layer> layers = {
      workload::conv2d("k32c8o4r3", 1, 8, 6, 6, 32, 3),    // 170,100 points
      workload::conv2d("k16c24o6r1", 1, 24, 6, 6, 16, 1),  // 126,360
      workload::conv2d("k16c16o4r3", 1, 16, 6, 6, 16, 3),  // 233,280
      workload::conv2d("k16c16o12r1", 1, 16, 12, 12, 16, 1),
      workload::conv2d("k8c8o8r3", 1, 8, 10, 10, 8, 3),
      workload::conv2d("k16c8o6r3", 1, 8, 8, 8, 16, 3),
      workload::conv2d("k8c24o4r3", 1, 24, 6, 6, 8, 3),
      workload::conv2d("k16c8o8r3", 1, 8, 10, 10, 16, 3),
      workload::conv2d("k8c16o6r3", 1, 16, 8, 8, 8, 3),
      workload::conv2d("k24c8o6r3", 1, 8, 8, 8, 24, 3),
  };
  layers.resize(std::min(n, layers.size()));
  MapSpaceOptions so;
  so.divisors_only = true;
  so.fixed_order = true;
  so.constraint = Constraint::Nvdla;
  int within = 0;
  for (const Layer& l : layers) {
    const MapSpace space(l, hw, so);
    const ExhaustiveResult ex = exhaustive_best(space, FitnessSpec{}, 2);
    MapperOptions o;
    o.budget = 1000;
    o.space = so;
    o.threads = 2;
    const ModelOutcome res = map_layers({l}, hw, o);
    const double ratio = res.layers[0].fitness / ex.best;
    std::printf("  %-16s space %lld points, optimum %.0f cycles, GAMMA@1000 %.0f (%.4f)\n",
                l.name.c_str(), static_cast<long long>(ex.points), ex.best, res.layers[0].fitness,
                ratio);
    EXPECT_GE(ex.points, 100000) << l.name;
    EXPECT_GE(ratio, 1.0 - 1e-9) << l.name;  // nothing beats the exhaustive optimum
    EXPECT_LE(ratio, 1.0 + 1e-9) << l.name;  // and GAMMA reaches it
    within += ratio <= 1.05;
  }
  EXPECT_GE(within * 10, static_cast<int>(layers.size()) * 9);
}

TEST(ModelMapper, GammaNearExhaustiveReduced) { gamma_near_exhaustive(5); }
TEST(ModelMapper, DISABLED_GammaNearExhaustiveFull) { gamma_near_exhaustive(100); }

TEST(ModelMapper, SameSeedSameResultWithOneAndTwoThreads) {
  const arch::Arch hw = arch::preset("gamma-edge");
  std::vector<Layer> layers = gemm_layers("resnet50");
  layers.resize(8);
  for (const std::string algo : {"gamma", "random"}) {
    MapperOptions o;
    o.algo = algo;
    o.budget = 400;
    o.seed = 11;
    o.threads = 1;
    const ModelOutcome a = map_layers(layers, hw, o);
    o.threads = 2;
    const ModelOutcome b = map_layers(layers, hw, o);
    for (size_t i = 0; i < layers.size(); ++i) {
      EXPECT_EQ(a.layers[i].genome, b.layers[i].genome) << algo << " " << i;
      EXPECT_EQ(a.layers[i].mapping, b.layers[i].mapping);
    }
  }
}

// A run interrupted mid-layer (the progress callback throws, as a kill would stop it) and then
// resumed from its checkpoint ends exactly like an uninterrupted run.
TEST(ModelMapper, KilledAndResumedEqualsUninterrupted) {
  const arch::Arch hw = arch::preset("gamma-edge");
  std::vector<Layer> layers = gemm_layers("resnet50");
  layers.resize(6);
  const std::string ck =
      (std::filesystem::temp_directory_path() / ("mapper_ck_" + std::to_string(::getpid())))
          .string();
  MapperOptions o;
  o.budget = 600;
  o.seed = 5;
  o.warm_start = true;  // the checkpoint must carry what warm-start reads
  const ModelOutcome ref = map_layers(layers, hw, o);
  for (int stop_after : {3, 9, 17}) {
    std::filesystem::remove(ck);
    std::filesystem::remove(ck + ".search");
    MapperOptions k = o;
    k.checkpoint_file = ck;
    k.checkpoint_every = 100;
    int calls = 0;
    struct Killed {};
    k.progress = [&](size_t, size_t, int64_t, int64_t, double) {
      if (++calls == stop_after) throw Killed{};
    };
    EXPECT_THROW(map_layers(layers, hw, k), Killed);
    k.progress = nullptr;
    k.resume = true;
    const ModelOutcome res = map_layers(layers, hw, k);
    ASSERT_EQ(res.layers.size(), ref.layers.size());
    for (size_t i = 0; i < ref.layers.size(); ++i) {
      EXPECT_EQ(res.layers[i].genome, ref.layers[i].genome)
          << "stop " << stop_after << " layer " << i;
      EXPECT_EQ(res.layers[i].fitness, ref.layers[i].fitness);
      EXPECT_EQ(res.layers[i].warm_samples_to_target, ref.layers[i].warm_samples_to_target);
    }
  }
  // A checkpoint of another run is refused.
  MapperOptions other = o;
  other.checkpoint_file = ck;
  other.resume = true;
  other.seed = 6;
  EXPECT_THROW(map_layers(layers, hw, other), InputError);
  std::filesystem::remove(ck);
  std::filesystem::remove(ck + ".search");
}

// A damaged checkpoint is bad input, never an abort or a raw JSON exception (found by
// fuzz/map_checkpoint_fuzz; a shortened genome used to trip map_space.cpp's assertion, genes out
// of [0, 1] a float-to-integer overflow in decode).
TEST(ModelMapper, DamagedCheckpointIsInputError) {
  const arch::Arch hw = arch::preset("maestro-example");
  const std::vector<Layer> layers = {workload::gemm("g", 8, 4, 6)};
  const std::string ck =
      (std::filesystem::temp_directory_path() / ("mapper_bad_ck_" + std::to_string(::getpid())))
          .string();
  MapperOptions o;
  o.budget = 20;
  o.checkpoint_file = ck;
  map_layers(layers, hw, o);
  std::ifstream in(ck);
  const nlohmann::json good = nlohmann::json::parse(in);
  ASSERT_EQ(good.at("done").size(), 1u);
  std::vector<std::pair<std::string, nlohmann::json>> bad;
  bad.emplace_back("short genome", good);
  bad.back().second["done"][0]["best"].erase(0);
  bad.emplace_back("gene 1e308", good);
  bad.back().second["done"][0]["best"][0] = 1e308;
  bad.emplace_back("negative gene", good);
  bad.back().second["done"][0]["best"][1] = -0.5;
  bad.emplace_back("best not an array", good);
  bad.back().second["done"][0]["best"] = "x";
  bad.emplace_back("no fingerprint", good);
  bad.back().second.erase("fingerprint");
  bad.emplace_back("samples 1e300", good);
  bad.back().second["done"][0]["samples"] = 1e300;
  bad.emplace_back("kind not a string", good);
  bad.back().second["kind"] = 5;
  o.resume = true;
  for (const auto& [what, j] : bad) {
    std::ofstream(ck) << j.dump();
    std::filesystem::remove(ck + ".search");
    try {
      map_layers(layers, hw, o);
      ADD_FAILURE() << what << ": accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().file, ck) << what;
      EXPECT_EQ(std::string(e.what()).find("json.exception"), std::string::npos) << e.what();
    }
  }
  std::ofstream(ck) << good.dump();
  EXPECT_NO_THROW(map_layers(layers, hw, o));
  std::filesystem::remove(ck);
  std::filesystem::remove(ck + ".search");
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// Issue 19: a checkpoint whose genome was shortened aborted (map_space.cpp assertion); one with
// "best": "x" or without a fingerprint printed json.exception text; a directory gave
// basic_filebuf::underflow. Each is now one InputError naming the file.
TEST(ModelMapper, BadCheckpointsAndMappingDbsNameTheFile) {
  const arch::Arch hw = arch::preset("gamma-edge");
  std::vector<Layer> layers = gemm_layers("resnet18");
  layers.resize(2);
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("sparsemap_mapper_bad_" + std::to_string(::getpid())))
                              .string();
  std::filesystem::create_directories(dir);
  const std::string ck = dir + "/ck.json";
  MapperOptions o;
  o.budget = 40;
  o.checkpoint_file = ck;
  map_layers(layers, hw, o);
  const nlohmann::json good = nlohmann::json::parse(std::ifstream(ck));
  const size_t dims = good["done"][0]["best"].size();
  auto resume_with = [&](const nlohmann::json& j) {
    std::ofstream(ck) << j.dump();
    MapperOptions r = o;
    r.resume = true;
    return error_of([&] { map_layers(layers, hw, r); });
  };
  nlohmann::json j = good;
  j["done"][0]["best"].erase(j["done"][0]["best"].size() - 1);
  EXPECT_EQ(resume_with(j), ck + ": finished task 0: 'best' has " + std::to_string(dims - 1) +
                                " genes, expected " + std::to_string(dims) +
                                " (a checkpoint of another search)");
  j = good;
  j["done"][1]["best"] = "x";
  EXPECT_EQ(resume_with(j), ck + ": finished task 1: expected an array 'best'");
  j = good;
  j["done"][0]["samples"] = 41;  // more than the budget
  EXPECT_EQ(resume_with(j), ck + ": finished task 0: 'samples' = 41 is outside [1, 40]");
  j = good;
  j.erase("fingerprint");
  EXPECT_EQ(resume_with(j), ck + ": the checkpoint has no \"fingerprint\" of its run");
  std::ofstream(ck) << "{\"kind\": ";
  MapperOptions r = o;
  r.resume = true;
  EXPECT_EQ(error_of([&] { map_layers(layers, hw, r); }),
            ck + ":1:10: invalid JSON; expected a map checkpoint (written by map --checkpoint)");
  r.checkpoint_file = dir;  // a directory
  EXPECT_EQ(error_of([&] { map_layers(layers, hw, r); }),
            dir + ": cannot read: is a directory, expected a file");
  EXPECT_EQ(error_of([&] { read_mapping_db(dir); }),
            dir + ": cannot read: is a directory, expected a file");
  const std::string db = dir + "/db.json";
  std::ofstream(db) << R"({"mappings": [{"layer": {"name": "x"}, "levels": []}]})";
  EXPECT_EQ(
      error_of([&] { read_mapping_db(db); }),
      db + ": mapping 0: expected a mapping DB layer: name and kind (strings), dims (9 integers), "
           "stride, pad and dilation (2 integers each)");
  // Flags that allocate per sample or are not numbers.
  MapperOptions big;
  big.budget = search::kMaxBudget + 1;
  EXPECT_EQ(error_of([&] { map_layers(layers, hw, big); }),
            "<flag --budget>: expected a budget in [1, 100000000] samples, found 100000001");
  MapperOptions nan_rate;
  nan_rate.mutation_rate = std::nan("");
  EXPECT_EQ(error_of([&] { map_layers(layers, hw, nan_rate); }),
            "<flag --mutation-rate>: expected a rate in [0, 1], found nan");
  std::filesystem::remove_all(dir);
}

// Warm-start reaches the cold search's quality with fewer samples on ResNet-50.
TEST(ModelMapper, WarmStartReachesColdQualityWithFewerSamples) {
  const arch::Arch hw = arch::preset("gamma-edge");
  const std::vector<Layer> layers = gemm_layers("resnet50");
  MapperOptions o;
  o.budget = 1000;
  o.threads = 2;
  o.warm_start = true;
  const ModelOutcome res = map_layers(layers, hw, o);
  int64_t cold = 0, warm = 0;
  int n = 0;
  for (const LayerOutcome& lo : res.layers) {
    if (lo.reused || lo.cold_samples_to_target < 0) continue;
    ++n;
    cold += lo.cold_samples_to_target;
    warm += lo.warm_samples_to_target >= 0 ? lo.warm_samples_to_target : o.budget;
  }
  std::printf(
      "  warm-start on %d distinct ResNet-50 layers: samples to the cold best: cold %lld, "
      "warm %lld\n",
      n, static_cast<long long>(cold), static_cast<long long>(warm));
  EXPECT_GT(n, 10);
  EXPECT_LT(warm, cold);
}

// Density range: the regret reported per density, checked against an independent enumeration
// of the layer's (divisor-only, fixed-order, NVDLA-constrained) map space. At density d,
//   robust(d) = latency_d(R)          R: the robust search's mapping (the mean over 3 densities)
//   alone(d)  = the best latency the search at d alone found, >= min_m latency_d(m)
//   regret(d) = robust(d) / alone(d) - 1.
// The test evaluates R at each density itself (cost::evaluate) and enumerates every mapping
// (enumerate_space): robust(d) and the mean fitness must be exact, alone(d) no better than the
// enumerated optimum, the regret exactly the formula; the robust mapping's regret against the
// true optimum at each d, robust(d) / min_m latency_d(m) - 1, bounds the reported one from above.
TEST(ModelMapper, DensityRangeReportsRegret) {
  const arch::Arch hw = arch::preset("gamma-edge");
  const Layer l = workload::conv2d("k8c8o4r3s2", 1, 8, 9, 9, 8, 3, 2);
  MapperOptions o;
  o.budget = 300;
  o.space.divisors_only = true;
  o.space.fixed_order = true;
  o.space.constraint = Constraint::Nvdla;
  cost::parse_density_flag("W=0.05:1", o.sparsity);
  o.sparsity.mode = cost::SparseMode::Skip;
  const ModelOutcome res = map_layers({l}, hw, o);
  ASSERT_EQ(res.layers.size(), 1u);
  const LayerOutcome& lo = res.layers[0];
  ASSERT_EQ(lo.regrets.size(), 3u);

  // The independent enumeration: latency of every mapping at W = 0.2, 0.5, 0.8 (the mapper's
  // grid of the range, so that the densities are the same doubles).
  const std::vector<cost::SparsityOptions> grid = density_points(o.sparsity);
  ASSERT_EQ(grid.size(), 3u);
  const double densities[3] = {0.05, 0.525, 1.0};
  auto latency = [&](const mapping::Mapping& m, int p) {
    cost::EvalOptions eo;
    eo.enforce_buffers = true;
    eo.sparsity = grid[static_cast<size_t>(p)];
    EXPECT_NEAR(eo.sparsity.tensors[cost::kWeight].density, densities[p], 1e-12);
    const cost::Cost c = cost::evaluate(l, hw, m, eo);
    return c.ok() ? static_cast<double>(c.runtime_cycles) : search::kInfeasible;
  };
  const MapSpace space(l, hw, o.space);
  double alone[3] = {search::kInfeasible, search::kInfeasible, search::kInfeasible};
  double best_mean = search::kInfeasible;
  const int64_t points = enumerate_space(space, [&](const MapSpace::Decoded& dec) {
    const mapping::Mapping m = space.to_mapping(dec);
    double mean = 0;
    for (int p = 0; p < 3; ++p) {
      const double v = latency(m, p);
      alone[p] = std::min(alone[p], v);
      mean += v / 3;
    }
    best_mean = std::min(best_mean, mean);
  });
  ASSERT_GT(points, 1000);
  ASSERT_LT(best_mean, search::kInfeasible);
  double robust_mean = 0;
  for (int p = 0; p < 3; ++p) {
    const auto& r = lo.regrets[static_cast<size_t>(p)];
    const double robust = latency(lo.mapping, p);
    robust_mean += robust / 3;
    EXPECT_NEAR(r.density, densities[p], 1e-12);
    EXPECT_EQ(r.robust, robust) << "W=" << densities[p];
    EXPECT_GE(r.alone, alone[p]) << "W=" << densities[p];
    EXPECT_DOUBLE_EQ(r.regret, robust / r.alone - 1.0) << "W=" << densities[p];
    EXPECT_LE(r.regret, robust / alone[p] - 1.0 + 1e-12) << "W=" << densities[p];
  }
  EXPECT_DOUBLE_EQ(lo.fitness, robust_mean);  // the robust fitness is the mean latency
  EXPECT_GE(robust_mean, best_mean);
  // What the searches achieve on this space (300 samples of 81,000 points): the robust search
  // finds the enumerated minimiser of the mean, each search alone the enumerated optimum at its
  // density, so the reported regret is the enumeration's exactly; at W = 0.05 it is
  // 24 / 17 - 1 = 41.18% (the robust mapping gives up 7 cycles there), 0 at the other two.
  EXPECT_DOUBLE_EQ(robust_mean, best_mean);
  for (int p = 0; p < 3; ++p) {
    const auto& r = lo.regrets[static_cast<size_t>(p)];
    EXPECT_EQ(r.alone, alone[p]) << "W=" << densities[p];
    std::printf(
        "  W=%.3f: robust %.0f cycles, alone %.0f, enumerated optimum %.0f, regret %.4f%%\n",
        densities[p], r.robust, r.alone, alone[p], 100 * r.regret);
  }
  EXPECT_EQ(lo.regrets[0].robust, 24);
  EXPECT_EQ(lo.regrets[0].alone, 17);
  EXPECT_DOUBLE_EQ(lo.regrets[0].regret, 24.0 / 17.0 - 1.0);
  EXPECT_EQ(lo.regrets[1].regret, 0.0);
  EXPECT_EQ(lo.regrets[2].regret, 0.0);
}

// On maestro-example, GAMMA's mappings of the layers of MAESTRO's Resnet50_kcp_ws.m beat, in
// total latency, each of that network's fixed kcp_ws, xp_ws and yxp_os dataflows, all under the
// same buffer rule (totals over the layers where the fixed dataflow is feasible).
TEST(ModelMapper, GammaBeatsMaestroFixedDataflowsOnResNet50) {
  SPARSEMAP_TEST_DATA(dir, "maestro/networks");
  const arch::Arch hw = arch::preset("maestro-example");
  const io::DfslNetwork net = io::read_dfsl(dir + "/Resnet50_kcp_ws.m");
  std::vector<Layer> layers;
  for (const auto& l : net.layers) layers.push_back(l.layer);
  MapperOptions o;
  o.budget = 1000;
  o.threads = 2;
  const ModelOutcome res = map_layers(layers, hw, o);
  ASSERT_EQ(res.layers.size(), layers.size());
  for (const LayerOutcome& lo : res.layers) ASSERT_TRUE(lo.cost.ok()) << lo.layer.name;
  cost::EvalOptions eo;
  eo.enforce_buffers = true;
  for (const std::string df : {"kcp_ws", "xp_ws", "yxp_os"}) {
    const io::DfslNetwork fixed = io::read_dfsl(dir + "/Resnet50_" + df + ".m");
    ASSERT_EQ(fixed.layers.size(), layers.size());
    int64_t fixed_total = 0, gamma_total = 0;
    int ok = 0;
    mapping::Mapping prev;
    for (size_t i = 0; i < layers.size(); ++i) {
      const mapping::Mapping& m = fixed.layers[i].mapping.empty() ? prev : fixed.layers[i].mapping;
      prev = m;
      const cost::Cost c = cost::evaluate(fixed.layers[i].layer, hw, m, eo);
      if (!c.ok()) continue;
      ++ok;
      fixed_total += c.runtime_cycles;
      gamma_total += res.layers[i].cost.runtime_cycles;
    }
    std::printf("  %s: fixed %lld cycles, GAMMA %lld on the %d layers where %s is feasible\n",
                df.c_str(), static_cast<long long>(fixed_total),
                static_cast<long long>(gamma_total), ok, df.c_str());
    EXPECT_GT(ok, 40);
    EXPECT_LT(gamma_total, fixed_total) << df;
  }
}

TEST(GammaOperators, ChildrenStayInTheUnitCube) {
  const GammaOperators ops(2);
  search::Rng rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const size_t dims = 1 + 2 * MapSpace::kBlock;
  for (int k = 0; k < 2000; ++k) {
    search::Genome a(dims), b(dims);
    for (double& x : a) x = std::min(u(rng), 0.999999);
    for (double& x : b) x = std::min(u(rng), 0.999999);
    search::Genome c = ops.crossover(a, b, rng);
    ops.mutate(c, 0.6, rng);
    ASSERT_EQ(c.size(), dims);
    for (double x : c) {
      ASSERT_GE(x, 0.0);
      ASSERT_LT(x, 1.0);
    }
    ASSERT_NE(c, a);
  }
}

TEST(MappingDb, RoundTrip) {
  const arch::Arch hw = arch::preset("gamma-edge");
  std::vector<Layer> layers = gemm_layers("resnet50");
  layers.resize(4);
  MapperOptions o;
  o.budget = 200;
  const ModelOutcome res = map_layers(layers, hw, o);
  std::vector<DbEntry> db;
  for (const auto& lo : res.layers)
    if (!lo.reused) db.push_back({lo.layer, lo.decoded});
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("mapper_db_" + std::to_string(::getpid()) + ".json"))
                               .string();
  write_mapping_db(db, path);
  const std::vector<DbEntry> back = read_mapping_db(path);
  ASSERT_EQ(back.size(), db.size());
  for (size_t i = 0; i < db.size(); ++i) {
    EXPECT_EQ(back[i].layer, db[i].layer);
    EXPECT_EQ(back[i].decoded.tile, db[i].decoded.tile);
  }
  std::filesystem::remove(path);
  EXPECT_THROW(read_mapping_db(path), InputError);
}

// Found by fuzz/mapping_db_fuzz: a float where an integer belongs (a tile of 2^64, a dimension
// of 1e19) was converted by get<int64_t>() with undefined behaviour (UBSan under
// make test-sanitize); a stride with one value read past the array. All are InputError now.
TEST(MappingDb, NonIntegersAndShortArraysAreInputError) {
  MapSpace::Decoded d;
  d.levels = 1;
  d.order[0] = {0, 1, 2, 3, 4, 5};
  d.tile[0] = {1, 1, 1, 1, 1, 1};
  const std::vector<DbEntry> db = {{workload::gemm("g", 8, 4, 6), d}};
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("mapper_bad_db_" + std::to_string(::getpid()) + ".json"))
                               .string();
  write_mapping_db(db, path);
  nlohmann::json good;
  {
    std::ifstream in(path);
    good = nlohmann::json::parse(in);
  }
  ASSERT_EQ(read_mapping_db(path).size(), 1u);
  std::vector<std::pair<std::string, nlohmann::json>> bad;
  bad.emplace_back("tile 2^64", good);
  bad.back().second["mappings"][0]["levels"][0]["tiles"][2] = 18446744073709551616.0;
  bad.emplace_back("dim 1e19", good);
  bad.back().second["mappings"][0]["layer"]["dims"][0] = 1e19;
  bad.emplace_back("cluster 1e300", good);
  bad.back().second["mappings"][0]["levels"][0]["cluster"] = 1e300;
  bad.emplace_back("parallel 2^32 + 1", good);
  bad.back().second["mappings"][0]["levels"][0]["parallel"] = 4294967297LL;
  bad.emplace_back("stride with one value", good);
  bad.back().second["mappings"][0]["layer"]["stride"] = {1};
  bad.emplace_back("order not an array", good);
  bad.back().second["mappings"][0]["levels"][0]["order"] = 3;
  for (const auto& [what, j] : bad) {
    std::ofstream(path) << j.dump();
    EXPECT_THROW(read_mapping_db(path), InputError) << what;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace sparsemap::dse::mapper
