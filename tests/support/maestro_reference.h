// Test helper: MAESTRO's reference runs (tests/data/maestro) as evaluable records.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sparsemap/cost/evaluate.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/dfsl.h"
#include "support/test_data.h"

namespace sparsemap::cost::testing {

// One row of a MAESTRO CSV, by trimmed column name.
using Row = std::map<std::string, std::string>;

inline std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

inline std::vector<Row> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<Row> rows;
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(trim(cell));
    if (header.empty()) {
      header = cells;
      continue;
    }
    Row r;
    for (size_t i = 0; i < cells.size() && i < header.size(); ++i) r[header[i]] = cells[i];
    rows.push_back(std::move(r));
  }
  return rows;
}

inline double num(const Row& r, const std::string& key) {
  auto it = r.find(key);
  return it == r.end() || it->second.empty() ? NAN : std::stod(it->second);
}

// A layer to evaluate with what MAESTRO printed for it.
struct Record {
  std::string source;  // "random/case007", "Resnet50_kcp_ws/CONV1", ...
  io::DfslLayer dl;
  arch::Arch arch;
  bool even = false;
  bool has_expected = false;
  double runtime = 0, energy = 0, l1 = 0, l2 = 0, macs = 0;
  double noc_bw = NAN, offchip_bw = NAN;  // networks only (random/'s are rounded by MAESTRO)
  double counts[kNumTensors][4] = {};     // l1 read, l1 write, l2 read, l2 write
  std::string network;  // for the example networks: evaluation order matters for energy
  int index = 0;        // layer index in its network
};

// MAESTRO prints this energy (nJ): 0.00023 x (18.61 x (L2 reads and writes of input and weight
// + L2 writes of the output) + 1.68 x L1), where L1 is the total L1 reads and writes of the
// layer itself when its mapping has one cluster level, and otherwise those of the layer printed
// before it (its per-layer loop reads them before they are updated; 0 for the first layer).
// That second case is a MAESTRO defect; this reproduces it from our counts to check them.
inline double maestro_energy(const Cost& c, int nlevels, double prev_l1_total) {
  const auto& a = c.access;
  const double l2 = a[kInput].l2_reads + a[kInput].l2_writes + a[kWeight].l2_reads +
                    a[kWeight].l2_writes + a[kOutput].l2_writes;
  double own_l1 = 0;
  for (const auto& t : a) own_l1 += t.l1_reads + t.l1_writes;
  const double l1 = nlevels == 1 ? own_l1 : prev_l1_total;
  return 0.00023 * (18.61 * l2 + 1.68 * l1);
}

inline double total_l1(const Cost& c) {
  double s = 0;
  for (const auto& t : c.access) s += t.l1_reads + t.l1_writes;
  return s;
}

inline int cluster_levels(const mapping::Mapping& m) {
  int n = 1;
  for (const auto& d : m.directives) n += d.kind == mapping::DirectiveKind::Cluster;
  return n;
}

inline bool is_even(const io::DfslLayer& l) {
  return !l.clamped && !has_loop_edges(l.layer, l.mapping);
}

// A key for "distinct (layer, mapping, hardware)".
inline std::string key_of(const Record& r) {
  std::string k = std::string(workload::op_kind_name(r.dl.layer.kind));
  for (int64_t d : r.dl.layer.dims) k += "," + std::to_string(d);
  k += ",s" + std::to_string(r.dl.layer.stride.y) + "x" + std::to_string(r.dl.layer.stride.x);
  for (const auto& d : r.dl.mapping.directives) k += mapping::to_dfsl(d);
  k += "|" + std::to_string(r.arch.num_pes) + "," + std::to_string(r.arch.l1_bytes) + "," +
       std::to_string(r.arch.l2_bytes) + "," + std::to_string(r.arch.noc_words_per_cycle) + "," +
       std::to_string(r.arch.offchip_words_per_cycle);
  return k;
}

