// No shell anywhere: arguments reach programs verbatim, and plot paths with quotes, spaces, ';'
// and '$' render where they say.
#include "sparsemap/plot/gnuplot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sparsemap/error.h"
#include "sparsemap/plot/subprocess.h"
#include "support/temp_dir.h"

namespace sparsemap::plot {
namespace {

namespace fs = std::filesystem;

struct TempDir : testing::TempDir {
  TempDir() : testing::TempDir("gnuplot_test") {}
};

TEST(Gnuplot, QuotesByGnuplotRules) {
  EXPECT_EQ(gnuplot_quote("plain.png"), "'plain.png'");
  EXPECT_EQ(gnuplot_quote("it's here/out.png"), "'it''s here/out.png'");
  EXPECT_EQ(gnuplot_quote("x';system('touch P');'.png"), "'x'';system(''touch P'');''.png'");
  EXPECT_EQ(gnuplot_quote("a\\b\"c$d`e"), "'a\\b\"c$d`e'");  // nothing else is special in '...'
  EXPECT_EQ(gnuplot_quote("two\nlines"), "'two lines'");     // a newline would end the command
}

TEST(Gnuplot, PlotPaths) {
  EXPECT_TRUE(is_plot_path("a.png"));
  EXPECT_TRUE(is_plot_path("dir/a b.svg"));
  EXPECT_FALSE(is_plot_path(".png"));
  EXPECT_FALSE(is_plot_path("a.pdf"));
  EXPECT_EQ(gnuplot_header("o.svg", 640, 480),
            "set terminal svg size 640,480\nset output 'o.svg'\n");
}

TEST(Subprocess, ArgumentsReachTheProgramVerbatim) {
  const std::string hostile = "x';touch PWNED;'$(id)`id` \"q\" ; $HOME";
  const ProcessResult r = run_program({"printf", "%s|%s", hostile, "second"}, "", true);
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_EQ(r.out, hostile + "|second");
  EXPECT_FALSE(fs::exists("PWNED"));
}

TEST(Subprocess, FeedsStandardInputAndReportsStatus) {
  std::string big(300000, 'a');  // larger than a pipe's buffer both ways
  const ProcessResult r = run_program({"cat"}, big, true);
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_EQ(r.out.size(), big.size());
  EXPECT_EQ(run_program({"false"}).exit_status, 1);
  const ProcessResult early = run_program({"true"}, big);  // exits without reading: no SIGPIPE
  EXPECT_EQ(early.exit_status, 0);
  const ProcessResult missing = run_program({"sparsemap-no-such-program"});
  EXPECT_EQ(missing.exit_status, -1);
  EXPECT_NE(missing.err.find("not found"), std::string::npos);
  EXPECT_EQ(find_program("sparsemap-no-such-program"), "");
  EXPECT_NE(find_program("sh"), "");
}

TEST(Gnuplot, RendersToAHostilePath) {
  ASSERT_NE(find_program("gnuplot"), "") << "gnuplot-nox is a build dependency";
  const TempDir dir;
  const fs::path sub = dir.path / "it's a dir; $HOME";
  fs::create_directories(sub);
  const std::string plot = (sub / "x';touch PWNED;'$(id).png").string();
  const std::string data = (sub / "d 'q'.dat").string();
  std::ofstream(data) << "1 2\n2 4\n3 9\n";
  const std::string script = gnuplot_header(plot, 320, 200) + "plot " + gnuplot_quote(data) +
                             " using 1:2 with lines title " + gnuplot_quote("it's") + "\n";
  render_gnuplot(script, plot + ".gp", data);
  EXPECT_GT(fs::file_size(plot), 100u);
  EXPECT_TRUE(fs::exists(plot + ".gp"));
  EXPECT_FALSE(fs::exists("PWNED"));
  EXPECT_FALSE(fs::exists(sub / "PWNED"));
}

TEST(Gnuplot, FailureIsOneLineNamingTheScript) {
  const TempDir dir;
  const std::string script_path = (dir.path / "bad.gp").string();
  try {
    render_gnuplot("plot 'no-such-file.dat' using 1:2\n", script_path, "no-such-file.dat");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(script_path + ": gnuplot failed", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_NE(what.find("the data is in no-such-file.dat"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace sparsemap::plot
