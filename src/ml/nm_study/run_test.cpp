// ml::nm_study::run, `sparsemap nm-study` as a library call, on a tiny grid (char-gpt, dense and
// ste at 2:4 and 1:4, 2 steps; skipped where Debian's bible-kjv is not installed): the numbers of
// `sparsemap nm-study --quick --models char-gpt --recipes dense,ste --ratios 2:4,1:4
// --gpt-steps 2`, the progress and notes it reports, a rerun that finds every cell done, bad
// options and other settings as InputError, and a stop asked by the observer as Cancelled.
#include "sparsemap/ml/nm_study/run.h"

#include <gtest/gtest.h>

#include <vector>

#include "sparsemap/error.h"
#include "support/temp_dir.h"

namespace sparsemap::ml::nm_study {
namespace {

Options tiny(const testing::TempDir& dir) {
  Options o;
  o.quick = true;
  o.models = "char-gpt";
  o.recipes = "dense,ste";
  o.ratios = "2:4,1:4";
  o.gpt_steps = 2;
  o.results = (dir.path / "nm.json").string();
  return o;
}

struct Recorder : search::Observer {
  std::vector<search::Progress> seen;
  std::vector<std::string> notes;
  void on_progress(const search::Progress& p) override { seen.push_back(p); }
  void on_note(const std::string& text) override { notes.push_back(text); }
};

TEST(NmStudyRun, TinyGridNumbers) {
  const testing::TempDir dir("nm_study_run");
  Recorder obs;
  const Result r = run(tiny(dir), obs);
  const nlohmann::json& cells = r.results["cells"];
  for (const auto& [key, cell] : cells.items())
    if (cell.contains("error") &&
        cell["error"].get<std::string>().find("bible-kjv") != std::string::npos)
      GTEST_SKIP() << "the King James text is not installed (Debian: bible-kjv)";
  EXPECT_EQ(r.grid, 3u);  // dense once, ste at each ratio
  EXPECT_EQ(r.ran, 3);
  EXPECT_EQ(r.recipes, std::vector<std::string>({"dense", "ste"}));
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_NEAR(cells["char-gpt/dense/-/1"]["metric"].get<double>(), 3.7684878294171735, 1e-6);
  EXPECT_NEAR(cells["char-gpt/ste/2:4/1"]["metric"].get<double>(), 3.930126847082985, 1e-6);
  EXPECT_NEAR(cells["char-gpt/ste/1:4/1"]["metric"].get<double>(), 4.055646345037669, 1e-6);
  EXPECT_DOUBLE_EQ(cells["char-gpt/ste/2:4/1"]["training_flops"].get<double>(), 1911029760.0);
  EXPECT_DOUBLE_EQ(cells["char-gpt/ste/1:4/1"]["dense_training_flops"].get<double>(), 2917662720.0);
  const Stat& s = r.table.at("char-gpt").at("ste").at("1:4");
  EXPECT_EQ(s.n, 1);
  EXPECT_NEAR(s.mean, 4.055646345037669, 1e-6);
  EXPECT_DOUBLE_EQ(s.flops, 1407713280.0 / 2917662720.0);
  EXPECT_EQ(s.spread, 0);
  EXPECT_EQ(to_json(r), r.results);
  EXPECT_EQ(r.results["settings"],
            nlohmann::json({{"quick", true}, {"vit_epochs", 3}, {"gpt_steps", 2}}));
  // One report before each cell, one note after it.
  ASSERT_EQ(obs.seen.size(), 3u);
  EXPECT_EQ(obs.seen[1].item, 1u);
  EXPECT_EQ(obs.seen[1].items, 3u);
  EXPECT_EQ(obs.seen[1].label, "char-gpt/ste/2:4/1");
  ASSERT_EQ(obs.notes.size(), 3u);
  EXPECT_EQ(obs.notes[0].rfind("3.7685 in ", 0), 0u) << obs.notes[0];

  // A rerun finds every cell in the results file.
  Recorder again;
  const Result r2 = run(tiny(dir), again);
  EXPECT_EQ(r2.ran, 0);
  EXPECT_TRUE(again.seen.empty());
  EXPECT_EQ(r2.results["cells"], cells);
  // Other settings are refused rather than mixed in.
  Options other = tiny(dir);
  other.gpt_steps = 3;
  EXPECT_THROW(run(other, again), InputError);
}

TEST(NmStudyRun, BadOptionIsInputError) {
  const testing::TempDir dir("nm_study_run");
  search::Observer quiet;
  Options o = tiny(dir);
  o.models = "nope";
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny(dir);
  o.ratios = "9:4";
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny(dir);
  o.seeds = 11;
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny(dir);
  o.results = dir.write("bad.json", "[1, 2]");
  EXPECT_THROW(run(o, quiet), InputError);
}

TEST(NmStudyRun, CancelledByTheObserver) {
  const testing::TempDir dir("nm_study_run");
  struct Stop : search::Observer {
    bool cancelled() override { return true; }
  } stop;
  EXPECT_THROW(run(tiny(dir), stop), search::Cancelled);
  EXPECT_FALSE(std::filesystem::exists(dir.path / "nm.json"));  // stopped before the first cell
}

}  // namespace
}  // namespace sparsemap::ml::nm_study
