// Schedules at chosen steps against their formulas; algorithm names and default configs.
#include "sparsemap/ml/prune/schedule.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sparsemap/error.h"
#include "sparsemap/ml/prune/algorithm.h"

namespace sparsemap::ml::prune {
namespace {

TEST(Schedule, NoUpdateNeverUpdatesAndAimsAtTheTarget) {
  const Schedule s = Schedule::no_update();
  for (int64_t step : {0, 1, 100, 100000}) {
    EXPECT_FALSE(s.is_update_step(step));
    EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, step), 0.8);
  }
}

TEST(Schedule, OneShotUpdatesAtItsStepOnly) {
  const Schedule s = Schedule::one_shot(7);
  EXPECT_FALSE(s.is_update_step(0));
  EXPECT_FALSE(s.is_update_step(6));
  EXPECT_TRUE(s.is_update_step(7));
  EXPECT_FALSE(s.is_update_step(8));
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.9, 0), 0.9);
  EXPECT_TRUE(Schedule::one_shot().is_update_step(0));  // SNIP's step
}

TEST(Schedule, PeriodicFollowsFrequencyStartAndEnd) {
  const Schedule s = Schedule::periodic(10, 20, 50);
  for (int64_t step = 0; step <= 70; ++step)
    EXPECT_EQ(s.is_update_step(step), step % 10 == 0 && step >= 20 && step <= 50) << step;
  // JaxPruner's rule is step % freq, not (step - start) % freq.
  EXPECT_FALSE(Schedule::periodic(10, 25, -1).is_update_step(25));
  EXPECT_TRUE(Schedule::periodic(10, 25, -1).is_update_step(1000));  // no end
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, 0), 0.8);
}

TEST(Schedule, PolynomialMatchesItsFormula) {
  // target * (1 - (1 - p)^3), p = clamp(step + 1 - start, 0, end - start) / (end - start).
  const Schedule s = Schedule::polynomial(10, 100, 300);
  auto expected = [](double p) { return 0.8 * (1.0 - std::pow(1.0 - p, 3)); };
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, 0), 0.0);
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, 98), 0.0);
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, 99), 0.0);
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, 100), expected(1.0 / 200));
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, 199), expected(0.5));  // 0.8 * 7/8 = 0.7
  EXPECT_NEAR(s.sparsity_at(0.8, 199), 0.7, 1e-12);
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, 249), expected(0.75));
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, 299), 0.8);
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, 300), 0.8);
  EXPECT_DOUBLE_EQ(s.sparsity_at(0.8, 5000), 0.8);
  EXPECT_TRUE(s.is_update_step(300));
  EXPECT_FALSE(s.is_update_step(310));
  // Power 1 is linear; end == start jumps to the target.
  EXPECT_DOUBLE_EQ(Schedule::polynomial(1, 0, 10, 1).sparsity_at(0.5, 4), 0.25);
  EXPECT_DOUBLE_EQ(Schedule::polynomial(1, 5, 5).sparsity_at(0.5, 0), 0.5);
}

TEST(Schedule, ParsesAndRejects) {
  EXPECT_EQ(parse_schedule("none"), Schedule::no_update());
  EXPECT_EQ(parse_schedule("one-shot"), Schedule::one_shot(0));
  EXPECT_EQ(parse_schedule("one-shot:12"), Schedule::one_shot(12));
  EXPECT_EQ(parse_schedule("periodic:100:0:750"), Schedule::periodic(100, 0, 750));
  EXPECT_EQ(parse_schedule("periodic:100:0"), Schedule::periodic(100, 0, -1));
  EXPECT_EQ(parse_schedule("poly:10:100:300"), Schedule::polynomial(10, 100, 300, 3));
  EXPECT_EQ(parse_schedule("poly:10:100:300:2"), Schedule::polynomial(10, 100, 300, 2));
  for (const Schedule& s : {Schedule::no_update(), Schedule::one_shot(3),
                            Schedule::periodic(5, 1, 9), Schedule::polynomial(2, 4, 8, 2)})
    EXPECT_EQ(parse_schedule(s.str()), s);
  for (const char* bad : {"", "poly", "poly:0:1:2", "poly:1:5:4", "periodic:x:0", "one-shot:-1",
                          "cubic", "poly:1:2:3:4:5", "poly:1:0:10:0"})
    EXPECT_THROW(parse_schedule(bad), InputError) << bad;
}

TEST(Algorithm, NamesRoundTrip) {
  for (Algorithm a : all_algorithms()) EXPECT_EQ(parse_algorithm(algorithm_name(a)), a);
  EXPECT_EQ(all_algorithms().size(), 12u);
  EXPECT_EQ(parse_algorithm("dense"), Algorithm::NoPrune);
  EXPECT_EQ(parse_algorithm("Magnitude-STE"), Algorithm::MagnitudeSte);
  EXPECT_EQ(parse_algorithm("sr-ste"), Algorithm::SrSte);
  try {
    parse_algorithm("lottery");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rigl"), std::string::npos);
  }
}

TEST(Algorithm, DefaultsReachTheTargetOnAnUpdateStep) {
  for (int64_t total : {1, 7, 100, 2350, 23500}) {
    const UpdaterConfig c = default_config(Algorithm::Magnitude, 0.8, total);
    ASSERT_EQ(c.schedule.kind, ScheduleKind::Polynomial);
    EXPECT_TRUE(c.schedule.is_update_step(c.schedule.end_step)) << total;
    EXPECT_TRUE(c.schedule.is_update_step(c.schedule.start_step)) << total;
    EXPECT_LT(c.schedule.end_step, std::max<int64_t>(total, 1)) << total;
    EXPECT_DOUBLE_EQ(c.schedule.sparsity_at(0.8, c.schedule.end_step), 0.8) << total;
    const UpdaterConfig r = default_config(Algorithm::Rigl, 0.8, total);
    EXPECT_EQ(r.schedule.kind, ScheduleKind::Periodic);
    EXPECT_TRUE(r.mask_gradients && r.skip_step_on_update);
    EXPECT_EQ(r.grow, GrowKind::Gradient);
    EXPECT_EQ(default_config(Algorithm::Set, 0.8, total).grow, GrowKind::Random);
  }
  const UpdaterConfig c = default_config(Algorithm::Magnitude, 0.8, 2350);
  EXPECT_EQ(c.schedule, Schedule::polynomial(76, 228, 1748, 3));
}

TEST(Algorithm, CosineDropFraction) {
  UpdaterConfig c = default_config(Algorithm::Set, 0.8, 2000);  // periodic 100, end 1500
  EXPECT_EQ(c.schedule.end_step, 1500);
  EXPECT_DOUBLE_EQ(c.drop_fraction_at(0), 0.3);
  EXPECT_NEAR(c.drop_fraction_at(750), 0.15, 1e-12);
  EXPECT_NEAR(c.drop_fraction_at(1500), 0.0, 1e-12);
  c.cosine_drop = false;
  EXPECT_DOUBLE_EQ(c.drop_fraction_at(750), 0.3);
}

TEST(Algorithm, ValidateRejectsBadCombinations) {
  UpdaterConfig c = default_config(Algorithm::Rigl, 0.8, 100);
  c.type.kind = SparsityKind::Nm;
  EXPECT_THROW(c.validate(), InputError);
  c = default_config(Algorithm::GlobalMagnitude, 0.8, 100);
  c.type.kind = SparsityKind::Block;
  EXPECT_THROW(c.validate(), InputError);
  c = default_config(Algorithm::Magnitude, 1.5, 100);
  EXPECT_THROW(c.validate(), InputError);
}

}  // namespace
}  // namespace sparsemap::ml::prune
