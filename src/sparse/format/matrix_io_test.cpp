// Matrix Market and .npy: round trips, the variants the formats allow, malformed input.
#include "sparsemap/sparse/format/matrix_io.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>

#include "sparsemap/error.h"

namespace sparsemap::sparse {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/sparsemap_io_" + name;
}

DenseMatrix sample() {
  DenseMatrix d(3, 4);
  d.at(0, 1) = 1.5f;
  d.at(1, 3) = -2.25f;
  d.at(2, 0) = 1e-7f;
  d.at(2, 2) = 3.0f;
  return d;
}

TEST(MatrixMarket, RoundTripsCoordinateAndArray) {
  const DenseMatrix d = sample();
  const std::string p = temp_path("a.mtx");
  write_mtx(csr_from_dense(d.view()), p);
  EXPECT_EQ(to_dense(read_mtx(p)), d);
  write_mtx(d, p);
  EXPECT_EQ(read_mtx_dense(p), d);
  EXPECT_EQ(to_dense(read_mtx(p)), d);
  std::remove(p.c_str());
}

TEST(MatrixMarket, SymmetricPatternDuplicatesAndComments) {
  const CsrMatrix s = parse_mtx(
      "%%MatrixMarket matrix coordinate real symmetric\n% comment\n\n3 3 3\n1 1 2\n3 1 4\n3 1 1\n");
  const DenseMatrix d = to_dense(s);
  EXPECT_EQ(d.at(0, 0), 2.0f);
  EXPECT_EQ(d.at(2, 0), 5.0f);  // duplicates summed
  EXPECT_EQ(d.at(0, 2), 5.0f);  // mirrored
  const DenseMatrix p =
      to_dense(parse_mtx("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n"));
  EXPECT_EQ(p.at(1, 0), 1.0f);
  const DenseMatrix k = to_dense(
      parse_mtx("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n"));
  EXPECT_EQ(k.at(0, 1), -3.0f);
  const DenseMatrix a =
      to_dense(parse_mtx("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"));
  EXPECT_EQ(a.at(1, 0), 2.0f);  // column-major
  EXPECT_EQ(a.at(0, 1), 3.0f);
}

TEST(MatrixMarket, MalformedInputThrowsWithLine) {
  const char* bad[] = {"",
                       "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
                       "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n",
                       "%%MatrixMarket matrix coordinate real general\n2 2\n",
                       "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n",
                       "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n",
                       "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n",
                       "%%MatrixMarket matrix coordinate real general\n2 2 5\n",
                       "%%MatrixMarket matrix array real general\n2 2\n1\nx\n",
                       "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n",
                       "%%MatrixMarket matrix coordinate real general\n-1 2 0\n",
                       "%%MatrixMarket matrix coordinate real general\n99999999999 2 0\n",
                       "hello\n"};
  for (const char* t : bad) EXPECT_THROW(parse_mtx(t, "x.mtx"), InputError) << t;
  try {
    parse_mtx("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", "x.mtx");
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 3);
  }
  EXPECT_THROW(read_mtx("/nonexistent/file.mtx"), InputError);
}

