// libFuzzer target for Sparseloop's inputs (io::parse_timeloop_yaml's `sparse_optimizations`,
// both the top-level `targets:` form and the tag form's per-component one, and the problem's
// `densities`). Checked on every input: the reader returns or throws InputError; what it read
// (over a dense-dot-product companion design, or with the input's own problem and densities)
// goes through the Sparseloop model without throwing, and a successful evaluation keeps
// actual + gated + skipped within the algorithmic counts (computes and every level's reads,
// fills and updates), gated and skipped >= 0. (The dense counts themselves are the loop-nest
// model's: a read_write data space with an axis summing dimensions can get negative reads
// there, e.g. projection [[S],[Q]], [[Q]] mapped all at the outermost level.)
#include <algorithm>
#include <nlohmann/json.hpp>

#include "sparsemap/cost/sparseloop.h"
#include "timeloop_fuzz.h"

namespace {

const char* kDotArch = R"(architecture:
  version: 0.4
  nodes:
  - !Container
    name: PE
  - !Component
    name: Backing
    class: DRAM
    attributes: {width: 8, datawidth: 8, metadata_storage_width: 8, metadata_datawidth: 4}
  - !Component
    name: Buffer
    class: storage
    attributes: {depth: 64, width: 8, datawidth: 8, metadata_storage_width: 4,
                 metadata_datawidth: 4, read_bandwidth: 3, write_bandwidth: 1}
  - !Component
    name: mac
    class: intmac
    attributes: {multiplier_width: 8}
)";

const char* kDotProblem = R"(problem:
  version: 0.4
  shape:
    name: MM
    dimensions: [M, N, K]
    data_spaces:
    - {name: A, projection: [[[M]], [[K]]]}
    - {name: B, projection: [[[N]], [[K]]]}
    - {name: Z, projection: [[[M]], [[N]]], read_write: True}
  instance:
    M: 4
    N: 2
    K: 8
    densities:
      A: {distribution: fixed_structured, density: 0.25}
      B: {distribution: hypergeometric, density: 0.5}
)";

const char* kDotMapping = R"(mapping:
  - target: Backing
    type: temporal
    factors: M=2 N=1 K=2
    permutation: KNM
  - target: Buffer
    type: temporal
    factors: M=2 N=2 K=4
    permutation: KNM
)";

}  // namespace

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  return {{"targets.yaml",
           "sparse_optimizations:\n  targets:\n  - name: Buffer\n    representation_format:\n"
           "      data_spaces:\n      - name: A\n        ranks:\n        - format: UOP\n"
           "        - format: CP\n          metadata_word_bits: 4\n    action_optimization:\n"
           "    - type: skipping\n      options:\n      - target: B\n        condition_on: [A]\n"
           "    - type: gating\n      options:\n      - target: Z\n        condition_on: [A, B]\n"
           "  - name: mac\n    compute_optimization:\n    - type: gating\n"},
          {"tag.yaml",
           "architecture:\n  version: 0.4\n  nodes:\n  - !Container\n    name: PE\n"
           "  - !Component\n    name: Buffer\n    class: storage\n    attributes: {depth: 64, "
           "width: 8, datawidth: 8}\n    sparse_optimizations:\n      representation_format:\n"
           "        data_spaces:\n        - name: A\n          ranks: [{format: B}, "
           "{format: RLE}]\n      action_optimization:\n      - type: gating\n        target: "
           "B\n        condition_on: A\n  - !Component\n    name: mac\n    class: intmac\n"
           "    attributes: {multiplier_width: 8}\n"},
          {"densities.yaml", kDotProblem}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  static const io::TimeloopInputs arch = fuzz::companion(kDotArch);
  static const io::TimeloopInputs problem = fuzz::companion(kDotProblem);
  static const io::TimeloopInputs mapping = fuzz::companion(kDotMapping);
  const std::string text(reinterpret_cast<const char*>(data), size);
  io::TimeloopInputs in;
  if (!fuzz::accepts([&] { in = io::parse_timeloop_yaml(text, "fuzz.yaml"); })) return 0;
  if (!in.sparse && in.densities.empty()) return 0;
  const arch::SparseOptimizations none;
  const auto& sparse = in.sparse ? *in.sparse : none;
  const auto& densities = in.densities.empty() ? problem.densities : in.densities;
  const workload::Einsum& p = in.problem ? *in.problem : *problem.problem;
  const arch::Hierarchy& h = *arch.arch;
  const mapping::LoopNest m = in.problem ? fuzz::everything_outermost(p, h) : *mapping.mapping;
  cost::SparseLoopResult r;
  try {
    r = cost::evaluate_sparseloop(p, h, m, nullptr, sparse, densities);
    (void)r.to_json();
  } catch (const std::exception& e) {
    fuzz::finding(std::string("evaluate_sparseloop threw: ") + e.what());
  }
  if (!r.ok()) return 0;
  if (r.actual_computes < 0 || r.gated_computes < 0 || r.skipped_computes < 0 ||
      r.actual_computes + r.gated_computes + r.skipped_computes > r.algorithmic_computes)
    fuzz::finding("computes: " + std::to_string(r.algorithmic_computes) + " algorithmic, " +
                  std::to_string(r.actual_computes) + " actual, " +
                  std::to_string(r.gated_computes) + " gated, " +
                  std::to_string(r.skipped_computes) + " skipped");
  for (const auto& l : r.levels)
    for (const auto& d : l.dataspaces)
      for (const cost::SparseCounts* c : {&d.reads, &d.fills, &d.updates})
        // Relative to the dense model's counts (algorithmic), which this target does not judge.
        if (c->actual < std::min<int64_t>(0, c->algorithmic) || c->gated < 0 || c->skipped < 0 ||
            c->actual + c->gated + c->skipped > c->algorithmic)
          fuzz::finding(l.name + " " + d.name + ": negative or excess counts");
  return 0;
}
