// Tests of HW-mapping co-design: area budget (recomputed independently), buffers cover every
// mapping's needs, DiGamma vs fixed accelerator + GAMMA, determinism, checkpoint/resume, bad
// options.
#include "sparsemap/dse/codesign/codesign.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/error.h"

namespace sparsemap::dse::codesign {
namespace {

using workload::Layer;

// A small CNN: five distinct convolutions and a repeat, plus a classifier.
std::vector<Layer> small_model() {
  return {workload::conv2d("c1", 1, 3, 32, 32, 16, 3, 1, 1),
          workload::conv2d("c2", 1, 16, 32, 32, 32, 3, 2, 1),
          workload::conv2d("c3", 1, 32, 16, 16, 64, 3, 2, 1),
          workload::conv2d("c4", 1, 64, 8, 8, 64, 3, 1, 1),
          workload::conv2d("c4b", 1, 64, 8, 8, 64, 3, 1, 1),
          workload::conv2d("c5", 1, 64, 8, 8, 128, 1, 1, 0),
          workload::fc("fc", 1, 128, 10)};
}

std::shared_ptr<const CodesignSpace> edge_space(BufferMode mode = BufferMode::Need) {
  CodesignOptions o;
  o.area_budget_mm2 = 0.2;
  o.pe_limit = 200;
  o.buffers = mode;
  return std::make_shared<CodesignSpace>(small_model(), arch::preset("gamma-edge"), o);
}

// DiGamma's constants, written out here rather than read from the arch layer:
//   area = (P 282 + 8 (P L1 + L2) 0.086) / 1e6 mm^2.
double independent_area(int64_t pes, int64_t l1, int64_t l2) {
  return (static_cast<double>(pes) * 282.0 +
          8.0 * (static_cast<double>(pes) * static_cast<double>(l1) + static_cast<double>(l2)) *
              0.086) /
         1e6;
}

void expect_fits(const CodesignSpace& sp, const CodesignResult& r) {
  ASSERT_TRUE(r.design.feasible) << r.algo;
  const double area = independent_area(r.design.pes, r.design.l1_bytes, r.design.l2_bytes);
  EXPECT_NEAR(area, r.design.area_mm2, 1e-12) << r.algo;
  EXPECT_LE(area, sp.options().area_budget_mm2) << r.algo;
  EXPECT_LE(r.design.pes, sp.options().pe_limit);
  EXPECT_EQ(r.design.pes % sp.options().pe_step, 0);
  // Every layer's mapping runs on this accelerator with its buffers enforced.
  const arch::Arch hw = sp.arch_for(r.design.pes, r.design.l1_bytes, r.design.l2_bytes);
  cost::EvalOptions eo;
  eo.enforce_buffers = true;
  int64_t runtime = 0;
  for (size_t i = 0; i < sp.model_layers().size(); ++i) {
    const size_t u = sp.layer_index()[i];
    const cost::Cost c = cost::evaluate(sp.model_layers()[i], hw, r.mappings[u], eo);
    ASSERT_TRUE(c.ok()) << r.algo << " layer " << i << ": " << c.reason;
    runtime += c.runtime_cycles;
  }
  EXPECT_EQ(runtime, r.design.runtime_cycles) << r.algo;
}

TEST(Codesign, EveryDesignFitsTheAreaBudget) {
  for (BufferMode mode : {BufferMode::Need, BufferMode::Genes}) {
    auto sp = edge_space(mode);
    for (const std::string& algo : codesign_algos()) {
      if (algo == "bo") continue;  // its GP is the slow one; covered by the CLI table
      RunOptions ro;
      ro.algo = algo;
      ro.budget = 300;
      ro.seed = 3;
      const CodesignResult r = run_codesign(sp, ro);
      EXPECT_EQ(r.samples, 300);
      if (algo == "digamma" || r.design.feasible) expect_fits(*sp, r);
      for (const auto& p : r.pareto) EXPECT_LE(p.first, 0.2);
    }
  }
}

TEST(Codesign, CloudDesignFitsAndUsesTheBudget) {
  CodesignOptions o;
  const Platform p = platform("cloud");
  o.area_budget_mm2 = p.area_budget_mm2;
  o.pe_limit = p.pe_limit;
  o.pe_step = 64;
  auto sp = std::make_shared<CodesignSpace>(small_model(), arch::preset("gamma-edge"), o);
  RunOptions ro;
  ro.budget = 300;
  const CodesignResult r = run_codesign(sp, ro);
  expect_fits(*sp, r);
  for (const auto& a : fixed_grid(*sp)) EXPECT_LE(arch::area_mm2(a), 7.0);
}

TEST(Codesign, BeatsFixedAcceleratorPlusGamma) {
  auto sp = edge_space();
  RunOptions ro;
  ro.budget = 600;
  ro.seed = 1;
  const CodesignResult r = run_codesign(sp, ro);
  const FixedResult f = run_fixed_gamma(*sp, 600, 1, 1);
  EXPECT_EQ(f.grid_points, 9);
  EXPECT_EQ(f.samples_per_layer, 600 / 9);
  ASSERT_TRUE(r.design.feasible);
  ASSERT_TRUE(feasible_fitness(f.fitness));
  EXPECT_LE(arch::area_mm2(f.best_arch), 0.2);
  std::printf(
      "digamma %lld cycles (%lld PEs, L1 %lld B, L2 %lld B); fixed+gamma %lld cycles "
      "(%s)\n",
      static_cast<long long>(r.design.runtime_cycles), static_cast<long long>(r.design.pes),
      static_cast<long long>(r.design.l1_bytes), static_cast<long long>(r.design.l2_bytes),
      static_cast<long long>(f.runtime_cycles), f.best_arch.name.c_str());
  EXPECT_LT(r.design.runtime_cycles, f.runtime_cycles);
}

TEST(Codesign, ComputeBoundIsHandWorkedAndBelowEveryDesign) {
  auto sp = edge_space();
  // 200 PEs: ceil(MACs / 200) of c1 442,368 -> 2,212; c2 and c3 1,179,648 -> 5,899 each; c4 and
  // c4b 2,359,296 -> 11,797 each; c5 524,288 -> 2,622; fc 1,280 -> 7.
  EXPECT_EQ(compute_bound_cycles(*sp), 40233);
  RunOptions ro;
  ro.budget = 100;
  const CodesignResult r = run_codesign(sp, ro);
  ASSERT_TRUE(r.design.feasible);
  EXPECT_GE(r.design.runtime_cycles, 40233);
}

TEST(Codesign, SameSeedSameResultWithOneAndTwoThreads) {
  auto sp = edge_space();
  for (const std::string algo : {"digamma", "de"}) {
    RunOptions ro;
    ro.algo = algo;
    ro.budget = 200;
    ro.seed = 7;
    const CodesignResult a = run_codesign(sp, ro);
    ro.threads = 2;
    auto sp2 = edge_space();  // a fresh memo too
    const CodesignResult b = run_codesign(sp2, ro);
    EXPECT_EQ(a.best, b.best) << algo;
    EXPECT_EQ(a.history, b.history) << algo;
    EXPECT_EQ(a.pareto, b.pareto) << algo;
  }
}

TEST(Codesign, KilledAndResumedEqualsUninterrupted) {
  auto sp = edge_space();
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("codesign_ckpt_" + std::to_string(getpid()) + ".json"))
                               .string();
  std::filesystem::remove(file);
  RunOptions ro;
  ro.budget = 300;
  ro.seed = 5;
  ro.population = 30;
  const CodesignResult full = run_codesign(sp, ro);