inline void fill_expected(Record& r, const Row& row, bool network_csv) {
  r.has_expected = true;
  if (network_csv) {
    r.runtime = num(row, "Runtime (Cycles)");
    r.energy = num(row, "Activity count-based Energy (nJ)");
    r.l1 = num(row, "L1 SRAM Size Req (Bytes)");
    r.l2 = num(row, "L2 SRAM Size Req (Bytes)");
    r.macs = num(row, "Num MACs");
    r.noc_bw = num(row, "NoC BW Req (Elements/cycle)");
    r.offchip_bw = num(row, "Offchip BW Req (Elements/cycle)");
    const char* names[] = {"input", "filter", "output"};
    const char* cols[] = {" l1 read", " l1 write", " l2 read", " l2 write"};
    for (int t = 0; t < kNumTensors; ++t)
      for (int k = 0; k < 4; ++k) r.counts[t][k] = num(row, std::string(names[t]) + cols[k]);
  } else {
    r.runtime = num(row, "runtime_cycles");
    r.energy = num(row, "energy_nj");
    r.l1 = num(row, "l1_req_bytes");
    r.l2 = num(row, "l2_req_bytes");
    r.macs = num(row, "num_macs");
    for (auto& t : r.counts)
      for (double& v : t) v = NAN;
  }
}

// The single-layer cases of a directory (random/, uneven/, invalid/) with their outputs.
inline std::vector<Record> load_cases(const std::string& dir, const std::string& csv) {
  std::vector<Record> out;
  for (const Row& row : read_csv(dir + "/" + csv)) {
    const std::string c = row.at("case");
    if (row.count("status") && row.at("status") != "ok") continue;
    Record r;
    r.source = std::filesystem::path(dir).filename().string() + "/" + c;
    const io::DfslNetwork net = io::read_dfsl(dir + "/" + c + ".m");
    r.dl = net.layers.at(0);
    r.arch = io::read_maestro_hw(dir + "/" + c + ".hw.m");
    r.even = is_even(r.dl);
    fill_expected(r, row, false);
    out.push_back(std::move(r));
  }
  return out;
}

// Every layer of the example networks that have an expected CSV, in file order.
inline std::vector<Record> load_networks(const std::string& ref) {
  std::vector<Record> out;
  const arch::Arch hw = io::read_maestro_hw(ref + "/accelerator_1.m");
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(ref + "/expected"))
    names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const io::DfslNetwork net = io::read_dfsl(ref + "/networks/" + name + ".m");
    const std::vector<Row> rows = read_csv(ref + "/expected/" + name + ".csv");
    EXPECT_EQ(rows.size(), net.layers.size()) << name;
    for (size_t i = 0; i < net.layers.size() && i < rows.size(); ++i) {
      Record r;
      r.source = name + "/" + net.layers[i].layer.name;
      r.network = name;
      r.index = static_cast<int>(i);
      r.dl = net.layers[i];
      r.arch = hw;
      r.even = is_even(r.dl);
      fill_expected(r, rows[i], true);
      out.push_back(std::move(r));
    }
  }
  return out;
}

// Relative error |a - b| / max(|b|, 1).
inline double rel_err(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1.0); }

// "p50 0.00% p90 0.00% p95 0.12% p99 1.3% max 4.1%".
inline std::string distribution(std::vector<double> v) {
  if (v.empty()) return "(none)";
  std::sort(v.begin(), v.end());
  auto q = [&](double f) { return v[std::min(v.size() - 1, static_cast<size_t>(f * v.size()))]; };
  char buf[160];
  std::snprintf(buf, sizeof buf, "p50 %.3g%% p90 %.3g%% p95 %.3g%% p99 %.3g%% max %.3g%%",
                100 * q(0.5), 100 * q(0.9), 100 * q(0.95), 100 * q(0.99), 100 * v.back());
  return buf;
}

inline double fraction_within(const std::vector<double>& v, double tol) {
  if (v.empty()) return 1.0;
  return static_cast<double>(
             std::count_if(v.begin(), v.end(), [&](double e) { return e <= tol + 1e-12; })) /
         static_cast<double>(v.size());
}

}  // namespace sparsemap::cost::testing
