// The actual density in a Timeloop problem: `densities: {A: {distribution: actual, file: F}}`,
// the file (.npy) read as the data space's tensor beside the YAML, and its one-line errors.
#include "sparsemap/io/actual_density.h"

#include <gtest/gtest.h>

#include "sparsemap/io/timeloop.h"
#include "sparsemap/sparse/format/matrix_io.h"
#include "support/error_of.h"
#include "support/temp_dir.h"

namespace sparsemap::io {
namespace {

using testing::error_of;

// 01.2.3's dot product (A and B of K = 16 points, Z of M = 1) with A's density `density`
// (the text after "A: ", line 15).
std::string problem(const std::string& density) {
  return "problem:\n"                                                // 1
         "  version: 0.4\n"                                          // 2
         "  shape:\n"                                                // 3
         "    name: DotProduct\n"                                    // 4
         "    dimensions: [K, M]\n"                                  // 5
         "    data_spaces:\n"                                        // 6
         "    - {name: A, projection: [[[K]], [[M]]]}\n"             // 7
         "    - {name: B, projection: [[[K]]]}\n"                    // 8
         "    - {name: Z, projection: [[[M]]], read_write: true}\n"  // 9
         "  instance:\n"                                             // 10
         "    M: 2\n"                                                // 11
         "    K: 8\n"                                                // 12
         "    densities:\n"                                          // 13
         "      B: 0.5\n"                                            // 14
         "      A: " +
         density + "\n";  // 15
}

void write_a(const testing::TempDir& d, const std::string& name, int64_t rows, int64_t cols) {
  sparse::DenseMatrix a(rows, cols);
  // A is K x M = 8 x 2, row-major: nonzeros at (0, 0), (0, 1), (3, 1), (6, 0), (7, 0).
  for (int64_t i : {0, 1, 7, 12, 14}) a.values[static_cast<size_t>(i)] = 1.5f;
  sparse::write_npy(a, (d.path / name).string());
}

TEST(ActualDensity, ReadsTheTensorBesideTheProblem) {
  const testing::TempDir d("actual_density");
  write_a(d, "a.npy", 8, 2);
  const std::string yaml =
      d.write("sub/problem.yaml", problem("{distribution: actual, file: ../a.npy}"));
  const TimeloopInputs in = read_timeloop_files({yaml});
  const auto& m = in.densities.at("A");
  EXPECT_EQ(m.distribution, workload::DensityDistribution::kActual);
  EXPECT_EQ(m.density, 5.0 / 16);
  ASSERT_TRUE(m.tensor);
  EXPECT_EQ(m.tensor->shape(), (std::vector<int64_t>{8, 2}));
  // Rows of A (1 x 2 tiles) hold 2, 0, 0, 1, 0, 0, 1, 1.
  EXPECT_EQ(*m.tensor->distribution({1, 2}), (std::vector<double>{0.5, 0.375, 0.125}));
  // 4 x 1 tiles: column 0 holds 1 and 2, column 1 holds 2 and 0.
  EXPECT_EQ(*m.tensor->distribution({4, 1}), (std::vector<double>{0.25, 0.25, 0.5}));
  EXPECT_EQ(in.densities.at("B").distribution, workload::DensityDistribution::kFixedStructured);
  // A 1-D file of the 16 points and a 2-D one of 1 x 16 are the same tensor.
  write_a(d, "a.npy", 1, 16);
  EXPECT_EQ(read_timeloop_files({yaml}).densities.at("A").density, 5.0 / 16);
}

TEST(ActualDensity, TwoDimensionalViews) {
  EXPECT_TRUE(is_two_dimensional_view(1, 24, {2, 3, 4}));
  EXPECT_TRUE(is_two_dimensional_view(2, 12, {2, 3, 4}));
  EXPECT_TRUE(is_two_dimensional_view(6, 4, {2, 3, 4}));
  EXPECT_TRUE(is_two_dimensional_view(24, 1, {2, 3, 4}));
  EXPECT_FALSE(is_two_dimensional_view(3, 8, {2, 3, 4}));  // splits no axis boundary
  EXPECT_FALSE(is_two_dimensional_view(4, 6, {2, 3, 4}));
  EXPECT_FALSE(is_two_dimensional_view(5, 5, {2, 3, 4}));
}

TEST(ActualDensity, BadInputsAreOneLineAtTheFileName) {
  const testing::TempDir d("actual_density_bad");
  const std::string dir = d.path.string() + "/";
  auto err = [&](const std::string& density) {
    const std::string yaml = d.write("p.yaml", problem(density));
    return error_of([&] { read_timeloop_files({yaml}); });
  };
  EXPECT_EQ(err("{distribution: actual, file: none.npy}"),
            dir + "p.yaml:15:39: no file '" + dir + "none.npy' for the actual density of A");
  write_a(d, "wrong.npy", 4, 4);
  EXPECT_EQ(err("{distribution: actual, file: wrong.npy}"),
            dir + "p.yaml:15:39: '" + dir +
                "wrong.npy' holds 4 x 4 values; expected A's tensor, 8 x 2 (1-D, or 2-D "
                "splitting its axes in this order)");
  d.write("text.npy", "not numpy");
  const std::string text = err("{distribution: actual, file: text.npy}");
  EXPECT_EQ(text.rfind(dir + "p.yaml:15:39: the actual density of A: ", 0), 0u) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos);
  EXPECT_EQ(err("{distribution: actual}"),
            dir + "p.yaml:15:10: expected a file (.npy) for the actual density of A");
  EXPECT_EQ(err("{distribution: actual, file: a.npy, density: 0.5}"),
            dir +
                "p.yaml:15:10: expected only a file with distribution actual (the tensor gives "
                "the density)");
  EXPECT_EQ(err("{distribution: uniform, density: 0.5, file: a.npy}"),
            dir + "p.yaml:15:54: expected a file only with distribution actual");
  EXPECT_EQ(err("{distribution: actual, file: [a]}"),
            dir + "p.yaml:15:39: expected a single value for a file name");
}

}  // namespace
}  // namespace sparsemap::io
