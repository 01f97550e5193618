// Formats: round trips through dense, validation of broken invariants, footprints, specs.
#include <gtest/gtest.h>

#include <random>

#include "sparsemap/error.h"
#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::sparse {
namespace {

// A rows x cols matrix with about `density` non-zeros, values in [-1, 1] \ {0}.
DenseMatrix random_sparse(int64_t rows, int64_t cols, double density, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> val(0.1f, 1.0f);
  std::bernoulli_distribution keep(density), sign(0.5);
  DenseMatrix d(rows, cols);
  for (auto& x : d.values)
    if (keep(rng)) x = sign(rng) ? val(rng) : -val(rng);
  return d;
}

TEST(Formats, CsrRoundTripAndLayout) {
  DenseMatrix d(3, 4);
  d.at(0, 1) = 2.0f;
  d.at(0, 3) = -1.0f;
  d.at(2, 0) = 5.0f;
  const CsrMatrix s = csr_from_dense(d.view());
  EXPECT_EQ(s.row_ptr, (std::vector<int32_t>{0, 2, 2, 3}));
  EXPECT_EQ(s.col_idx, (std::vector<int32_t>{1, 3, 0}));
  EXPECT_EQ(s.values, (std::vector<float>{2.0f, -1.0f, 5.0f}));
  EXPECT_EQ(to_dense(s), d);
  EXPECT_EQ(footprint(s).values_bytes, 12);
  EXPECT_EQ(footprint(s).metadata_bytes, 12 + 16);
}

TEST(Formats, CvseLayoutWithPartialGroup) {
  // 5 rows, V = 4: groups {0..3}, {4 (+3 padding rows)}.
  DenseMatrix d(5, 3);
  d.at(1, 0) = 1.0f;
  d.at(3, 2) = 2.0f;
  d.at(4, 1) = 3.0f;
  const CvseMatrix s = cvse_from_dense(d.view(), 4);
  EXPECT_EQ(s.row_ptr, (std::vector<int32_t>{0, 2, 3}));
  EXPECT_EQ(s.col_idx, (std::vector<int32_t>{0, 2, 1}));
  EXPECT_EQ(s.values, (std::vector<float>{0, 1, 0, 0, 0, 0, 0, 2, 3, 0, 0, 0}));
  EXPECT_EQ(to_dense(s), d);
  EXPECT_EQ(footprint(s).values_bytes, 3 * 4 * 4);
  EXPECT_EQ(footprint(s).metadata_bytes, 3 * 4 + 3 * 4);
}

TEST(Formats, RoundTripsOnRandomMatrices) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    const DenseMatrix d = random_sparse(37, 29, 0.2, seed);
    EXPECT_EQ(to_dense(csr_from_dense(d.view())), d);
    for (int v : {1, 2, 4, 8, 16, 32}) EXPECT_EQ(to_dense(cvse_from_dense(d.view(), v)), d) << v;
    for (auto [bh, bw] : {std::pair{1, 1}, {2, 3}, {4, 4}, {8, 1}, {5, 7}})
      EXPECT_EQ(to_dense(bsr_from_dense(d.view(), bh, bw)), d) << bh << "x" << bw;
  }
}

TEST(Formats, MaskKeepsExplicitZerosAndDropsTheRest) {
  DenseMatrix d(2, 2);
  d.values = {1, 2, 3, 4};
  Mask m{2, 2, {1, 0, 0, 1}};
  const CsrMatrix s = csr_from_dense(d.view(), &m);
  EXPECT_EQ(s.nnz(), 2);
  d.at(1, 1) = 0.0f;
  const CsrMatrix z = csr_from_dense(d.view(), &m);
  EXPECT_EQ(z.nnz(), 2);  // the kept zero is stored
  EXPECT_EQ(z.values[1], 0.0f);
  Mask wrong{3, 2, std::vector<uint8_t>(6, 1)};
  EXPECT_THROW(csr_from_dense(d.view(), &wrong), InputError);
}

