// libFuzzer target for Timeloop architectures (io::parse_timeloop_yaml's `architecture:`, both
// the v0.4 tag form and the flattened subtree/local form, with architecture_constraints).
// Checked on every input: the reader returns or throws InputError; an accepted architecture has
// at least one instance of everything, meshes that fit the instances, non-negative capacities;
// the companion problem mapped entirely onto its outermost level goes through the loop-nest
// model without throwing (timeloop_fuzz.h).
#include "timeloop_fuzz.h"

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  return {
      {"tag.yaml", kTimeloopArch},
      {"flat.yaml",
       "architecture:\n  version: 0.3\n  subtree:\n  - name: System\n    local:\n"
       "    - name: DRAM\n      class: DRAM\n      attributes: {width: 64, word-bits: 8}\n"
       "    subtree:\n    - name: PE[0..15]\n      local:\n      - name: Buf\n"
       "        class: regfile\n        attributes: {depth: 16, width: 16, datawidth: 8, "
       "meshX: 4, block-size: 2}\n      - name: mac[0..0]\n        class: intmac\n"
       "        attributes: {datawidth: 8, meshX: 4}\n"
       "architecture_constraints:\n  targets:\n  - target: Buf\n    type: bypass\n"
       "    keep: [Outputs]\n  - target: DRAM\n    type: temporal\n    factors: K=1\n"
       "    permutation: PRK\n"},
      {"parallel.yaml",
       "architecture:\n  version: 0.4\n  nodes:\n  - !Container\n    name: S\n"
       "  - !Component\n    name: D\n    class: DRAM\n    attributes: {width: 8, datawidth: 8}\n"
       "  - !Parallel\n    nodes:\n    - !Component\n      name: A\n      class: SRAM\n"
       "      attributes: {depth: 8, width: 8, datawidth: 8, read_bandwidth: 2}\n"
       "    - !Component\n      name: B\n      class: SRAM\n      attributes: {depth: 8, "
       "width: 8, datawidth: 8, shared_bandwidth: 1.5}\n  - !Component\n    name: M\n"
       "    class: intmac\n    attributes: {width: 8}\n"}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  static const io::TimeloopInputs problem = fuzz::companion(fuzz::kTimeloopProblem);
  const std::string text(reinterpret_cast<const char*>(data), size);
  io::TimeloopInputs in;
  if (!fuzz::accepts([&] { in = io::parse_timeloop_yaml(text, "fuzz.yaml"); }) || !in.arch)
    return 0;
  const arch::Hierarchy& h = *in.arch;
  for (const arch::StorageLevel& l : h.storage)
    if (l.instances < 1 || l.mesh_x < 1 || l.mesh_y < 1 || l.depth < 0 || l.block_size < 1 ||
        l.cluster_size < 1)
      fuzz::finding("level " + l.name + ": instances " + std::to_string(l.instances) + ", mesh " +
                    std::to_string(l.mesh_x) + "x" + std::to_string(l.mesh_y) + ", depth " +
                    std::to_string(l.depth) + ", block " + std::to_string(l.block_size) +
                    ", cluster " + std::to_string(l.cluster_size));
  if (h.compute.instances < 1) fuzz::finding("compute instances < 1");
  fuzz::check_evaluation(*problem.problem, h, fuzz::everything_outermost(*problem.problem, h),
                         nullptr);
  return 0;
}
