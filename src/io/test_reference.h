// Test helper: where the shared reference data (MAESTRO outputs, ...) lives.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace sparsemap::testing {

// The reference directory: $SPARSEMAP_REFERENCE_DIR, else SPARSEMAP_SOURCE_DIR/../shared/reference
// (SPARSEMAP_SOURCE_DIR is defined by CMake for every test binary). Empty when it does not exist.
inline std::string reference_dir() {
  std::string dir;
  if (const char* env = std::getenv("SPARSEMAP_REFERENCE_DIR"); env && *env) {
    dir = env;
  } else {
#ifdef SPARSEMAP_SOURCE_DIR
    dir = std::string(SPARSEMAP_SOURCE_DIR) + "/../shared/reference";
#endif
  }
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return {};
  return std::filesystem::path(dir).lexically_normal().string();
}

// True when running in CI (env CI == "true"), where missing reference data is a failure.
inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

}  // namespace sparsemap::testing

// Declares `const std::string var` = reference_dir(); when the data is missing, the test
// FAILs in CI and is skipped elsewhere. Use at the top of a TEST body.
#define SPARSEMAP_REFERENCE_DIR_OR_SKIP(var)                                    \
  const std::string var = ::sparsemap::testing::reference_dir();                \
  if (var.empty()) {                                                            \
    if (::sparsemap::testing::in_ci()) {                                        \
      FAIL() << "reference data not found (set SPARSEMAP_REFERENCE_DIR)";       \
    } else {                                                                    \
      GTEST_SKIP() << "reference data not found (set SPARSEMAP_REFERENCE_DIR)"; \
    }                                                                           \
  }
