// The option table's CLI adapter (option_table.h) on a table of every field type, and the
// library's tables checked for what both the CLI and Python rely on.
#include "option_table.h"

#include <gtest/gtest.h>

#include <set>

#include "commands.h"
#include "sparsemap/dse/attention/run.h"
#include "sparsemap/dse/eval/run.h"
#include "sparsemap/dse/eval/timeloop.h"
#include "sparsemap/dse/fusion/run.h"
#include "sparsemap/dse/hwalloc/run.h"
#include "sparsemap/dse/mse/run.h"
#include "sparsemap/dse/schedule/run.h"
#include "sparsemap/dse/sparse_price/run.h"
#include "sparsemap/dse/timeloop/commands.h"
#include "sparsemap/measure/prune_study.h"
#include "sparsemap/measure/spmm_bench_run.h"
#include "sparsemap/ml/fusion/run.h"
#include "sparsemap/ml/nm_study/run.h"
#include "sparsemap/ml/nongemm/run.h"
#include "sparsemap/ml/prune/run.h"
#include "sparsemap/ml/train/run.h"
#include "sparsemap/report/run.h"

namespace sparsemap::cli {
namespace {

struct Inner {
  int64_t size = 0;
};
struct Target {
  bool on = false;
  int count = 2;
  int64_t big = -1;
  uint64_t seed = 1;
  double rate = 0.5;
  std::string mode = "fast";
  std::vector<std::string> names;
  Inner inner;
  std::string other_mode = "other default";
};

const options::Table<Target>& test_table() {
  using Row = options::Option<Target>;
  static const options::Table<Target> table = {
      {"--on", "an on/off flag", SM_FIELD(Target, on)},
      {"--count", "an int", SM_FIELD(Target, count)},
      {"--big", "an int64", SM_FIELD(Target, big)},
      {"--seed", "a seed", SM_FIELD(Target, seed)},
      {"--json", "the CLI's own", options::CliValue{}},
      Row{"--rate", "a double", SM_FIELD(Target, rate)}.not_with_timeloop(),
      Row{"--mode", "one of two", SM_FIELD(Target, mode)}
          .one_of({"fast", "slow"})
          .also(SM_FIELD(Target, other_mode)),
      Row{"--names", "a list", SM_FIELD(Target, names)}.delimiter(','),
      Row{"--size", "positive", SM_FIELD(Target, inner.size)}.positive_only(),
      Row{"--wide", "the CLI's own switch", options::CliSwitch{}}.not_with_timeloop(),
  };
  return table;
}

// Parses `args` (after the program name) into a fresh target; returns CLI11's error text ("" when
// it parsed).
struct Parsed {
  Target t;
  std::string json;
  bool wide = false;
  std::string error;
};
Parsed parse(std::vector<std::string> args) {
  Parsed p;
  CLI::App app("test");
  configure_cli(app);
  add_options(&app, test_table(), p.t, {{"--json", &p.json}, {"--wide", &p.wide}});
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
    copy_mirrors(&app, test_table(), p.t);
  } catch (const CLI::ParseError& e) {
    p.error = e.what();
  }
  return p;
}

TEST(OptionTable, EveryTypeIsSetFromItsFlag) {
  const Parsed p =
      parse({"--on", "--count", "0x10", "--big", "-7", "--seed", "42", "--rate", "2.5", "--mode",
             "slow", "--names", "a,b,c", "--size", "3", "--json", "-", "--wide"});
  ASSERT_EQ(p.error, "");
  EXPECT_TRUE(p.t.on);
  EXPECT_EQ(p.t.count, 16);  // C's base-0 syntax, as Python's to_int64
  EXPECT_EQ(p.t.big, -7);
  EXPECT_EQ(p.t.seed, 42u);
  EXPECT_EQ(p.t.rate, 2.5);
  EXPECT_EQ(p.t.mode, "slow");
  EXPECT_EQ(p.t.names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(p.t.inner.size, 3);
  EXPECT_EQ(p.json, "-");
  EXPECT_TRUE(p.wide);
}

TEST(OptionTable, AMirrorIsSetOnlyWhenItsFlagIsGiven) {
  EXPECT_EQ(parse({}).t.other_mode, "other default");
  EXPECT_EQ(parse({"--mode", "slow"}).t.other_mode, "slow");
}

TEST(OptionTable, ChecksGiveCli11sLines) {
  EXPECT_EQ(parse({"--mode", "medium"}).error, "--mode: medium not in {fast,slow}");
  EXPECT_EQ(parse({"--size", "0"}).error,
            "--size: expected a positive integer (leave the flag out for the default)");
  EXPECT_EQ(parse({"--count", "x"}).error, "Could not convert: --count = x");
  EXPECT_EQ(parse({"--count", "4294967296"}).error, "Could not convert: --count = 4294967296");
  EXPECT_EQ(parse({"--colour", "red"}).error,
            "The following arguments were not expected: red --colour");
}

TEST(OptionTable, HelpListsTheRowsInTableOrderWithDefaults) {
  CLI::App app("test");
  configure_cli(app);
  Target t;
  std::string json;
  bool wide = false;
  add_options(&app, test_table(), t, {{"--json", &json}, {"--wide", &wide}});
  const std::string help = app.help();
  size_t at = 0;
  for (const auto& row : test_table()) {
    const size_t next = help.find("  " + row.name() + " ", at);
    ASSERT_NE(next, std::string::npos) << row.name() << " after offset " << at << "\n" << help;
    at = next;
  }
  EXPECT_NE(help.find("--mode TEXT:{fast,slow}=fast"), std::string::npos) << help;
  EXPECT_NE(help.find("--rate FLOAT=0.5"), std::string::npos) << help;
}

TEST(OptionTable, ATimeloopArchitectureRefusesTheFirstRefusedRowGiven) {
  CLI::App app("test");
  configure_cli(app);
  Target t;
  std::string json;
  bool wide = false;
  add_options(&app, test_table(), t, {{"--json", &json}, {"--wide", &wide}});
  app.parse(std::vector<std::string>{"1", "--count", "3", "--rate", "--wide"});  // reversed
  try {
    refuse_with_timeloop(&app, test_table(), "is not for Timeloop");
    FAIL() << "expected a refusal";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "<flag --rate>: --rate is not for Timeloop");
  }
}

// What both adapters rely on: flags unique (a negation's name too), CLI-style names ("--x", or
// a positional "files"), help text, a mirror of the field's own type.
template <class T>
void expect_well_formed(const options::Table<T>& table, const std::string& what) {
  std::set<std::string> names;
  for (const auto& row : table) {
    EXPECT_TRUE(names.insert(row.name()).second) << what << ": " << row.name() << " twice";
    if (!row.negation().empty()) EXPECT_TRUE(names.insert(row.negation()).second) << what;
    const bool positional =
        row.name().find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos;
    EXPECT_TRUE(row.name().rfind("--", 0) == 0 || positional) << what << ": " << row.name();
    EXPECT_FALSE(row.help.empty()) << what << ": " << row.name();
    EXPECT_FALSE(std::holds_alternative<std::monostate>(row.field)) << what << ": " << row.name();
    if (!std::holds_alternative<std::monostate>(row.mirror))
      EXPECT_EQ(row.mirror.index(), row.field.index()) << what << ": " << row.name();
  }
}

TEST(OptionTable, TheSystemsTablesAreWellFormed) {
  expect_well_formed(dse::schedule::option_table(), "schedule");
  expect_well_formed(dse::timeloop::map_option_table(), "map");
  expect_well_formed(dse::timeloop::codesign_option_table(), "codesign");
  expect_well_formed(dse::attention::option_table(), "attention");
  expect_well_formed(dse::eval::option_table(), "eval");
  expect_well_formed(dse::eval::timeloop_option_table(), "timeloop");
  expect_well_formed(dse::fusion::option_table(), "fuse");
  expect_well_formed(dse::hwalloc::option_table(), "hwalloc");
  expect_well_formed(dse::mse::option_table(), "mse");
  expect_well_formed(dse::sparse_price::option_table(), "sparse-price");
  expect_well_formed(report::option_table(), "report");
  expect_well_formed(measure::prune_study::option_table(), "prune-study");
  expect_well_formed(measure::spmm_bench::option_table(), "spmm-bench");
  expect_well_formed(ml::fusion::option_table(), "fuse-train");
  expect_well_formed(ml::nm_study::option_table(), "nm-study");
  expect_well_formed(ml::nongemm::option_table(), "nongemm");
  expect_well_formed(ml::train::option_table(), "train");
  expect_well_formed(ml::prune::train_option_table(), "prune-train");
  expect_well_formed(ml::prune::compare_option_table(), "prune-compare");
  expect_well_formed(ml::prune::overhead_option_table(), "prune-overhead");
}

}  // namespace
}  // namespace sparsemap::cli
