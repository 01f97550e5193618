// Exhaustive enumeration: exactly the product of the levels, in mixed-radix order, the exact
// minimum, repeats of the best afterwards, and its bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "sparsemap/error.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::search {
namespace {

TEST(SearchExhaustive, SpaceSize) {
  EXPECT_EQ(space_size({}), 1);
  EXPECT_EQ(space_size({3, 2, 4}), 24);
  EXPECT_EQ(space_size({1 << 30, 1 << 30, 1 << 30}), -1);  // 2^90 overflows
  EXPECT_EQ(space_size({std::numeric_limits<int64_t>::max(), 1}),
            std::numeric_limits<int64_t>::max());
  EXPECT_THROW(space_size({3, 0}), InputError);
}

TEST(SearchExhaustive, EnumeratesExactlyTheProductGeneZeroFastest) {
  auto opt = make_optimizer("exhaustive", 3, OptimizerOptions{}, {3, 2, 4});
  std::vector<Genome> all;
  for (size_t n : {5, 5, 5, 5, 4}) {
    const std::vector<Genome> xs = opt->ask(n);
    all.insert(all.end(), xs.begin(), xs.end());
    opt->tell(xs, std::vector<double>(n, 1.0));
  }
  ASSERT_EQ(all.size(), 24u);
  EXPECT_EQ(all[0], (Genome{1.0 / 6, 1.0 / 4, 1.0 / 8}));
  EXPECT_EQ(all[1], (Genome{3.0 / 6, 1.0 / 4, 1.0 / 8}));
  EXPECT_EQ(all[3], (Genome{1.0 / 6, 3.0 / 4, 1.0 / 8}));
  EXPECT_EQ(all[23], (Genome{5.0 / 6, 3.0 / 4, 7.0 / 8}));
  std::set<Genome> distinct(all.begin(), all.end());
  EXPECT_EQ(distinct.size(), 24u);
  for (const Genome& g : all) {
    // Each gene decodes back to an integer level: floor(g * levels).
    EXPECT_EQ(g[0] * 3, std::floor(g[0] * 3) + 0.5);
    EXPECT_EQ(g[2] * 4, std::floor(g[2] * 4) + 0.5);
  }
}

TEST(SearchExhaustive, FindsTheExactMinimumThenRepeatsIt) {
  const std::vector<int64_t> levels = {7, 5, 6, 4};
  // A rugged function of the integer levels with its unique minimum at (5, 1, 3, 2).
  auto f = [&](const Genome& g) {
    const int a = int(g[0] * 7), b = int(g[1] * 5), c = int(g[2] * 6), d = int(g[3] * 4);
    return std::abs(a - 5) * 3.0 + std::abs(b - 1) * 2.0 + std::abs(c - 3) + (d != 2) * 0.5 +
           std::sin(a * b + c * d) * 0.1 + 1.0;
  };
  double exact = kInfeasible;
  for (int a = 0; a < 7; ++a)
    for (int b = 0; b < 5; ++b)
      for (int c = 0; c < 6; ++c)
        for (int d = 0; d < 4; ++d)
          exact = std::min(exact, f({(a + 0.5) / 7, (b + 0.5) / 5, (c + 0.5) / 6, (d + 0.5) / 4}));
  auto opt = make_optimizer("exhaustive", 4, OptimizerOptions{}, levels);
  SearchOptions so;
  so.budget = space_size(levels);  // 840
  so.batch = 64;
  const SearchResult r = run_search(*opt, Evaluator(2), f, so);
  EXPECT_EQ(r.samples, 840);
  EXPECT_EQ(r.best_fitness, exact);
  EXPECT_EQ(r.best, (Genome{5.5 / 7, 1.5 / 5, 3.5 / 6, 2.5 / 4}));
  const std::vector<Genome> after = opt->ask(3);  // the space is spent: the best, repeated
  for (const Genome& g : after) EXPECT_EQ(g, r.best);
}

TEST(SearchExhaustive, SaveLoadAndBadLevels) {
  const std::vector<int64_t> levels = {4, 4, 4};
  auto a = make_optimizer("exhaustive", 3, OptimizerOptions{}, levels);
  auto step = [](Optimizer& o, size_t n) {
    const std::vector<Genome> xs = o.ask(n);
    std::vector<double> f;
    for (const Genome& g : xs) f.push_back(std::fabs(g[0] - 0.4) + g[1] + g[2]);
    o.tell(xs, f);
    return xs;
  };
  step(*a, 21);
  auto b = make_optimizer("exhaustive", 3, OptimizerOptions{}, levels);
  b->load(nlohmann::json::parse(a->save().dump()));
  for (size_t n : {20, 30, 5}) EXPECT_EQ(step(*a, n), step(*b, n));
  auto other = make_optimizer("exhaustive", 3, OptimizerOptions{}, {4, 4, 5});
  EXPECT_THROW(other->load(a->save()), InputError);
  EXPECT_THROW(make_optimizer("exhaustive", 3, OptimizerOptions{}, {4, 4}), InputError);
  EXPECT_THROW(make_optimizer("exhaustive", 2, OptimizerOptions{}, {4, 0}), InputError);
  EXPECT_THROW(make_optimizer("exhaustive", 2, OptimizerOptions{}), InputError);
}

TEST(SearchExhaustive, SeedsComeFirst) {
  OptimizerOptions o;
  o.seeds = {{0.9, 0.9}};
  auto opt = make_optimizer("exhaustive", 2, o, {2, 2});
  const std::vector<Genome> xs = opt->ask(5);
  EXPECT_EQ(xs[0], (Genome{0.9, 0.9}));
  EXPECT_EQ(xs[1], (Genome{0.25, 0.25}));
  EXPECT_EQ(xs[4], (Genome{0.75, 0.75}));
}

}  // namespace
}  // namespace sparsemap::search
