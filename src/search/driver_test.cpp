// The driver: evaluator splits, exact budgets, history, checkpoints and resume, bad input.
#include "sparsemap/search/driver.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <stdexcept>

#include "sparsemap/error.h"

namespace sparsemap::search {
namespace {

double sphere(const Genome& x) {
  double s = 0;
  for (double v : x) s += (v - 0.3) * (v - 0.3);
  return s;
}

// This process's scratch folder in the temp directory, removed after the last test.
std::filesystem::path temp_dir() {
  return std::filesystem::temp_directory_path() /
         ("sparsemap_search_test_" + std::to_string(::getpid()));
}

std::string temp_path(const std::string& name) {
  const auto dir = temp_dir();
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

class RemoveTempDir : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir(), ec);
  }
};
[[maybe_unused]] ::testing::Environment* const kRemoveTempDir =
    ::testing::AddGlobalTestEnvironment(new RemoveTempDir);

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SearchEvaluator, ResultIndependentOfThreads) {
  Rng rng(7);
  std::vector<Genome> xs(101, Genome(4));
  for (Genome& g : xs)
    for (double& v : g) v = std::uniform_real_distribution<double>(0, 1)(rng);
  const std::vector<double> one = Evaluator(1).evaluate(xs, sphere);
  ASSERT_EQ(one.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(one[i], sphere(xs[i]));
  EXPECT_EQ(Evaluator(2).evaluate(xs, sphere), one);
  EXPECT_EQ(Evaluator(5).evaluate(xs, sphere), one);
  EXPECT_EQ(Evaluator(0).threads(), 1);
  EXPECT_TRUE(Evaluator(3).evaluate({}, sphere).empty());
}

TEST(SearchEvaluator, RethrowsTheLowestFailingIndex) {
  std::vector<Genome> xs;
  for (int i = 0; i < 40; ++i) xs.push_back({double(i)});
  auto f = [](const Genome& g) -> double {
    if (g[0] == 17 || g[0] == 31) throw std::runtime_error("bad " + std::to_string(int(g[0])));
    return g[0];
  };
  for (int threads : {1, 3}) {
    try {
      Evaluator(threads).evaluate(xs, f);
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "bad 17");
    }
  }
}

// Items made one by one and evaluated as they come: the same values on 1 and 3 threads, each
// item evaluated once and only after it was made; the maker's exception comes back.
TEST(SearchEvaluator, StreamedEqualsMadeFirst) {
  for (int threads : {1, 3}) {
    const Evaluator eval(threads, false);
    std::vector<double> items;
    items.reserve(200);
    std::atomic<int> early{0}, calls{0};
    std::atomic<size_t> ready{0};
    const std::vector<double> f = eval.evaluate_streamed(
        200,
        [&](const std::function<void(size_t)>& made) {
          for (size_t i = 0; i < 200; ++i) {
            items.push_back(static_cast<double>(i * i));
            ready.store(i + 1);
            made(i);
          }
        },
        [&](size_t i) {
          ++calls;
          if (ready.load() <= i) ++early;
          return items[i] + 1;
        });
    ASSERT_EQ(f.size(), 200u) << threads;
    for (size_t i = 0; i < 200; ++i) EXPECT_EQ(f[i], static_cast<double>(i * i) + 1) << threads;
    EXPECT_EQ(calls.load(), 200) << threads;
    EXPECT_EQ(early.load(), 0) << threads;
    EXPECT_THROW(eval.evaluate_streamed(
                     5, [](const std::function<void(size_t)>&) { throw std::runtime_error("x"); },
                     [](size_t) { return 0.0; }),
                 std::runtime_error)
        << threads;
  }
}

