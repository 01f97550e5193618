// MPI: the session is a no-op outside mpirun; under `mpirun -np 2` (ctest search_mpi_np2) the
// split evaluation gives exactly the single-process result.
#include "sparsemap/search/mpi.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "sparsemap/search/driver.h"

namespace sparsemap::search {
namespace {

// One session for the whole test binary: MPI is initialised before the first test (only under
// mpirun) and finalised after the last.
class MpiEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { session = std::make_unique<MpiSession>(); }
  void TearDown() override { session.reset(); }
  static inline std::unique_ptr<MpiSession> session;
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

double sphere(const Genome& x) {
  double s = 0;
  for (double v : x) s += (v - 0.3) * (v - 0.3);
  return s;
}

TEST(SearchMpi, SessionOutsideMpirunIsRankZeroOfOne) {
  if (launched_by_mpirun()) GTEST_SKIP() << "running under mpirun";
  const MpiSession& s = *MpiEnvironment::session;
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.size(), 1);
  EXPECT_TRUE(s.is_root());
  EXPECT_EQ(mpi_size(), 1);
  EXPECT_EQ(mpi_allgather({1.5, 2.5}, {2}), (std::vector<double>{1.5, 2.5}));
}

TEST(SearchMpi, TwoRanksGiveTheSingleProcessResult) {
  const MpiSession& s = *MpiEnvironment::session;
  if (s.size() == 1) {
    // Under mpirun a size of 1 means MPI did not come up: that must not pass silently.
    ASSERT_FALSE(launched_by_mpirun()) << "launched by mpirun, yet MPI reports one rank";
    GTEST_SKIP() << "needs mpirun -np 2 (ctest search_mpi_np2)";
  }
  EXPECT_EQ(s.size(), 2);
  EXPECT_EQ(s.is_root(), s.rank() == 0);
  for (const std::string name : {"ga", "random", "de", "cmaes"}) {
    SCOPED_TRACE(name);
    OptimizerOptions o;
    o.seed = 5;
    o.budget = 250;
    o.ga.population = 30;
    SearchOptions so;
    so.budget = 250;
    so.batch = 30;  // 250 = 8 x 30 + 10: odd slices too
    std::atomic<int> calls{0};
    auto counted = [&](const Genome& g) {
      ++calls;
      return sphere(g);
    };
    auto split_opt = make_optimizer(name, 5, o);
    const SearchResult split = run_search(*split_opt, Evaluator(2, true), counted, so);
    const int split_calls = calls.exchange(0);
    auto single_opt = make_optimizer(name, 5, o);
    const SearchResult single = run_search(*single_opt, Evaluator(1, false), counted, so);
    EXPECT_EQ(calls.load(), 250);
    EXPECT_EQ(split_calls, 125);  // this rank evaluated its half of every batch
    EXPECT_EQ(split.history, single.history);
    EXPECT_EQ(split.best, single.best);
    // Every rank holds every fitness: the ranks' results agree.
    const std::vector<double> mine = {split.best_fitness, double(split.samples)};
    const std::vector<double> all = mpi_allgather(mine, {2, 2});
    EXPECT_EQ(all[0], all[2]);
    EXPECT_EQ(all[1], all[3]);
  }
}

}  // namespace
}  // namespace sparsemap::search