// Header sizes are never trusted: every one of these is refused before anything the size asks
// for is allocated (each used to take gigabytes).
TEST(MatrixMarket, DeclaredSizesAreBoundedBeforeAllocation) {
  auto message = [](const std::string& text, bool dense) {
    const std::string p = temp_path("bounded.mtx");
    std::ofstream(p) << text;
    std::string what;
    try {
      if (dense)
        read_mtx_dense(p);
      else
        read_mtx(p);
    } catch (const InputError& e) {
      what = e.what();
    }
    std::remove(p.c_str());
    return what;
  };
  EXPECT_NE(message("%%MatrixMarket matrix array real general\n30000 30000\n1\n", false)
                .find("declares 900000000 values but the rest of the file has room for at most 1"),
            std::string::npos);
  EXPECT_NE(message("%%MatrixMarket matrix coordinate real general\n30000 30000 1\n1 1 2\n", true)
                .find("30000 x 30000 is too large to hold dense (at most 2^26 values)"),
            std::string::npos);
  EXPECT_NE(message("%%MatrixMarket matrix coordinate real general\n100000000 4 1\n1 1 2\n", false)
                .find(":2: sizes must be at most 2^24"),
            std::string::npos);
  EXPECT_NE(message("%%MatrixMarket matrix coordinate real general\n4 4 9\n1 1 2\n", false)
                .find("declares 9 values but the rest of the file has room for at most 3"),
            std::string::npos);
  // A sparse 30000 x 30000 matrix with one entry is fine as CSR.
  EXPECT_EQ(message("%%MatrixMarket matrix coordinate real general\n30000 30000 1\n1 1 2\n", false),
            "");
}

TEST(MatrixMarket, EndlessDeviceIsRefusedWithinTheInputLimit) {
  if (!std::ifstream("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  try {
    read_mtx("/dev/zero");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero: more than 256 MiB"), std::string::npos)
        << e.what();
  }
}

TEST(Npy, RoundTripAndVariants) {
  const DenseMatrix d = sample();
  const std::string p = temp_path("a.npy");
  write_npy(d, p);
  EXPECT_EQ(read_npy(p), d);
  std::remove(p.c_str());
  // float64, Fortran order, 2 x 2: [[1, 2], [3, 4]] stored column-major.
  std::string h = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(h.size());
  bytes += '\0';
  bytes += h;
  for (double v : {1.0, 3.0, 2.0, 4.0}) bytes.append(reinterpret_cast<const char*>(&v), 8);
  const DenseMatrix f = parse_npy(bytes);
  EXPECT_EQ(f.at(0, 1), 2.0f);
  EXPECT_EQ(f.at(1, 0), 3.0f);
  // 1-D int32 reads as one row.
  h = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
  bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(h.size());
  bytes += '\0';
  bytes += h;
  for (int32_t v : {7, -1, 5}) bytes.append(reinterpret_cast<const char*>(&v), 4);
  const DenseMatrix one = parse_npy(bytes);
  EXPECT_EQ(one.rows, 1);
  EXPECT_EQ(one.at(0, 1), -1.0f);
}

TEST(Npy, MalformedInputThrows) {
  auto make = [](const std::string& h, size_t data_bytes) {
    std::string b = std::string("\x93NUMPY\x01\x00", 8);
    b += static_cast<char>(h.size());
    b += '\0';
    return b + h + std::string(data_bytes, '\0');
  };
  EXPECT_THROW(parse_npy("not npy"), InputError);
  EXPECT_THROW(parse_npy(make("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 1), }", 4)),
               InputError);
  EXPECT_THROW(parse_npy(make("{'descr': '<c8', 'fortran_order': False, 'shape': (1, 1), }", 8)),
               InputError);
  EXPECT_THROW(parse_npy(make("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 4)),
               InputError);
  EXPECT_THROW(parse_npy(make("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1), }", 4)),
               InputError);
  EXPECT_THROW(parse_npy(make("{'descr': '<f4', 'shape': (1, 1), }", 4)), InputError);
  EXPECT_THROW(
      parse_npy(
          make("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999), }", 4)),
      InputError);
  std::string truncated = std::string("\x93NUMPY\x01\x00\xff\x00", 10) + "{";
  EXPECT_THROW(parse_npy(truncated), InputError);
  // Never crashes on random bytes behind a valid magic.
  std::mt19937 rng(1);
  for (int i = 0; i < 200; ++i) {
    std::string b = std::string("\x93NUMPY\x01\x00", 8);
    for (int j = 0; j < 80; ++j) b += static_cast<char>(rng() & 0xff);
    try {
      parse_npy(b);
    } catch (const InputError&) {
    }
  }
}

}  // namespace
}  // namespace sparsemap::sparse
