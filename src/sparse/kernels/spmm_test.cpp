// Every fast SpMM kernel against its _ref twin and OpenBLAS, on awkward shapes and every ISA
// this CPU has; argument errors.
#include "sparsemap/sparse/kernels/spmm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <string>

#include "sparsemap/error.h"
#include "sparsemap/sparse/prune/prune.h"

namespace sparsemap::sparse {
namespace {

DenseMatrix random_dense(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  DenseMatrix d(rows, cols);
  for (auto& x : d.values) x = u(rng);
  return d;
}

// Relative max-norm difference, scaled by sum |a||b| bounds: |x - y| <= tol * (1 + |y|).
void expect_close(const DenseMatrix& x, const DenseMatrix& y, double tol, const std::string& what) {
  ASSERT_EQ(x.rows, y.rows) << what;
  ASSERT_EQ(x.cols, y.cols) << what;
  double worst = 0;
  for (size_t i = 0; i < x.values.size(); ++i)
    worst = std::max(worst,
                     std::fabs(double{x.values[i]} - y.values[i]) / (1.0 + std::fabs(y.values[i])));
  EXPECT_LE(worst, tol) << what;
}

std::vector<Isa> isas() {
  std::vector<Isa> out{Isa::Generic};
  if (detected_isa() == Isa::Avx2 || detected_isa() == Isa::Avx512) out.push_back(Isa::Avx2);
  if (detected_isa() == Isa::Avx512) out.push_back(Isa::Avx512);
  return out;
}

struct Shape {
  int64_t m, k, n;
  double sparsity;
};

// Awkward shapes: empty rows (high sparsity), M not a multiple of V, K or N of 1, N not a
// multiple of the vector width, fully dense and fully empty, zero-sized.
const Shape kShapes[] = {
    {37, 29, 45, 0.8},  {64, 64, 64, 0.5}, {33, 17, 1, 0.7},   {19, 1, 23, 0.5}, {1, 40, 7, 0.3},
    {50, 31, 100, 0.0}, {23, 41, 17, 1.0}, {70, 90, 257, 0.9}, {8, 8, 16, 0.99}, {0, 5, 3, 0.5},
    {5, 0, 3, 0.5},     {5, 4, 0, 0.5},    {129, 65, 49, 0.95}};

const char* kFormats[] = {"csr",        "cvse:1",      "cvse:2",    "cvse:4",    "cvse:8",
                          "cvse:16",    "cvse:32",     "bsr:1x1",   "bsr:4x4",   "bsr:3x5",
                          "bsr:8x1",    "bsr:16x2",    "nm:2:4",    "nm:1:3",    "nm:2:4:col",
                          "nm:3:8:col", "nm:4:16:col", "vnm:8:2:8", "vnm:3:1:5", "vnm:16:4:4"};

TEST(Spmm, FastMatchesRefAndOpenBlasOnAwkwardShapes) {
  uint32_t seed = 1;
  for (const Shape& s : kShapes) {
    const DenseMatrix w = random_dense(s.m, s.k, seed++);
    const DenseMatrix b = random_dense(s.k, s.n, seed++);
    for (const char* f : kFormats) {
      const FormatSpec spec = parse_format(f);
      const double sp = spec.intrinsic_sparsity() >= 0 ? -1.0 : s.sparsity;
      const AnySparse a = prune(w.view(), spec, sp);
      const std::string what = std::string(f) + " " + std::to_string(s.m) + "x" +
                               std::to_string(s.k) + "x" + std::to_string(s.n) +
                               " s=" + std::to_string(s.sparsity);
      DenseMatrix ref(s.m, s.n), blas(s.m, s.n);
      spmm_ref(a, b.view(), ref.view());
      const DenseMatrix ad = to_dense(a);
      sgemm_openblas(ad.view(), b.view(), blas.view(), 1);
      expect_close(ref, blas, 1e-4, what + " ref vs openblas");
      for (Isa isa : isas())
        for (int threads : {1, 2}) {
          DenseMatrix c(s.m, s.n);
          std::fill(c.values.begin(), c.values.end(), NAN);  // C is overwritten, never read
          spmm(a, b.view(), c.view(), {threads, isa});
          expect_close(c, ref, 1e-5, what + " " + isa_name(isa) + " t=" + std::to_string(threads));
        }
    }
  }
}

TEST(Spmm, LargeEnoughToThreadMatchesRef) {
  // Big enough for the parallel path (work >= 2^16) with uneven rows.
  DenseMatrix w = random_dense(300, 200, 5);
  for (int64_t r = 0; r < 150; ++r)
    for (int64_t c = 0; c < 200; ++c) w.at(r, c) = 0;  // first half empty
  const DenseMatrix b = random_dense(200, 70, 6);
  for (const char* f :
       {"csr", "cvse:8", "cvse:32", "bsr:4x4", "nm:2:4", "nm:2:4:col", "vnm:8:2:8"}) {
    const FormatSpec spec = parse_format(f);
    const AnySparse a = prune(w.view(), spec, spec.intrinsic_sparsity() >= 0 ? -1.0 : 0.6);
    DenseMatrix ref(300, 70), c(300, 70);
    spmm_ref(a, b.view(), ref.view());
    spmm(a, b.view(), c.view(), {2, Isa::Auto});
    expect_close(c, ref, 1e-5, f);
  }
}

TEST(Spmm, ManyKBlocksAndColumnPanelsMatchRef) {
  // K spans several K-blocks (CSR/N:M pack 256 rows of B at a time; CVSE blocks by L2 size) and
  // N spans two column panels of 512 with a ragged tail: the accumulate paths.
  const DenseMatrix w = random_dense(33, 700, 11), b = random_dense(700, 515, 12);
  for (const char* f : {"csr", "cvse:4", "cvse:8", "cvse:32", "nm:2:4", "nm:1:3", "vnm:8:2:8",
                        "bsr:4x4", "nm:2:4:col"}) {
    const FormatSpec spec = parse_format(f);
    const AnySparse a = prune(w.view(), spec, spec.intrinsic_sparsity() >= 0 ? -1.0 : 0.7);
    DenseMatrix ref(33, 515);
    spmm_ref(a, b.view(), ref.view());
    for (Isa isa : isas()) {
      DenseMatrix c(33, 515);
      spmm(a, b.view(), c.view(), {2, isa});
      expect_close(c, ref, 1e-5, std::string(f) + " " + isa_name(isa));
    }
  }
}

TEST(Spmm, StridedViews) {
  // B and C are windows of larger buffers (ld > cols); C's padding stays untouched.
  const DenseMatrix w = random_dense(21, 13, 9);
  const DenseMatrix big_b = random_dense(13, 40, 10);
  const ConstMatrixView b{big_b.values.data() + 3, 13, 30, 40};
  const AnySparse a = prune(w.view(), parse_format("cvse:4"), 0.5);
  DenseMatrix ref(21, 30);
  spmm_ref(a, b, ref.view());
  std::vector<float> cbuf(21 * 37, 7.0f);
  spmm(a, b, MatrixView{cbuf.data(), 21, 30, 37});
  for (int64_t r = 0; r < 21; ++r) {
    for (int64_t j = 0; j < 30; ++j)
      EXPECT_NEAR(cbuf[static_cast<size_t>(r * 37 + j)], ref.at(r, j), 1e-5);
    for (int64_t j = 30; j < 37; ++j) EXPECT_EQ(cbuf[static_cast<size_t>(r * 37 + j)], 7.0f);
  }
}

TEST(Spmm, BadArgumentsThrowInputError) {
  const DenseMatrix w = random_dense(8, 6, 1);
  const CsrMatrix a = csr_from_dense(w.view());
  DenseMatrix b(6, 4), c(8, 4), wrong_b(5, 4), wrong_c(8, 3);
  EXPECT_THROW(spmm_csr(a, wrong_b.view(), c.view()), InputError);
  EXPECT_THROW(spmm_csr(a, b.view(), wrong_c.view()), InputError);
  EXPECT_THROW(spmm_csr_ref(a, wrong_b.view(), c.view()), InputError);
  EXPECT_THROW(spmm_csr(a, ConstMatrixView{b.values.data(), 6, -4, 4}, c.view()), InputError);
  EXPECT_THROW(spmm_csr(a, ConstMatrixView{b.values.data(), 6, 4, 3}, c.view()), InputError);
  EXPECT_THROW(spmm_csr(a, ConstMatrixView{nullptr, 6, 4, 4}, c.view()), InputError);
  EXPECT_THROW(spmm_csr(a, b.view(), c.view(), {-1, Isa::Auto}), InputError);
  CsrMatrix broken = a;
  broken.row_ptr.pop_back();
  EXPECT_THROW(spmm_csr(broken, b.view(), c.view()), InputError);
  CvseMatrix cv = cvse_from_dense(w.view(), 4);
  cv.v = 3;
  EXPECT_THROW(spmm_cvse(cv, b.view(), c.view()), InputError);
  cv.v = 4;
  cv.values.pop_back();
  EXPECT_THROW(spmm_cvse(cv, b.view(), c.view()), InputError);
  NmMatrix nm = nm_from_dense(DenseMatrix(8, 6).view(), 2, 4, NmAxis::Row);
  nm.values.pop_back();
  EXPECT_THROW(spmm_nm(nm, b.view(), c.view()), InputError);
  EXPECT_THROW(sgemm_openblas(w.view(), wrong_b.view(), c.view(), 1), InputError);
  if (detected_isa() != Isa::Avx512) {
    EXPECT_THROW(spmm_csr(a, b.view(), c.view(), {1, Isa::Avx512}), InputError);
  }
}

TEST(Spmm, DenseKernelIsOpenBlas) {
  const DenseMatrix a = random_dense(17, 9, 3), b = random_dense(9, 5, 4);
  DenseMatrix ref(17, 5), c(17, 5);
  spmm_dense_ref(a, b.view(), ref.view());
  spmm_dense(a, b.view(), c.view(), {1, Isa::Auto});
  expect_close(c, ref, 1e-5, "dense");
  EXPECT_FALSE(openblas_core_name().empty());
}

// The kernel advised for the dense baseline follows the CPU's flags as /proc/cpuinfo lists
// them: Cooperlake where avx512_bf16 is present (SkylakeX there would be the wrong advice).
TEST(Spmm, BestOpenBlasKernelFollowsTheCpuFlags) {
  std::ifstream in("/proc/cpuinfo");
  std::string line, flags;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) {
      flags = " " + line.substr(line.find(':') + 1) + " ";
      break;
    }
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags on this system";
  auto has = [&](const char* f) {
    return flags.find(" " + std::string(f) + " ") != std::string::npos;
  };
  const std::string best = openblas_best_core();
  if (detected_isa() == Isa::Avx512)
    EXPECT_EQ(best, has("avx512_bf16") ? "Cooperlake" : "SkylakeX");
  else if (detected_isa() == Isa::Avx2)
    EXPECT_EQ(best, "Haswell");
  else
    EXPECT_EQ(best, "");
}

}  // namespace
}  // namespace sparsemap::sparse
