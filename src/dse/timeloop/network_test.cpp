// map_network and map_problem's guarantees: results independent of the thread count, and a run
// killed mid-search and resumed from its checkpoint ends as an uninterrupted one.
#include "sparsemap/dse/timeloop/network.h"

#include <gtest/gtest.h>

#include "sparsemap/error.h"
#include "sparsemap/io/timeloop.h"
#include "sparsemap/io/util.h"
#include "support/error_of.h"
#include "support/temp_dir.h"
#include "support/test_data.h"

namespace sparsemap::dse::timeloop {
namespace {

using testing::error_of;

io::TimeloopInputs load(const std::vector<std::string>& files) {
  const std::string dir = testing::test_data_dir("timeloop") + "/";
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(dir + f);
  return io::read_timeloop_files(paths);
}

const std::string kEyeriss = "example_designs/eyeriss_like/";
const std::string kEx05 = "05-mapper-conv1d+oc-3level/ref-output/";

io::TimeloopInputs eyeriss() {
  return load({kEyeriss + "parsed-processed-input.yaml", kEyeriss + "timeloop-mapper.ERT.yaml"});
}

// ResNet-18 layers 01, 05 and 07 of layer_shapes (three shapes), with layer 01 again at the
// end (not searched).
std::vector<NetworkLayer> resnet18_layers() {
  std::vector<NetworkLayer> out;
  for (const char* n : {"01", "05", "07", "01"}) {
    const auto in = load({std::string("layer_shapes/resnet18/") + n + ".yaml"});
    out.push_back({n, *in.problem});
  }
  out.back().name = "01-again";
  return out;
}

void expect_same(const MapperResult& a, const MapperResult& b, const std::string& what) {
  EXPECT_EQ(a.found, b.found) << what;
  EXPECT_EQ(a.algo, b.algo) << what;
  EXPECT_EQ(a.genome, b.genome) << what;
  EXPECT_EQ(a.mapping, b.mapping) << what;
  EXPECT_EQ(a.result.cycles, b.result.cycles) << what;
  EXPECT_EQ(a.result.energy_pj, b.result.energy_pj) << what;
  EXPECT_EQ(a.evaluations, b.evaluations) << what;
}

// Two threads find exactly what one finds: a search (evaluations split per batch) and an
// enumeration (points evaluated in batches, the first best point kept).
TEST(TimeloopMapper, ThreadsDoNotChangeTheResult) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const auto e = eyeriss();
  MapperOptions o;
  o.algo = "gamma";
  o.budget = 1500;
  const MapperResult one = map_problem(*e.problem, *e.arch, &*e.ert, o);
  o.threads = 2;
  expect_same(map_problem(*e.problem, *e.arch, &*e.ert, o), one, "gamma");

