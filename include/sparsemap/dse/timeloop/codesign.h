// Co-design on a Timeloop template: the architecture's spatial fan-outs and buffer depths are
// searched under an area budget priced by its ART, each candidate scored by mapping a whole
// network on it (map_network) with the architecture's own bandwidths and ERT.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sparsemap/arch/hierarchy.h"
#include "sparsemap/dse/timeloop/network.h"

namespace sparsemap::dse::timeloop {

// What a candidate may change, relative to the template:
// - each spatial fan-out (a level whose instances below exceed its own) along meshX and meshY:
//   any of kMeshChoices (the instances of every level below, and of the compute units, follow;
//   so do their meshes);
// - each bounded storage level but the outermost: its depth scaled by 1/8, 1/4, 1/2 or 1 (only
//   down: the ERT prices an access at the template's size, which over-prices a smaller buffer,
//   so the search never gains from energies the table does not hold).
// Area: arch::area_um2 of the candidate with the template's ART, a storage component's area per
// instance scaled by its depth ratio (area proportional to capacity).
inline constexpr int64_t kMeshChoices[] = {1, 2, 3, 4, 6, 7, 8, 12, 14, 16, 24, 28, 32};
inline constexpr double kDepthScales[] = {0.125, 0.25, 0.5, 1.0};

struct CodesignOptions {
  double area_budget_um2 = 0;  // > 0
  int64_t designs = 200;       // candidates evaluated by the outer search (every one counted)
  std::string algo = "ga";     // the outer optimiser (search engine names)
  uint64_t seed = 1;
  int threads = 1;
  Metric objective = Metric::kEdp;  // of the network's totals
  NetworkOptions network;           // the inner mapper (its budget per layer)
  // The template and the best candidate are mapped again with this budget per layer for the
  // figures reported (0: the inner budget).
  int64_t final_budget = 0;
  // Polled from any thread before each candidate is mapped (search::Observer::stop_requested):
  // true skips the remaining candidates of the batch, so that the caller's next progress report
  // can stop the run. Empty: never.
  std::function<bool()> stop;
};

struct Candidate {
  arch::Hierarchy hierarchy;
  arch::AreaTable art;
  double area_um2 = 0;
};

struct CodesignResult {
  Candidate base, best;                      // the template and the best candidate
  NetworkResult base_network, best_network;  // each mapped with final_budget per layer
  int64_t designs = 0, feasible = 0;         // candidates evaluated, within the budget and mappable
  int64_t evaluations = 0;  // loop-nest evaluations, every candidate and both finals
  double seconds = 0;
};

// The knobs of `h` (fan-outs, depths) and the candidate a genome of them decodes to.
class TemplateSpace {
 public:
  TemplateSpace(const arch::Hierarchy& h, const arch::AreaTable& art);
  size_t genes() const { return knobs_.size(); }
  Candidate decode(const std::vector<double>& genome) const;
  Candidate base() const;
  // The genome closest to the template (its fan-outs where kMeshChoices has them, depths x 1):
  // the outer search's first candidate.
  std::vector<double> base_genome() const;

 private:
  struct Knob {
    enum Kind { kMeshX, kMeshY, kDepth } kind;
    int level;
  };
  const arch::Hierarchy& h_;
  const arch::AreaTable& art_;
  std::vector<Knob> knobs_;
  Candidate build(const std::vector<int64_t>& mesh_x, const std::vector<int64_t>& mesh_y,
                  const std::vector<double>& depth_scale) const;
};

// Searches candidates for `layers` under o.area_budget_um2. Throws InputError for a budget the
// template's smallest candidate exceeds, or bad options.
CodesignResult codesign(const std::vector<NetworkLayer>& layers, const arch::Hierarchy& h,
                        const arch::EnergyTable* ert, const arch::AreaTable& art,
                        const CodesignOptions& o,
                        const std::function<void(int64_t, int64_t)>& progress = {});

}  // namespace sparsemap::dse::timeloop
