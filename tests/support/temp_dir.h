// Test helper: a fresh temporary folder, removed with everything in it when the test ends.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace sparsemap::testing {

struct TempDir {
  std::filesystem::path path;
  // <tmp>/sparsemap_<prefix>_<gtest seed>_<test name>, emptied first.
  explicit TempDir(const std::string& prefix) {
    path = std::filesystem::temp_directory_path() /
           ("sparsemap_" + prefix + "_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  // Writes `text` to path / relative (creating its folders); returns the file's path.
  std::string write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path p = path / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

}  // namespace sparsemap::testing