  const auto x =
      load({kEx05 + "null/parsed-processed-input.yaml", kEx05 + "null/timeloop-mapper.ERT.yaml"});
  MapperOptions ex;
  ex.algo = "exhaustive";
  ex.metrics = {Metric::kDelay, Metric::kEnergy};
  const MapperResult scan1 = map_problem(*x.problem, *x.arch, &*x.ert, ex);
  ex.threads = 2;
  const MapperResult scan2 = map_problem(*x.problem, *x.arch, &*x.ert, ex);
  expect_same(scan2, scan1, "exhaustive");
  EXPECT_EQ(scan2.space_points, 464640u);
}

// Killed after the k-th progress report (a thrown exception, as a kill would stop it: in the
// first layer's search, between layers, in the last search) and resumed from the checkpoint:
// every layer's mapping, figures and evaluation count equal the uninterrupted run's.
TEST(TimeloopNetwork, KilledAndResumedEqualsUninterrupted) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const testing::TempDir tmp("tl_network_ck");
  const auto e = eyeriss();
  const std::vector<NetworkLayer> layers = resnet18_layers();
  NetworkOptions o;
  o.mapper.algo = "gamma";
  o.mapper.budget = 400;
  o.mapper.seed = 3;
  o.mapper.checkpoint_every = 100;
  int reports = 0;
  const NetworkResult ref = map_network(
      layers, *e.arch, &*e.ert, o, [&](size_t, size_t, int64_t, int64_t, double) { ++reports; });
  ASSERT_EQ(ref.rows.size(), 4u);
  EXPECT_EQ(ref.rows[3].same_as, "01");
  const std::string ck = (tmp.path / "run.ck").string();
  o.checkpoint_file = ck;
  struct Killed {};
  for (int stop_after : {2, reports / 3, reports / 3 + 1, reports / 2, reports - 1}) {
    int calls = 0;
    EXPECT_THROW(map_network(layers, *e.arch, &*e.ert, o,
                             [&](size_t, size_t, int64_t, int64_t, double) {
                               if (++calls == stop_after) throw Killed{};
                             }),
                 Killed);
    NetworkOptions resume = o;
    resume.resume = true;
    const NetworkResult r = map_network(layers, *e.arch, &*e.ert, resume);
    ASSERT_EQ(r.rows.size(), ref.rows.size());
    for (size_t i = 0; i < r.rows.size(); ++i)
      expect_same(r.rows[i].r, ref.rows[i].r,
                  "stop " + std::to_string(stop_after) + " layer " + std::to_string(i));
    EXPECT_EQ(r.cycles, ref.cycles);
    EXPECT_EQ(r.energy_pj, ref.energy_pj);
  }
  // The checkpoint of this run refuses another seed, and a damaged genome is bad input.
  NetworkOptions other = o;
  other.resume = true;
  other.mapper.seed = 4;
  EXPECT_EQ(error_of([&] { map_network(layers, *e.arch, &*e.ert, other); }),
            ck + ": the checkpoint belongs to another run (layers, architecture, ERT or options "
                 "differ); resume with the same inputs and flags");
  nlohmann::json j = io::read_json(ck, "checkpoint");
  j["done"][1]["genome"][0] = 1.5;
  tmp.write("run.ck", j.dump());
  NetworkOptions resume = o;
  resume.resume = true;
  EXPECT_EQ(error_of([&] { map_network(layers, *e.arch, &*e.ert, resume); }),
            ck + ": finished layer 1: a gene that is not a number in [0, 1]");
  tmp.write("run.ck", "{\"kind\": 3}");
  EXPECT_EQ(error_of([&] { map_network(layers, *e.arch, &*e.ert, resume); }),
            ck + ": not a checkpoint of map on a Timeloop architecture (expected \"kind\": "
                 "\"sparsemap-timeloop-map-checkpoint\")");
}

// An enumerated layer keeps no search state: resumed, it is enumerated again to the same point.
TEST(TimeloopNetwork, ResumedEnumerationEqualsUninterrupted) {
  SPARSEMAP_TEST_DATA(dir, "timeloop");
  const testing::TempDir tmp("tl_network_scan");
  const auto x = load({kEx05 + "freebypass/parsed-processed-input.yaml",
                       kEx05 + "freebypass/timeloop-mapper.ERT.yaml"});
  arch::Hierarchy h = *x.arch;  // K left free between GlobalBuffer and RegisterFile
  h.storage[1].constraints.temporal_factors = "R=1 P=16";
  h.storage[2].constraints.temporal_factors = "R=3 P=1";
  std::vector<NetworkLayer> layers = {{"a", *x.problem}, {"b", *x.problem}};
  layers[1].problem.bounds["K"] = 16;
  NetworkOptions o;
  o.mapper.metrics = {Metric::kDelay, Metric::kEnergy};
  const NetworkResult ref = map_network(layers, h, &*x.ert, o);
  ASSERT_TRUE(ref.all_found);
  o.checkpoint_file = (tmp.path / "scan.ck").string();
  struct Killed {};
  int calls = 0;
  EXPECT_THROW(map_network(layers, h, &*x.ert, o,
                           [&](size_t layer, size_t, int64_t, int64_t, double) {
                             if (layer == 1 && ++calls == 1) throw Killed{};
                           }),
               Killed);
  o.resume = true;
  const NetworkResult r = map_network(layers, h, &*x.ert, o);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(r.rows[i].r.algo, "exhaustive");
    expect_same(r.rows[i].r, ref.rows[i].r, "layer " + std::to_string(i));
  }
}

}  // namespace
}  // namespace sparsemap::dse::timeloop
