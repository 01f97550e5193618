// Tests of report::run (report/run.h): a tiny report of ResNet-18 against the numbers
// `sparsemap report --model resnet18 --hw maestro-example --budget 20 --codesign-budget 20
// --spmm-shapes 0 --no-profile --json` writes, the injected NonGEMM profiler, the page, and bad
// input.
#include "sparsemap/report/run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sparsemap/error.h"

namespace sparsemap::report {
namespace {

namespace fs = std::filesystem;

Options tiny() {
  Options o;
  o.model = "resnet18";
  o.hw = "maestro-example";
  o.budget = 20;
  o.codesign_budget = 20;
  o.spmm_shapes = 0;
  o.no_profile = true;
  o.out = (fs::temp_directory_path() / "sparsemap_report_run_test.html").string();
  return o;
}

// Counts progress reports by label.
struct Steps : search::Observer {
  std::map<std::string, int> labels;
  void on_progress(const search::Progress& p) override { ++labels[p.label]; }
};

TEST(ReportRun, TinyResnet18MatchesTheCli) {
  Steps steps;
  const Result r = run(tiny(), steps);
  const Report& rep = r.report;
  EXPECT_EQ(rep.model, "resnet18");
  EXPECT_EQ(rep.model_macs, 1814073344);
  EXPECT_EQ(rep.model_params, 11689512);
  EXPECT_EQ(rep.mappings.distinct, 12u);
  EXPECT_EQ(rep.mappings.skipped, 47u);
  EXPECT_EQ(rep.mappings.layers_ok, 20u);
  EXPECT_EQ(rep.mappings.runtime_cycles, 163953313);
  EXPECT_EQ(rep.mappings.layers.at(0).runtime_cycles, 5627160);
  EXPECT_EQ(rep.codesign.best.pes, 96);
  EXPECT_EQ(rep.codesign.best.runtime_cycles, 22902228);
  EXPECT_EQ(rep.codesign.front.size(), 4u);
  EXPECT_EQ(rep.codesign.infeasible, 7);
  EXPECT_TRUE(rep.spmm.rows.empty());
  // No profiler injected: the section says this build has no libtorch (--no-profile or not).
  EXPECT_FALSE(rep.nongemm.available);
  EXPECT_NE(rep.nongemm.why_absent.find("built without libtorch"), std::string::npos);
  EXPECT_GT(steps.labels["mappings"], 0);
  EXPECT_GT(steps.labels["codesign"], 0);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["mappings"]["total"]["runtime_cycles"], 163953313);
  EXPECT_EQ(j["codesign"]["best"]["l2_bytes"], 84736);
  // run() writes nothing; write_outputs() the page.
  fs::remove(r.options.out);
  write_outputs(r);
  std::ifstream in(r.options.out);
  std::stringstream page;
  page << in.rdbuf();
  EXPECT_EQ(page.str(), render_html(rep));
  EXPECT_EQ(page.str().rfind("<!DOCTYPE html>", 0), 0u);
  fs::remove(r.options.out);
}

TEST(ReportRun, TheProfilerIsCalledUnlessNoProfile) {
  Options o = tiny();
  o.model = "ncf";
  o.codesign_budget = 4;
  int calls = 0;
  o.profiler = [&calls](const Options& a, const std::string& name, search::Observer&) {
    ++calls;
    NongemmMeasured n;
    n.why_absent = "asked for " + a.model + " (" + name + ")";
    return n;
  };
  search::Observer quiet;
  EXPECT_EQ(run(o, quiet).report.nongemm.why_absent,
            "--no-profile was given, so the model was not run in libtorch.");
  EXPECT_EQ(calls, 0);
  o.no_profile = false;
  const Result r = run(o, quiet);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.report.nongemm.why_absent, "asked for ncf (ncf)");
  EXPECT_FALSE(r.options.profiler);  // dropped from the result
}

TEST(ReportRun, BadInputIsAnInputError) {
  search::Observer quiet;
  Options o = tiny();
  o.budget = 0;
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny();
  o.hw = "no-such-hw";
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny();
  o.model = "no-such-model";
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny();
  o.spmm_sparsity = "0.5,x";
  EXPECT_THROW(run(o, quiet), InputError);
  o = tiny();
  o.profile_iters = 0;
  EXPECT_THROW(check_options(o), InputError);
  o = tiny();
  o.out = (fs::temp_directory_path() / "sparsemap-no-such-folder" / "x.html").string();
  try {
    check_options(o);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--out creates no folders"), std::string::npos);
  }
  EXPECT_THROW(check_options(tiny(), fs::temp_directory_path().string()), InputError);  // --json
}

}  // namespace
}  // namespace sparsemap::report