TEST(Formats, NmBothAxesRoundTrip) {
  // Every group of 4 along rows holds at most 2 non-zeros; 10 columns: last group is partial.
  DenseMatrix d(3, 10);
  d.at(0, 0) = 1;
  d.at(0, 3) = 2;
  d.at(0, 9) = 3;
  d.at(2, 5) = 4;
  d.at(2, 8) = 5;
  const NmMatrix s = nm_from_dense(d.view(), 2, 4, NmAxis::Row);
  EXPECT_EQ(s.groups(), 3);
  EXPECT_EQ(s.slots(), 3 * 3 * 2);
  EXPECT_EQ(s.offsets[0], 0);
  EXPECT_EQ(s.offsets[1], 3);
  EXPECT_EQ(to_dense(s), d);
  EXPECT_NO_THROW(validate(s));
  EXPECT_EQ(footprint(s).metadata_bytes, (18 * 2 + 7) / 8);
  const DenseMatrix t = random_sparse(13, 6, 0.2, 3);
  const Mask mc = [&] {
    Mask m = nonzero_mask(t.view());
    // thin each column-group of 4 rows to <= 2 entries
    for (int64_t c = 0; c < t.cols; ++c)
      for (int64_t q = 0; q < t.rows; q += 4) {
        int kept = 0;
        for (int64_t r = q; r < std::min<int64_t>(t.rows, q + 4); ++r)
          if (m.at(r, c) && ++kept > 2) m.keep[static_cast<size_t>(r * t.cols + c)] = 0;
      }
    return m;
  }();
  const NmMatrix sc = nm_from_dense(t.view(), 2, 4, NmAxis::Col, &mc);
  EXPECT_EQ(to_dense(sc), apply_mask(t.view(), mc));
  // Three non-zeros in one group of 4 cannot be 2:4.
  DenseMatrix bad(1, 4);
  bad.values = {1, 1, 1, 0};
  EXPECT_THROW(nm_from_dense(bad.view(), 2, 4, NmAxis::Row), InputError);
}

TEST(Formats, VnmRoundTripAndPatternErrors) {
  DenseMatrix d(4, 8);  // V = 2, 2:8: each 2x8 block uses <= 4 columns, each row <= 2.
  d.at(0, 1) = 1;
  d.at(0, 6) = 2;
  d.at(1, 2) = 3;
  d.at(1, 6) = 4;
  d.at(3, 7) = 5;
  const VnmMatrix s = vnm_from_dense(d.view(), 2, 2, 8);
  EXPECT_NO_THROW(validate(s));
  EXPECT_EQ(to_dense(s), d);
  EXPECT_EQ(s.col_sel.size(), 2u * 1u * 4u);
  // Block 0 uses columns 1, 2 and 6; the fourth selection is the smallest unused one.
  EXPECT_EQ(std::vector<uint8_t>(s.col_sel.begin(), s.col_sel.begin() + 4),
            (std::vector<uint8_t>{0, 1, 2, 6}));
  DenseMatrix five(2, 8);
  for (int c = 0; c < 5; ++c) five.at(c % 2, c) = 1.0f;  // a block using 5 columns
  EXPECT_THROW(vnm_from_dense(five.view(), 2, 2, 8), InputError);
  EXPECT_THROW(vnm_from_dense(d.view(), 2, 2, 3), InputError);  // M < 4
}

TEST(Formats, ValidateCatchesBrokenInvariants) {
  const DenseMatrix d = random_sparse(9, 7, 0.4, 7);
  CsrMatrix s = csr_from_dense(d.view());
  ASSERT_GE(s.nnz(), 3);
  CsrMatrix bad = s;
  bad.col_idx[0] = 7;
  EXPECT_THROW(validate(bad), InputError);
  bad = s;
  bad.row_ptr.back() += 1;
  EXPECT_THROW(validate(bad), InputError);
  bad = s;
  bad.row_ptr.pop_back();
  EXPECT_THROW(validate(bad), InputError);
  bad = s;
  bad.rows = -1;
  EXPECT_THROW(validate(bad), InputError);

  CvseMatrix cv = cvse_from_dense(d.view(), 4);  // 9 rows: 3 padding rows in group 2
  CvseMatrix cbad = cv;
  cbad.v = 3;
  EXPECT_THROW(validate(cbad), InputError);
  cbad = cv;
  ASSERT_GT(cbad.row_ptr[3], cbad.row_ptr[2]);
  cbad.values[static_cast<size_t>(cbad.row_ptr[2]) * 4 + 3] = 1.0f;  // padding row
  EXPECT_THROW(validate(cbad), InputError);

  NmMatrix nm = nm_from_dense(DenseMatrix(2, 8).view(), 2, 4, NmAxis::Row);
  nm.offsets[1] = nm.offsets[0];
  EXPECT_THROW(validate(nm), InputError);

  BsrMatrix b = bsr_from_dense(d.view(), 2, 2);
  b.values.pop_back();
  EXPECT_THROW(validate(b), InputError);
}

