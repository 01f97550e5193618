// Test and fitting helper: the rows of FuseMax's FLAT tables (tests/data/flat/*.csv) as maps
// from column name to text, and the attention model's inputs they describe. Shared by
// src/cost/attention_test.cpp and bench/flat_fit.cpp, so both read a row the same way.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sparsemap/arch/presets.h"
#include "sparsemap/cost/attention.h"

namespace sparsemap::testing::flat {

using Row = std::map<std::string, std::string>;

// Every data row of a CSV file with a header line; empty when the file cannot be read.
inline std::vector<Row> read_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<Row> rows;
  std::string line;
  if (!std::getline(in, line)) return rows;
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) header.push_back(c);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    Row r;
    std::string c;
    for (size_t i = 0; std::getline(ss, c, ','); ++i)
      if (i < header.size()) r[header[i]] = c;
    rows.push_back(r);
  }
  return rows;
}

inline cost::AttentionShape shape_of(const Row& r) {
  cost::AttentionShape s;
  s.batch = std::stoll(r.at("B"));
  s.heads = std::stoll(r.at("H"));
  s.queries = std::stoll(r.at("P"));
  s.keys = std::stoll(r.at("M"));
  s.e = std::stoll(r.at("E"));
  s.f = std::stoll(r.at("F"));
  s.d_model = std::stoll(r.at("D"));
  s.ffn = std::stoll(r.at("S"));
  return s;
}

inline cost::Stationarity stat_of(const std::string& s) {
  return s == "output" ? cost::Stationarity::Output
                       : (s == "weight" ? cost::Stationarity::Weight : cost::Stationarity::Input);
}

inline cost::FlatConfig config_of(const Row& r) {
  cost::FlatConfig c;
  c.granularity =
      r.at("fusion_granularity") == "row" ? cost::Granularity::Row : cost::Granularity::Head;
  c.row_tile = std::stoll(r.at("P1"));
  const char* locs[cost::kNumAttnTensors] = {"Q_loc", "K_loc", "QK_loc",
                                             "A_loc", "V_loc", "AV_loc"};
  for (int t = 0; t < cost::kNumAttnTensors; ++t) c.on_chip[t] = r.at(locs[t]) == "onchip";
  c.qk = stat_of(r.at("QK_stationarity"));
  c.av = stat_of(r.at("AV_stationarity"));
  return c;
}

// The FLAT platform ("cloud" or "edge") as the attention model's hardware.
inline cost::AttentionHw hw_of(const std::string& platform) {
  return cost::attention_hw(arch::preset(platform == "cloud" ? "flat-cloud" : "flat-edge"));
}

}  // namespace sparsemap::testing::flat
