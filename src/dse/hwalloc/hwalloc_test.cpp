// ConfuciuX problem: templates, MAESTRO's area rule and latencies on the reference runs' cached
// states (tests/data/confuciux), the budget, call counting, and the GA's budget discipline.
#include "sparsemap/dse/hwalloc/hwalloc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/hwalloc/methods.h"
#include "sparsemap/io/confuciux_csv.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/io/util.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::dse::hwalloc {
namespace {

std::string data_dir() { return std::string(SPARSEMAP_SOURCE_DIR) + "/tests/data/confuciux/"; }

workload::Layer csv_layer(int64_t k, int64_t c, int64_t y, int64_t x, int64_t r, int64_t s,
                          int64_t t) {
  const std::string text = "K,C,Y,X,R,S,T\n" + std::to_string(k) + "," + std::to_string(c) + "," +
                           std::to_string(y) + "," + std::to_string(x) + "," + std::to_string(r) +
                           "," + std::to_string(s) + "," + std::to_string(t) + "\n";
  return io::parse_confuciux_csv(text, "row.csv").layers.at(0);
}

TEST(HwallocTemplates, EqualTheReferenceMFilesWithConstantsSubstituted) {
  for (const auto& [name, df] : {std::pair{"dla", Dataflow::Dla},
                                 {"shi", Dataflow::Shi},
                                 {"eye", Dataflow::Eye},
                                 {"dpt", Dataflow::Dpt}}) {
    const std::string body = io::read_file(data_dir() + "dataflow/" + name + ".m");
    const std::string text =
        "Constant KTileSz 7;\nConstant CTileSz 1;\nConstant ClusterSz 24;\n"
        "Network n {\nLayer L {\nType: CONV\n"
        "Dimensions { K: 64, C: 64, Y: 56, X: 56, R: 3, S: 3 }\n" +
        body + "\n}\n}\n";
    const io::DfslNetwork net = io::parse_dfsl(text, std::string(name) + ".m");
    EXPECT_EQ(net.layers.at(0).mapping, template_mapping(df, 7, 1, 24)) << name;
  }
}

TEST(HwallocArea, MaestroRuleHandWorked) {
  // 1 PE: bus 101.7938 (14.662 + 28.895) 81,920,000 = 363,219,xxx,xxx dominates.
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", maestro_area(1, 3, 10));
  EXPECT_STREQ(buf, "3.6322e+11");
  std::snprintf(buf, sizeof buf, "%g", maestro_area(128, 3, 10));
  EXPECT_STREQ(buf, "1.5891e+13");
  const double bus = 101.7938 * (14.662 * 4 + 28.895) * 81920000.0;
  const double arb = 395.473 * (1.2886 * 16 + 5.5814 * 4 - 23.711);
  EXPECT_DOUBLE_EQ(maestro_area(4, 100, 1000), 4 * (283 + 10.4) + 104 + bus + arb);
}

struct Fidelity {
  int n = 0, within = 0, exact_area = 0, conv = 0, conv_exact = 0, even = 0, even_exact = 0;
  int dw_mismatch = 0;
};

Fidelity check_table(const std::string& file, Dataflow conv_df) {
  std::ifstream in(data_dir() + file);
  EXPECT_TRUE(in.good()) << file;
  std::string line;
  std::getline(in, line);
  Fidelity f;
  while (std::getline(in, line)) {
    int64_t k, c, y, x, r, s, t, pe, kt;
    long long lat;
    double area;
    if (std::sscanf(line.c_str(), "%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%lld,%lf", &k, &c, &y, &x,
                    &r, &s, &t, &pe, &kt, &lat, &area) != 11)
      continue;
    const workload::Layer layer = csv_layer(k, c, y, x, r, s, t);
    const Dataflow df = t == 2 ? Dataflow::Dpt : conv_df;
    const mapping::Mapping m = template_mapping(df, kt, 1, pe);
    const cost::Cost cc = cost::evaluate(padded_layer(layer, m), confuciux_arch(pe), m);
    EXPECT_TRUE(cc.ok()) << line << ": " << cc.reason;
    ++f.n;
    const double err = std::fabs(double(cc.runtime_cycles) - double(lat)) / double(lat);
    f.within += err <= 0.005;
    char ours[32], theirs[32];
    std::snprintf(ours, sizeof ours, "%g", maestro_area(pe, cc.l1_bytes, cc.l2_bytes));
    std::snprintf(theirs, sizeof theirs, "%g", area);
    f.exact_area += std::string(ours) == theirs;
    if (t == 1) {
      ++f.conv;
      f.conv_exact += cc.runtime_cycles == lat;
    } else if (err > 0.005) {
      ++f.dw_mismatch;
    }
    if (!cost::has_loop_edges(layer, m)) {
      ++f.even;
      f.even_exact += cc.runtime_cycles == lat;
    }
  }
  return f;
}

// Priority 1 of issue 16: latency within 0.5% on >= 99% of the cached states, area exactly (as
// MAESTRO prints it, 6 significant digits). Measured: every CONV state is exact (padded
// edges); 27 depthwise states with a partial spatial fold differ (MAESTRO prices the last
// fold by the remainder tile; see docs/confuciux.md).
TEST(HwallocFidelity, CachedMaestroStatesOfTheReferenceRuns) {
  const Fidelity a = check_table("resnet18_dla_states.csv", Dataflow::Dla);
  const Fidelity b = check_table("mobilenet_v2_shi_states.csv", Dataflow::Shi);
  std::printf("  resnet18/dla: %d states, %d within 0.5%%, area exact %d, even %d (exact %d)\n",
              a.n, a.within, a.exact_area, a.even, a.even_exact);
  std::printf("  mobilenet_v2/shi: %d states, %d within 0.5%%, area exact %d, even %d (exact %d)\n",
              b.n, b.within, b.exact_area, b.even, b.even_exact);
  EXPECT_EQ(a.n, 1883);
  EXPECT_EQ(b.n, 1225);
  EXPECT_EQ(a.exact_area, a.n);
  EXPECT_EQ(b.exact_area, b.n);
  EXPECT_EQ(a.conv_exact, a.conv);  // every CONV state exact
  EXPECT_EQ(b.conv_exact, b.conv);
  EXPECT_EQ(a.even_exact, a.even);  // and every even state (no loop edge)
  EXPECT_EQ(b.even_exact, b.even);
  EXPECT_EQ(a.within, a.n);
  EXPECT_EQ(b.dw_mismatch, 27);
  EXPECT_GE(double(a.within + b.within) / double(a.n + b.n), 0.99);
}

workload::Model model(const std::string& stem) {
  return io::read_confuciux_csv(data_dir() + "models/" + stem + ".csv");
}

Design reference_design(const nlohmann::json& sol, const Problem& p) {
  Design d;
  for (size_t i = 0; i < sol.size(); ++i)
    d.push_back({sol[i][0].get<int64_t>(), sol[i][1].get<int64_t>(), p.dataflows(i)[0]});
  return d;
}

TEST(HwallocProblem, ReferenceBudgetsAndDesigns) {
  const auto ref = nlohmann::json::parse(io::read_file(data_dir() + "reference_designs.json"));
  {
    Problem p(model("resnet18"), ProblemOptions{});
    const auto& r = ref.at("resnet18_dla_area0.5");
    EXPECT_NEAR(p.min_constraint() / r.at("area_min").get<double>(), 1.0, 1e-5);
    EXPECT_NEAR(p.max_constraint() / r.at("area_max").get<double>(), 1.0, 1e-5);
    EXPECT_NEAR(p.budget() / r.at("area_constraint").get<double>(), 1.0, 1e-5);
    EXPECT_EQ(p.calls(), 4 * 11);  // 4 corners x 11 distinct layer shapes
    const DesignCost ga = p.evaluate(reference_design(r.at("ga_best_sol_model_order"), p));
    EXPECT_EQ(ga.latency_cycles, 192534008);  // ConfuciuX's GA best, model order (A-fix)
    EXPECT_TRUE(ga.feasible);
    const DesignCost rl = p.evaluate(reference_design(r.at("rl_best_sol_model_order"), p));
    EXPECT_EQ(rl.latency_cycles, 207857948);
  }
  {
    ProblemOptions o;
    o.dataflow = "shi";
    Problem p(model("mobilenet_v2"), o);
    const auto& r = ref.at("mobilenet_v2_shi_area0.5");
    EXPECT_NEAR(p.budget() / r.at("area_constraint").get<double>(), 1.0, 1e-5);
    const DesignCost ga = p.evaluate(reference_design(r.at("ga_best_sol_model_order"), p));
    std::printf("  mobilenet_v2 GA best in model order: ours %lld, MAESTRO 48,806,762\n",
                static_cast<long long>(ga.latency_cycles));
    EXPECT_NEAR(double(ga.latency_cycles) / 48806762.0, 1.0, 0.005);
  }
}

TEST(HwallocProblem, CallsCountDistinctStatesAndDeploymentAggregates) {
  const auto m = io::parse_confuciux_csv(
      "K,C,Y,X,R,S,T\n16,8,10,10,3,3,1\n16,8,10,10,3,3,1\n1,16,10,10,3,3,2\n", "tiny.csv");
  ProblemOptions o;
  Problem pipe(m, o);
  const int64_t c0 = pipe.calls();  // corners: 4 states x 2 shapes
  EXPECT_EQ(c0, 8);
  Design d = {{4, 2, Dataflow::Dla}, {4, 2, Dataflow::Dla}, {2, 3, Dataflow::Dpt}};
  const DesignCost a = pipe.evaluate(d);
  EXPECT_EQ(pipe.calls(), c0 + 2);  // layers 0 and 1 share a shape and a choice
  const int64_t lk = pipe.lookups();
  EXPECT_EQ(pipe.setup_lookups(), 4 * 3 + 3);  // corners x 3 layers, then the minimum design
  EXPECT_EQ(lk, pipe.setup_lookups() + 3);     // this design: 3 lookups, 2 of them new states
  pipe.evaluate(d);
  EXPECT_EQ(pipe.calls(), c0 + 2);
  EXPECT_EQ(pipe.lookups(), lk + 3);  // cache hits count as lookups
  const LayerCost l0 = pipe.layer_cost(0, d[0]), l2 = pipe.layer_cost(2, d[2]);
  EXPECT_EQ(a.latency_cycles, 2 * l0.latency_cycles + l2.latency_cycles);
  EXPECT_DOUBLE_EQ(a.area, 2 * l0.area + l2.area);
  o.deployment = Deployment::Sequential;
  Problem seq(m, o);
  const DesignCost s = seq.evaluate(d);
  EXPECT_EQ(s.latency_cycles, a.latency_cycles);
  EXPECT_DOUBLE_EQ(s.area, std::max(l0.area, l2.area));
  EXPECT_LT(seq.budget(), pipe.budget());
}

TEST(HwallocGa, EveryDesignMeetsItsBudgetAndRunsAreDeterministic) {
  ProblemOptions o;
  o.fraction = 0.05;
  auto run = [&](uint64_t seed) {
    Problem p(model("alexnet"), o);
    Tracker t;
    Rng rng(seed);
    int64_t designs = 0;
    Budget b;
    b.calls = 400;
    GaState st;
    ga_finetune(p, p.minimum_design(), GaFineTuneOptions{50, 20, 8, 0.5, 0.2}, b, rng, t, designs,
                st, {});
    EXPECT_TRUE(t.has_best);
    // Independent check: re-evaluate the best in a fresh problem.
    Problem q(model("alexnet"), o);
    const DesignCost c = q.evaluate(t.best);
    EXPECT_LE(c.area, q.budget());
    EXPECT_EQ(c.latency_cycles, t.best_cost.latency_cycles);
    return t.best_cost.latency_cycles;
  };
  const int64_t a = run(3), b = run(3);
  EXPECT_EQ(a, b);
}

// Counting lookups (the default), every baseline spends exactly the budget: alexnet's 5 layers
// cost 25 lookups in the constructor (4 corners + the minimum design), then 55 designs of 5
// lookups each = 300. Its schedule is sized to those 55 designs (planned_designs), and a seed
// gives the same run twice.
TEST(HwallocBaselines, SpendTheWholeBudgetCountingLookups) {
  ProblemOptions o;  // cloud (0.5): uniform raw PEs meet the budget about half the time
  for (const char* m : {"random", "sa", "ga", "bo"}) {
    auto run = [&]() {
      Problem p(model("alexnet"), o);
      EXPECT_EQ(p.setup_lookups(), 25);
      Tracker t;
      int64_t designs = 0;
      Budget b;
      b.calls = 300;
      EXPECT_EQ(planned_designs(p, m, b), 55);
      run_baseline(p, m, 1, b, t, designs, nullptr, {}, {});
      EXPECT_EQ(designs, 55) << m;
      EXPECT_EQ(p.lookups(), 300) << m;
      EXPECT_LE(p.calls(), 300) << m;
      EXPECT_TRUE(t.has_best) << m;
      EXPECT_LE(t.best_cost.constraint, p.budget()) << m;
      return std::pair{t.best, p.calls()};
    };
    const auto a = run(), b = run();
    EXPECT_EQ(a, b) << m;
  }
}

// Counting distinct states: the old rules (the budget, the design cap, the stall).
TEST(HwallocBaselines, RandomAndSaStayWithinBudgetCountingStates) {
  ProblemOptions o;
  for (const char* m : {"random", "sa", "ga"}) {
    Problem p(model("alexnet"), o);
    Tracker t;
    int64_t designs = 0;
    Budget b;
    b.calls = 300;
    b.count = BudgetCount::States;
    run_baseline(p, m, 1, b, t, designs, nullptr, {}, {});
    EXPECT_LE(designs, b.designs_limit()) << m;
    if (std::string(m) == "random") {
      EXPECT_GE(p.calls(), 300);
    }
    // Stops inside a batch: only the last design's own new states (alexnet: 5 layers) overshoot.
    EXPECT_LE(p.calls(), 300 + 5) << m;
    EXPECT_GT(p.lookups(), p.calls()) << m;
    ASSERT_TRUE(t.has_best) << m;
    EXPECT_LE(t.best_cost.constraint, p.budget()) << m;
  }
}

// Baselines decode genes to ConfuciuX's GA space: raw PEs in [1, 128], KTileSz in [1, 12].
TEST(HwallocBaselines, GenesDecodeToRawValues) {
  ProblemOptions o;
  o.dataflow = "mixed";
  const auto m =
      io::parse_confuciux_csv("K,C,Y,X,R,S,T\n16,8,10,10,3,3,1\n1,16,10,10,3,3,2\n", "two.csv");
  Problem p(m, o);
  const double lo[3] = {0, 0, 0}, hi[3] = {search::kGeneMax, search::kGeneMax, search::kGeneMax},
               mid[3] = {0.5, 0.5, 0.5}, odd[3] = {0.3, 0.99, 0.4};
  EXPECT_EQ(choice_from_genes(p, 0, lo), (LayerChoice{1, 1, Dataflow::Dla}));
  EXPECT_EQ(choice_from_genes(p, 0, hi), (LayerChoice{128, 12, Dataflow::Eye}));
  EXPECT_EQ(choice_from_genes(p, 0, mid), (LayerChoice{65, 7, Dataflow::Shi}));
  EXPECT_EQ(choice_from_genes(p, 0, odd), (LayerChoice{39, 12, Dataflow::Shi}));  // 38.4, 11.88
  EXPECT_EQ(choice_from_genes(p, 1, hi), (LayerChoice{128, 12, Dataflow::Dpt}));  // depthwise
}

TEST(HwallocCsv, ReadsEveryModelFileAndRefusesBadInput) {
  for (const char* stem :
       {"alexnet", "densenet", "example", "googlenet", "mnasnet", "mobilenet_v2", "resnet18",
        "resnet50", "resnext50_32x4d", "shufflenet_v2", "squeezenet", "vgg16", "wide_resnet50"}) {
    const auto m = model(stem);
    EXPECT_FALSE(m.layers.empty()) << stem;
    EXPECT_EQ(m.name, stem);
  }
  EXPECT_EQ(model("resnet18").layers.size(), 20u);
  EXPECT_EQ(model("mobilenet_v2").layers.size(), 52u);
  try {
    io::parse_confuciux_csv("K,C,Y,X,R,S,T\n64,3,224,224,7,7,1\n64,64,56,56,3,3,3\n", "m.csv");
    FAIL() << "T = 3 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.where().column, 17);
  }
  EXPECT_THROW(io::parse_confuciux_csv("K,C,Y,X,R,S,T\n64,3,x,224,7,7,1\n", "m.csv"), InputError);
  EXPECT_THROW(io::parse_confuciux_csv("", "m.csv"), InputError);
  EXPECT_THROW(io::read_confuciux_csv("/nonexistent.csv"), InputError);
}

}  // namespace
}  // namespace sparsemap::dse::hwalloc