  RunOptions killed = ro;
  killed.checkpoint_file = file;
  killed.checkpoint_every = 50;
  killed.progress = [](int64_t samples, double) {
    if (samples >= 170) throw std::runtime_error("killed");
  };
  EXPECT_THROW(run_codesign(edge_space(), killed), std::runtime_error);
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_LT(search::read_checkpoint(file)["result"]["samples"].get<int64_t>(), 300);

  RunOptions resumed = ro;
  resumed.checkpoint_file = file;
  resumed.resume = true;
  const CodesignResult r = run_codesign(edge_space(), resumed);
  EXPECT_EQ(r.best, full.best);
  EXPECT_EQ(r.history, full.history);
  EXPECT_EQ(r.design.runtime_cycles, full.design.runtime_cycles);
  std::filesystem::remove(file);
}

// Issue 19: a checkpoint whose genome was shortened aborted (codesign_space.cpp assertion).
TEST(Codesign, ResumeFromAShortenedGenomeIsAnInputError) {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("codesign_short_" + std::to_string(getpid()) + ".json"))
                               .string();
  RunOptions ro;
  ro.budget = 40;
  ro.population = 20;
  ro.checkpoint_file = file;
  run_codesign(edge_space(), ro);
  nlohmann::json j = search::read_checkpoint(file);
  const size_t dims = j["result"]["best"].size();
  j["result"]["best"].erase(dims - 1);
  search::write_json_atomic(j, file);
  ro.resume = true;
  try {
    run_codesign(edge_space(), ro);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              file + ": bad search result: 'best' has " + std::to_string(dims - 1) +
                  " genes, expected " + std::to_string(dims) + " (a checkpoint of another search)");
  }
  std::filesystem::remove(file);
}

