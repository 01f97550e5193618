#include "sparsemap/search/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace sparsemap::search {
namespace {

// Every index of every job is run exactly once, job after job on the same threads.
TEST(WorkerPool, RunsEachIndexOncePerJob) {
  WorkerPool pool(3);
  EXPECT_EQ(pool.threads(), 3);
  std::vector<std::atomic<int>> hits(257);
  for (int job = 0; job < 200; ++job) pool.run(hits.size(), [&](size_t i) { ++hits[i]; });
  for (const auto& h : hits) EXPECT_EQ(h.load(), 200);
  pool.run(0, [&](size_t) { FAIL() << "an empty job runs nothing"; });
}

// One thread: the caller runs the job in index order.
TEST(WorkerPool, OneThreadRunsInOrderOnTheCaller) {
  WorkerPool pool(1);
  EXPECT_EQ(pool.threads(), 1);
  std::vector<size_t> order;
  pool.run(5, [&](size_t i) { order.push_back(i); });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

// Jobs handed in from two threads at once are run one after the other, both whole.
TEST(WorkerPool, JobsFromTwoThreadsBothComplete) {
  WorkerPool pool(2);
  std::atomic<long> a{0}, b{0};
  std::thread other([&] {
    for (int k = 0; k < 50; ++k) pool.run(100, [&](size_t i) { a += static_cast<long>(i); });
  });
  for (int k = 0; k < 50; ++k) pool.run(100, [&](size_t i) { b += static_cast<long>(i); });
  other.join();
  EXPECT_EQ(a.load(), 50L * 4950);
  EXPECT_EQ(b.load(), 50L * 4950);
}

}  // namespace
}  // namespace sparsemap::search