TEST(Formats, EmptyAndDegenerateShapes) {
  for (auto [r, c] : {std::pair<int64_t, int64_t>{0, 0}, {0, 5}, {5, 0}, {1, 1}}) {
    const DenseMatrix d(r, c);
    EXPECT_EQ(to_dense(csr_from_dense(d.view())), d);
    EXPECT_EQ(to_dense(cvse_from_dense(d.view(), 8)), d);
    EXPECT_EQ(to_dense(bsr_from_dense(d.view(), 4, 4)), d);
    EXPECT_EQ(to_dense(nm_from_dense(d.view(), 2, 4, NmAxis::Row)), d);
    EXPECT_EQ(to_dense(vnm_from_dense(d.view(), 4, 2, 8)), d);
  }
  EXPECT_THROW(DenseMatrix(-1, 3), InputError);
  EXPECT_THROW(cvse_from_dense(DenseMatrix(2, 2).view(), 3), InputError);
  EXPECT_THROW(bsr_from_dense(DenseMatrix(2, 2).view(), 0, 2), InputError);
  EXPECT_THROW(nm_from_dense(DenseMatrix(2, 2).view(), 5, 4, NmAxis::Row), InputError);
  ConstMatrixView bad{nullptr, 3, 3, 3};
  EXPECT_THROW(csr_from_dense(bad), InputError);
  ConstMatrixView bad_ld{nullptr, 0, 3, 2};
  EXPECT_THROW(csr_from_dense(bad_ld), InputError);
}

TEST(FormatSpec, ParseAndPrint) {
  for (const char* t : {"dense", "csr", "bsr:4x4", "cvse:8", "nm:2:4", "nm:1:8:col", "vnm:64:2:8"})
    EXPECT_EQ(parse_format(t).str(), t);
  EXPECT_EQ(parse_format("CVSE:16").v, 16);
  EXPECT_EQ(parse_format("nm:2:4:row").str(), "nm:2:4");
  EXPECT_DOUBLE_EQ(parse_format("nm:2:4").intrinsic_sparsity(), 0.5);
  EXPECT_DOUBLE_EQ(parse_format("vnm:64:2:8").intrinsic_sparsity(), 0.75);
  EXPECT_EQ(parse_format("cvse:8").levels().str(), "UOP(rows/8; p32) CP(cols; m32 p0) U(rows%8)");
  for (const char* t : {"", "csr:1", "cvse", "cvse:3", "cvse:x", "bsr:4", "bsr:0x4", "nm:5:4",
                        "nm:2:4:diag", "vnm:8:5:8", "vnm:8:2:2", "coo", "cvse:-8"})
    EXPECT_THROW(parse_format(t), InputError) << t;
}

TEST(FormatSpec, ConvertAndFootprintThroughAnySparse) {
  const DenseMatrix d = random_sparse(16, 24, 0.3, 11);
  for (const char* t : {"dense", "csr", "bsr:2x2", "cvse:4"}) {
    const AnySparse a = convert(d.view(), parse_format(t));
    EXPECT_EQ(spec_of(a).str(), t);
    EXPECT_EQ(to_dense(a), d);
    EXPECT_EQ(rows_of(a), 16);
    EXPECT_EQ(cols_of(a), 24);
    EXPECT_NO_THROW(validate(a));
    EXPECT_GT(footprint(a).total(), 0);
  }
  EXPECT_EQ(footprint(AnySparse(d)).total(), 16 * 24 * 4);
}

}  // namespace
}  // namespace sparsemap::sparse