TEST(Codesign, BadOptionsAreInputErrors) {
  EXPECT_THROW(platform("mars"), InputError);
  EXPECT_THROW(parse_buffer_mode("lots"), InputError);
  const arch::Arch base = arch::preset("gamma-edge");
  CodesignOptions o;
  o.area_budget_mm2 = -1;
  EXPECT_THROW(CodesignSpace(small_model(), base, o), InputError);
  o = CodesignOptions{};
  o.pe_limit = 4;  // below the PE step
  EXPECT_THROW(CodesignSpace(small_model(), base, o), InputError);
  o = CodesignOptions{};
  o.area_budget_mm2 = 0.001;  // not even 8 PEs
  EXPECT_THROW(CodesignSpace(small_model(), base, o), InputError);
  o = CodesignOptions{};
  EXPECT_THROW(CodesignSpace({workload::pool2d("p", "max", 1, 8, 8, 8, 2, 2)}, base, o),
               InputError);
  auto sp = edge_space();
  RunOptions ro;
  ro.algo = "hillclimb";
  EXPECT_THROW(run_codesign(sp, ro), InputError);
  ro.algo = "digamma";
  ro.budget = 0;
  EXPECT_THROW(run_codesign(sp, ro), InputError);
  ro.budget = 10;
  ro.resume = true;  // without a checkpoint file
  EXPECT_THROW(run_codesign(sp, ro), InputError);
}

TEST(Codesign, HardwareGenesRoundTrip) {
  auto sp = edge_space(BufferMode::Genes);
  for (int64_t p = 8; p <= 200; p += 8) EXPECT_EQ(sp->pes_of(sp->gene_of_pes(p)), p);
  for (int64_t b : {16, 17, 100, 512, 4000, 65536}) EXPECT_GE(sp->l1_of(sp->gene_of_l1(b)), b);
  for (int64_t b : {1024, 5000, 108000, 1 << 20}) EXPECT_GE(sp->l2_of(sp->gene_of_l2(b)), b);
  EXPECT_EQ(sp->unique_layers(), 6u);  // c4b repeats c4
  EXPECT_EQ(sp->multiplicity(3), 2);
  EXPECT_EQ(sp->dims(), 3 + 6 * sp->map_dims());
}

}  // namespace
}  // namespace sparsemap::dse::codesign