TEST(SearchRun, ExactBudgetAndHistory) {
  OptimizerOptions o;
  o.seed = 3;
  auto opt = make_optimizer("random", 3, o);
  std::mutex m;
  std::vector<double> seen;
  auto f = [&](const Genome& g) {
    std::lock_guard<std::mutex> lock(m);
    seen.push_back(sphere(g));
    return seen.back();
  };
  SearchOptions so;
  so.budget = 130;
  so.batch = 64;
  std::vector<int64_t> progress;
  so.progress = [&](int64_t s, double) { progress.push_back(s); };
  const SearchResult r = run_search(*opt, Evaluator(1), f, so);
  EXPECT_EQ(r.samples, 130);
  EXPECT_EQ(seen.size(), 130u);
  EXPECT_EQ(progress, (std::vector<int64_t>{64, 128, 130}));  // asks of 64, 64, 2
  ASSERT_EQ(r.history.size(), 130u);
  double best = kInfeasible;
  for (size_t i = 0; i < seen.size(); ++i) {
    best = std::min(best, seen[i]);
    EXPECT_EQ(r.history[i], best);
  }
  EXPECT_EQ(r.best_fitness, best);
  EXPECT_EQ(sphere(r.best), best);
}

TEST(SearchRun, NonFiniteFitnessIsInfeasible) {
  OptimizerOptions o;
  auto opt = make_optimizer("random", 2, o);
  SearchOptions so;
  so.budget = 10;
  so.batch = 4;
  const SearchResult r = run_search(
      *opt, Evaluator(1), [](const Genome&) { return std::nan(""); }, so);
  for (double h : r.history) EXPECT_EQ(h, kInfeasible);
  EXPECT_EQ(r.best.size(), 2u);
}

TEST(SearchResultJson, SamplesToWithinAndJson) {
  SearchResult r;
  r.history = {kInfeasible, 10, 10, 6, 5.2, 5.2, 5};
  r.samples = 7;
  r.best_fitness = 5;
  r.best = {0.25, 0.5};
  EXPECT_EQ(r.samples_to_within(5, 0.05), 5);  // 5.2 <= 5.25
  EXPECT_EQ(r.samples_to_within(5, 0.0), 7);
  EXPECT_EQ(r.samples_to_within(4, 0.05), -1);
  EXPECT_EQ(r.samples_to_within(100, 0.0), 2);
  const SearchResult back = SearchResult::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(back.history, r.history);
  EXPECT_EQ(back.best, r.best);
  EXPECT_EQ(back.best_fitness, r.best_fitness);
  EXPECT_EQ(back.samples, r.samples);
  nlohmann::json bad = r.to_json();
  bad["samples"] = 6;
  EXPECT_THROW(SearchResult::from_json(bad), InputError);
}

struct Killed {};

// Kills the run (by throwing from the progress callback) once `at` samples are done.
SearchResult run(const std::string& name, const std::string& checkpoint, int64_t kill_at,
                 const nlohmann::json* resume) {
  OptimizerOptions o;
  o.seed = 11;
  o.budget = 300;
  o.ga.population = 20;
  o.bo.candidates = 256;                                   // keeps BO's 3 x 300 samples fast
  auto opt = make_optimizer(name, 5, o, {3, 3, 3, 3, 3});  // levels: for "exhaustive" (243)
  SearchOptions so;
  so.budget = 300;
  so.batch = 32;
  so.checkpoint_file = checkpoint;
  so.checkpoint_every = 100;
  so.checkpoint_context = {{"layer", 3}};
  if (kill_at > 0)
    so.progress = [kill_at](int64_t s, double) {
      if (s >= kill_at) throw Killed{};
    };
  return run_search(*opt, Evaluator(2), sphere, so, resume);
}

TEST(SearchRun, CheckpointResumeEqualsUninterrupted) {
  for (const std::string& name : optimizer_names()) {
    SCOPED_TRACE(name);
    const SearchResult full = run(name, "", 0, nullptr);
    const std::string path = temp_path("ckpt_" + name + ".json");
    std::filesystem::remove(path);
    EXPECT_THROW(run(name, path, 160, nullptr), Killed);
    const nlohmann::json ckpt = read_checkpoint(path);
    EXPECT_EQ(ckpt["result"]["samples"], 128);  // written after the batch that crossed 100
    EXPECT_EQ(ckpt["context"]["layer"], 3);
    const SearchResult resumed = run(name, path, 0, &ckpt);
    EXPECT_EQ(resumed.samples, 300);
    EXPECT_EQ(resumed.history, full.history);
    EXPECT_EQ(resumed.best, full.best);
    EXPECT_EQ(resumed.best_fitness, full.best_fitness);
    // The final checkpoint holds the whole result.
    EXPECT_EQ(SearchResult::from_json(read_checkpoint(path)["result"]).history, full.history);
  }
}

