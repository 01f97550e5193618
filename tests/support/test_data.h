// Test helper: the repository's test data (tests/data/<system>/), found through
// SPARSEMAP_SOURCE_DIR.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#ifndef SPARSEMAP_SOURCE_DIR
#error "SPARSEMAP_SOURCE_DIR must be defined (CMake defines it for every test binary)"
#endif

namespace sparsemap::testing {

// <source>/tests/data/<sub>: the data lives in the repository, so its absence is a failure
// (a broken checkout), never a reason to skip.
inline std::string test_data_dir(const std::string& sub) {
  return (std::filesystem::path(SPARSEMAP_SOURCE_DIR) / "tests" / "data" / sub)
      .lexically_normal()
      .string();
}

}  // namespace sparsemap::testing

// Declares `const std::string var` = test_data_dir(sub) and FAILs the test (returning from its
// body) when that folder is missing. Use at the top of a TEST body.
#define SPARSEMAP_TEST_DATA(var, sub)                                                  \
  const std::string var = ::sparsemap::testing::test_data_dir(sub);                    \
  ASSERT_TRUE(std::filesystem::is_directory(var))                                      \
      << var << " is missing: test data belongs to the repository (tests/data/" << sub \
      << ", see its PROVENANCE.md)"
