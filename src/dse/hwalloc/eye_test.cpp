// The eye template as a physical row-stationary array (eye_mapping): hand-worked cycles, latency
// against PEs, and never more than one MAC per PE per cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/hwalloc/hwalloc.h"
#include "sparsemap/io/confuciux_csv.h"

namespace sparsemap::dse::hwalloc {
namespace {

using workload::Dim;

std::string data_dir() { return std::string(SPARSEMAP_SOURCE_DIR) + "/tests/data/confuciux/"; }

// What Problem prices (padded edges) for one eye state.
cost::Cost eye(const workload::Layer& l, int64_t pes, int64_t k_tile) {
  const mapping::Mapping m = layer_mapping(l, {pes, k_tile, Dataflow::Eye});
  return cost::evaluate(padded_layer(l, m), confuciux_arch(pes), m);
}

// PEs the array uses: columns of R PEs, one output row each, at most Y' of them; with fewer PEs
// than R, each PE takes a whole output row.
int64_t expected_pes_used(const workload::Layer& l, int64_t pes) {
  const int64_t r = l.dim(Dim::R), rows = l.out_y();
  return pes < r ? std::min(pes, rows) : r * std::min(pes / r, rows);
}

// K = C = 2, 8x8 input, 3x3 filter: Y' = X' = 6, 1,296 MACs, no loop edge (X' tiles of S = 3).
// Level 0 walks C (2) x K (2 / KTileSz) x X' tiles (6 / 3 = 2) x folds of the output rows over
// the columns (ceil(6 / rows in flight)); in each step a PE computes its filter row over 3 output
// columns: 3 (X') x 3 (S) x KTileSz MACs, one step costing that plus the one cycle in which the
// column's first operands arrive (a column's run starts un-overlapped; the NoC moves any tile in
// one cycle at ConfuciuX's bandwidth), plus one cycle for level 0's own first delivery:
//   runtime = steps x (9 KTileSz + 1) + 1
// P >= 3, KTileSz 1: P = 3 -> 1 column, 6 folds: 48 steps -> 481; P = 9 -> 3 columns, 2 folds:
// 16 steps -> 161; P = 12 -> 4 columns, still 2 folds -> 161; P = 18 -> 6 columns, 1 fold: 8
// steps -> 81 (and P = 24: 81, the array covers Y'); KTileSz 2 at P = 18: 4 steps x 19 + 1 = 77.
// P < 3: one level, a PE holds all 3 filter rows, P output rows at a time; its steps are double
// buffered (the NoC overlaps compute), so runtime = 1,296 / P + 1: P = 1 -> 1,297, P = 2 -> 649.
TEST(HwallocEye, HandWorkedCycles) {
  const auto model = io::parse_confuciux_csv("K,C,Y,X,R,S,T\n2,2,8,8,3,3,1\n", "eye.csv");
  const workload::Layer& l = model.layers.at(0);
  ASSERT_EQ(l.macs(), 1296);
  struct Case {
    int64_t pes, k_tile, cycles, pes_used;
  };
  for (const Case& c :
       {Case{1, 1, 1297, 1}, Case{2, 1, 649, 2}, Case{3, 1, 481, 3}, Case{9, 1, 161, 9},
        Case{12, 1, 161, 12}, Case{18, 1, 81, 18}, Case{24, 1, 81, 18}, Case{18, 2, 77, 18}}) {
    const cost::Cost k = eye(l, c.pes, c.k_tile);
    ASSERT_TRUE(k.ok()) << k.reason;
    EXPECT_EQ(k.runtime_cycles, c.cycles) << c.pes << " PEs, KTileSz " << c.k_tile;
    EXPECT_EQ(k.pes_used, c.pes_used) << c.pes << " PEs";
    EXPECT_EQ(k.mapped_macs, 1296.0);
  }
  // Problem prices exactly this.
  ProblemOptions o;
  o.dataflow = "eye";
  Problem p(model, o);
  EXPECT_EQ(p.layer_cost(0, {18, 1, Dataflow::Eye}).latency_cycles, 81);
}

// ConfuciuX's vgg16 model file: latency never rises with the PEs, keeps falling past Y' (where
// upstream's template, as MAESTRO prices it, stopped using PEs in our old model), and is flat
// once R x Y' PEs cover the output rows. Issue 26's example: layers 5 to 12 cost the same at 26
// and 112 PEs before; not any more.
TEST(HwallocEye, LatencyFallsWithPesUntilTheArrayCoversYPrime) {
  const workload::Model m = io::read_confuciux_csv(data_dir() + "models/vgg16.csv");
  int falls_past_y = 0;
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const workload::Layer& l = m.layers[i];
    const int64_t r = l.dim(Dim::R), y = l.out_y(), cover = r * y;
    int64_t prev = -1;
    for (int64_t pes = 1; pes <= kMaxPes; ++pes) {
      const cost::Cost c = eye(l, pes, 4);
      ASSERT_TRUE(c.ok()) << l.name << " " << pes << ": " << c.reason;
      if (prev >= 0) {
        EXPECT_LE(c.runtime_cycles, prev) << l.name << " at " << pes << " PEs";
      }
      if (pes > cover && prev >= 0) {
        EXPECT_EQ(c.runtime_cycles, prev) << l.name << " covered at " << pes;
      }
      prev = c.runtime_cycles;
    }
    if (y < kMaxPes && y + 1 <= kMaxPes) {
      const int64_t past = std::min<int64_t>(kMaxPes, cover);
      if (eye(l, past, 4).runtime_cycles < eye(l, y, 4).runtime_cycles) ++falls_past_y;
    }
    if (i >= 4 && i <= 11) {
      EXPECT_LT(eye(l, 112, 4).runtime_cycles, eye(l, 26, 4).runtime_cycles) << l.name;
    }
    std::printf("  %s: Y' %ld R %ld: %ld cycles at 26 PEs, %ld at 112\n", l.name.c_str(), y, r,
                static_cast<long>(eye(l, 26, 4).runtime_cycles),
                static_cast<long>(eye(l, 112, 4).runtime_cycles));
  }
  EXPECT_EQ(falls_past_y, 11);  // every layer with Y' < 128 (the first two have Y' = 222)
  // Layer 8 (Y' 26): a quarter of the cycles at 112 PEs (37 columns cover 26 rows: 1 fold) as at
  // 26 (8 columns: 4 folds).
  EXPECT_EQ(eye(m.layers[7], 26, 4).runtime_cycles, 43646977);
  EXPECT_EQ(eye(m.layers[7], 112, 4).runtime_cycles, 10911745);
}

// The array bound on every PE count and two buffer levels, over the layers of three model files
// (3x3, 1x1, 7x7 and 11x11 stride-4 filters): PEs used as the array says, at most P, and
// MACs <= cycles x PEs used (at most one MAC per PE per cycle).
TEST(HwallocEye, NeverAboveOneMacPerPePerCycle) {
  int states = 0;
  double best_rate = 0;
  for (const char* stem : {"vgg16", "resnet18", "alexnet"}) {
    const workload::Model m = io::read_confuciux_csv(data_dir() + "models/" + stem + ".csv");
    for (const workload::Layer& l : m.layers) {
      if (l.kind != workload::OpKind::Conv) continue;
      for (int64_t pes = 1; pes <= kMaxPes; ++pes)
        for (int64_t kt : {1, 12}) {
          const cost::Cost c = eye(l, pes, kt);
          ASSERT_TRUE(c.ok()) << stem << " " << l.name << " " << pes << ": " << c.reason;
          ++states;
          EXPECT_EQ(c.pes_used, expected_pes_used(l, pes)) << l.name << " " << pes;
          EXPECT_LE(c.pes_used, pes);
          const double rate = double(c.macs) / (double(c.runtime_cycles) * double(c.pes_used));
          EXPECT_LE(rate, 1.0) << l.name << " " << pes;
          best_rate = std::max(best_rate, rate);
        }
    }
  }
  std::printf("  %d states, highest MACs / (cycles x PEs used) %.9f\n", states, best_rate);
  EXPECT_EQ(states, 9728);
  EXPECT_LT(best_rate, 1.0);  // the closest: 1 PE, MACs + 1 cycles
}

}  // namespace
}  // namespace sparsemap::dse::hwalloc