// The real thing: a child process is killed with SIGKILL in the middle of a batch (after
// checkpoints at 96 and 192 samples); resuming from its checkpoint file ends exactly like an
// uninterrupted run.
TEST(SearchRun, KilledProcessResumesExactly) {
  for (const std::string name : {"ga", "cmaes", "sa"}) {
    SCOPED_TRACE(name);
    const std::string path = temp_path("killed_" + name + ".json");
    std::filesystem::remove(path);
    auto search = [&](const nlohmann::json* resume, int64_t kill_at) {
      OptimizerOptions o;
      o.seed = 77;
      o.budget = 320;
      o.ga.population = 30;
      auto opt = make_optimizer(name, 4, o);
      SearchOptions so;
      so.budget = 320;
      so.batch = 32;
      so.checkpoint_file = resume || kill_at ? path : "";
      so.checkpoint_every = 90;
      int64_t calls = 0;
      auto f = [&](const Genome& g) {
        if (kill_at && ++calls == kill_at) ::kill(::getpid(), SIGKILL);
        return sphere(g);
      };
      return run_search(*opt, Evaluator(1), f, so, resume);
    };
    const SearchResult full = search(nullptr, 0);
    std::fflush(nullptr);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      search(nullptr, 210);  // killed inside the 7th batch
      std::_Exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    const nlohmann::json ckpt = read_checkpoint(path);
    EXPECT_EQ(ckpt["result"]["samples"], 192);
    const SearchResult resumed = search(&ckpt, 0);
    EXPECT_EQ(resumed.history, full.history);
    EXPECT_EQ(resumed.best, full.best);
  }
}

TEST(SearchRun, ResumeChecksTheCheckpointFits) {
  const std::string path = temp_path("ckpt_fit.json");
  run("ga", path, 0, nullptr);
  const nlohmann::json ckpt = read_checkpoint(path);
  EXPECT_NE(error_of([&] { run("random", "", 0, &ckpt); }).find("not 'random'"), std::string::npos);
  nlohmann::json other_batch = ckpt;
  other_batch["batch"] = 16;
  EXPECT_NE(error_of([&] { run("ga", "", 0, &other_batch); }).find("batch 16"), std::string::npos)
      << error_of([&] { run("ga", "", 0, &other_batch); });
}

