// Test helper: Sparseloop's statistics (timeloop-mapper.stats.txt of a sparse run) read as
// reference numbers.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sparsemap::cost::sparseloop_ref {

// A data space at a storage level: every "<kind> scalar <action>s (per-instance)" line by its
// label ("Actual scalar reads", "Skipped scalar format reads", ...). A format line prints a
// number, or one (metadata, payload) pair per rank (innermost last in the file; stored rank 0
// first here).
struct RefDataspace {
  std::map<std::string, int64_t> counts;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> rank_counts;
  double energy_total_pj = -1;
  int64_t get(const std::string& label) const {
    const auto it = counts.find(label);
    return it == counts.end() ? -1 : it->second;
  }
};

struct RefLevel {
  std::string name;
  int64_t cycles = -1;
  std::map<std::string, RefDataspace> ds;
};

struct RefSparseStats {
  int64_t compute_cycles = -1, algorithmic_computes = -1, actual_computes = -1, gated_computes = -1,
          skipped_computes = -1;
  double compute_energy_pj = -1;
  std::vector<RefLevel> levels;  // innermost first, as printed
  int64_t cycles = -1;
  double utilization_pct = -1;
  // Half the last printed digit of utilization_pct: 0.005 for "100.00%" (Timeloop 4), 0.5 for
  // timeloop-model v3.0.3's fraction "1.00".
  double utilization_half_step_pct = 0.005;
  std::map<std::string, double> fj_per_algorithmic_compute, fj_per_compute;
  const RefLevel* level(const std::string& name) const {
    for (const auto& l : levels)
      if (l.name == name) return &l;
    return nullptr;
  }
};

inline std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

inline RefSparseStats read_sparse_stats(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  RefSparseStats r;
  std::string line, ds, rank_label;
  int level_no = -1;
  bool in_levels = true, in_stats = false;
  std::map<std::string, double>* table = nullptr;
  RefLevel* cur = nullptr;
  auto value = [](const std::string& t) { return trimmed(t.substr(t.find(':') + 1)); };
  while (std::getline(in, line)) {
    const std::string t = trimmed(line);
    if (t.rfind("Level ", 0) == 0) level_no = std::stoi(t.substr(6));
    if (t == "Networks") {
      in_levels = false;
      cur = nullptr;
    }
    if (in_levels && t.rfind("=== ", 0) == 0) {
      cur = nullptr;
      in_stats = false;
      ds.clear();
      if (level_no > 0) {
        r.levels.push_back({t.substr(4, t.size() - 8), -1, {}});
        cur = &r.levels.back();
      }
      continue;
    }
    if (in_levels && t == "STATS") in_stats = true;
    if (in_levels && level_no == 0) {
      if (t.rfind("Cycles ", 0) == 0) r.compute_cycles = std::stoll(value(t));
      if (t.rfind("Algorithmic Computes", 0) == 0) r.algorithmic_computes = std::stoll(value(t));
      if (t.rfind("Actual Computes", 0) == 0) r.actual_computes = std::stoll(value(t));
      if (t.rfind("Gated Computes", 0) == 0) r.gated_computes = std::stoll(value(t));
      if (t.rfind("Skipped Computes", 0) == 0) r.skipped_computes = std::stoll(value(t));
      if (t.rfind("Energy (total)", 0) == 0) r.compute_energy_pj = std::stod(value(t));
      continue;
    }
    if (cur && in_stats) {
      if (t.rfind("Cycles ", 0) == 0) cur->cycles = std::stoll(value(t));
      if (!t.empty() && t.back() == ':' && t.find(' ') == std::string::npos) {
        ds = t.substr(0, t.size() - 1);
        continue;
      }
      if (ds.empty()) continue;
      RefDataspace& d = cur->ds[ds];
      if (t == "Max utilized Repr format storage capacity") {
        rank_label = "capacity";
        d.rank_counts[rank_label];
        continue;
      }
      if (t.rfind("Rank ", 0) == 0 && !rank_label.empty()) {
        const auto open = t.rfind('('), comma = t.rfind(','), close = t.rfind(')');
        const int64_t md = std::stoll(t.substr(open + 1, comma - open - 1));
        const int64_t pl = std::stoll(t.substr(comma + 1, close - comma - 1));
        auto& v = d.rank_counts[rank_label];
        v.insert(v.begin(), {md, pl});  // printed outermost rank first
        continue;
      }
      const auto paren = t.find(" (per-instance)");
      if (paren != std::string::npos && t.find("scalar") != std::string::npos) {
        const std::string label = t.substr(0, paren);
        if (t.find(':') == std::string::npos) {
          rank_label = label;
          d.rank_counts[label];
        } else {
          rank_label.clear();
          d.counts[label] = std::stoll(value(t));
        }
        continue;
      }
      if (t.rfind("Energy (total)", 0) == 0) d.energy_total_pj = std::stod(value(t));
      continue;
    }
    if (!in_levels) {
      if (t.rfind("Cycles: ", 0) == 0) r.cycles = std::stoll(t.substr(8));
      if (t.rfind("Utilization: ", 0) == 0) {
        r.utilization_pct = std::stod(t.substr(13));
        if (t.back() != '%') {  // v3.0.3: a fraction with two decimals
          r.utilization_pct *= 100;
          r.utilization_half_step_pct = 0.5;
        }
      }
      if (t.find("Computes = ") != std::string::npos) table = nullptr;
      if (t == "fJ/Algorithmic-Compute") table = &r.fj_per_algorithmic_compute;
      if (t == "fJ/Compute") table = &r.fj_per_compute;
      if (table && t.find(" = ") != std::string::npos) {
        const auto eq = t.find(" = ");
        (*table)[trimmed(t.substr(0, eq))] = std::stod(t.substr(eq + 3));
      }
    }
  }
  return r;
}

}  // namespace sparsemap::cost::sparseloop_ref