// Issue 19: a checkpoint whose best genome was shortened aborted the formulation that decoded
// it (an assertion in map_space.cpp / codesign_space.cpp); the driver now refuses it.
TEST(SearchRun, ResumeChecksTheBestGenomeAndTheBudget) {
  const std::string path = temp_path("ckpt_best.json");
  run("ga", path, 0, nullptr);
  const nlohmann::json ckpt = read_checkpoint(path);
  nlohmann::json shorter = ckpt;
  shorter["result"]["best"].erase(shorter["result"]["best"].size() - 1);
  EXPECT_EQ(error_of([&] { run("ga", "", 0, &shorter); }),
            "<checkpoint>: bad search result: 'best' has 4 genes, expected 5 (a checkpoint of "
            "another search)");
  nlohmann::json outside = ckpt;
  outside["result"]["best"][0] = 7.5;
  EXPECT_EQ(error_of([&] { run("ga", "", 0, &outside); }),
            "<checkpoint>: bad search result: 'best' holds a gene outside [0, 1]");
  // A gene outside [0, 1] in the optimiser's own state (here GA's population) is refused too.
  nlohmann::json state = ckpt;
  ASSERT_FALSE(state["optimizer"]["state"]["population"].empty());
  state["optimizer"]["state"]["population"][0]["x"][0] = 1e300;
  EXPECT_EQ(error_of([&] { run("ga", "", 0, &state); }),
            "<checkpoint>: bad optimiser state: 'population' holds a gene outside [0, 1]");
  // "best": "x" in a file: one line naming the file, no json.exception text.
  nlohmann::json x = ckpt;
  x["result"]["best"] = "x";
  const std::string xfile = temp_path("ckpt_x.json");
  write_text(xfile, x.dump());
  EXPECT_EQ(error_of([&] { read_checkpoint(xfile); }),
            xfile + ": bad search result: 'best' is not an array");
  // A directory says so.
  const std::string dir = temp_path("a_directory");
  std::filesystem::create_directories(dir);
  EXPECT_EQ(error_of([&] { read_checkpoint(dir); }),
            dir + ": cannot read: is a directory, expected a file");
  // A budget that would need gigabytes of history is refused before anything is allocated.
  auto opt = make_optimizer("random", 3, OptimizerOptions{});
  SearchOptions so;
  so.budget = kMaxBudget + 1;
  EXPECT_EQ(error_of([&] { run_search(*opt, Evaluator(1), sphere, so); }),
            "<flag --budget>: expected at most 100000000 samples, found 100000001");
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST(SearchCheckpoint, BadFilesNameTheFile) {
  const std::string missing = temp_path("missing.json");
  EXPECT_NE(error_of([&] { read_checkpoint(missing); }).find(missing), std::string::npos);
  const std::string garbage = temp_path("garbage.json");
  write_text(garbage, "{ not json");
  EXPECT_EQ(error_of([&] { read_checkpoint(garbage); }),
            garbage + ":1:4: invalid JSON; expected a search checkpoint");
  const std::string other = temp_path("other.json");
  write_text(other, R"({"format": "something-else"})");
  EXPECT_NE(error_of([&] { read_checkpoint(other); }).find("not a search checkpoint"),
            std::string::npos);
  const std::string truncated = temp_path("truncated.json");
  write_text(truncated,
             R"({"format": "sparsemap-search-checkpoint", "version": 1, "batch": 4,
                 "optimizer": {}, "result": {"samples": 2, "best_fitness": 1,
                 "best": [0.5], "history": [1]}})");
  EXPECT_NE(error_of([&] { read_checkpoint(truncated); }).find("'history' has 1 entries"),
            std::string::npos);
  const std::string bad_state = temp_path("bad_state.json");
  write_text(bad_state,
             R"({"format": "sparsemap-search-checkpoint", "version": 1, "batch": 32,
                 "optimizer": {"name": "ga", "rng": "x"}, "result": {"samples": 0,
                 "best_fitness": 1e300, "best": [], "history": []}})");
  const nlohmann::json j = read_checkpoint(bad_state);  // the envelope is fine ...
  EXPECT_THROW(run("ga", "", 0, &j), InputError);       // ... the optimiser state is not
}

TEST(SearchCheckpoint, WriteIsAtomicAndReportsFailures) {
  const std::string path = temp_path("atomic.json");
  write_json_atomic({{"a", 1}}, path);
  write_json_atomic({{"a", 2}}, path);
  std::ifstream in(path);
  EXPECT_EQ(nlohmann::json::parse(in)["a"], 2);
  const auto dir = std::filesystem::path(path).parent_path();
  for (const auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
  EXPECT_NE(error_of([] {
              write_json_atomic({}, "/nonexistent-dir/x.json");
            }).find("/nonexistent-dir/x.json: cannot write"),
            std::string::npos);
}

TEST(SearchFactory, UnknownNameIsInputError) {
  OptimizerOptions o;
  EXPECT_NE(error_of([&] { make_optimizer("simplex", 3, o); }).find("unknown optimiser 'simplex'"),
            std::string::npos);
  o.seeds = {{0.5, 0.5}};
  EXPECT_NE(error_of([&] { make_optimizer("ga", 3, o); }).find("has 2 genes, expected 3"),
            std::string::npos);
  EXPECT_EQ(optimizer_names().front(), "ga");
  EXPECT_EQ(optimizer_names().size(), 9u);
}

// Found by fuzz/search_checkpoint_fuzz: a number too large for a double is the JSON parser's
// out_of_range, not a parse_error, and escaped read_checkpoint as a raw json.exception.
TEST(SearchCheckpoint, HugeNumberIsInputError) {
  const std::string huge = temp_path("huge.json");
  write_text(huge, R"({"format": "sparsemap-search-checkpoint", "version": 1e99999})");
  EXPECT_EQ(error_of([&] { read_checkpoint(huge); }).rfind(huge + ": ", 0), 0u);
  std::filesystem::remove(huge);
}

}  // namespace
}  // namespace sparsemap::search
