// libFuzzer target for Timeloop problems (io::parse_timeloop_yaml's `problem:`: shape with
// dimensions, coefficients and projections, instance with bounds and coefficient values).
// Checked on every input: the reader returns or throws InputError; an accepted problem has a
// bound >= 1 for every dimension and data spaces that project only its dimensions; its
// operations() does not overflow silently (INT64_MAX at most); the problem mapped entirely onto
// the companion architecture's outermost level goes through the loop-nest model without
// throwing (timeloop_fuzz.h).
#include "timeloop_fuzz.h"

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  return {{"conv1d.yaml", kTimeloopProblem},
          {"strided.yaml",
           "problem:\n  shape:\n    name: CNN\n    dimensions: [C, R, P]\n    coefficients:\n"
           "    - name: Wstride\n      default: 1\n    - name: Wdilation\n      default: 1\n"
           "    data_spaces:\n    - name: Weights\n      projection: [[[C]], [[R]]]\n"
           "    - name: Inputs\n      projection: [[[C]], [[R, Wdilation], [P, Wstride]]]\n"
           "    - name: Outputs\n      projection: [[[P]]]\n      read_write: true\n"
           "  instance: {C: 2, R: 3, P: 5, Wstride: 2}\n"},
          {"text_axes.yaml",
           "problem:\n  shape:\n    name: G\n    dimensions: [M, N, K]\n    data_spaces:\n"
           "    - {name: A, projection: [\"M\", \"K\"]}\n    - {name: B, projection: [K, N]}\n"
           "    - {name: Z, projection: [M, \"N\"], read_write: true}\n"
           "  instance: {M: 4, N: 4, K: 8}\n"}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  static const io::TimeloopInputs arch = fuzz::companion(fuzz::kTimeloopArch);
  const std::string text(reinterpret_cast<const char*>(data), size);
  io::TimeloopInputs in;
  if (!fuzz::accepts([&] { in = io::parse_timeloop_yaml(text, "fuzz.yaml"); }) || !in.problem)
    return 0;
  const workload::Einsum& p = *in.problem;
  for (const std::string& d : p.dims)
    if (p.bound(d) < 1) fuzz::finding("dimension " + d + " has bound < 1");
  for (const workload::DataSpace& ds : p.data_spaces)
    for (const auto& axis : ds.projection)
      for (const workload::ProjectionTerm& t : axis)
        if (p.dim_index(t.dim) < 0) fuzz::finding(ds.name + " projects an unknown dimension");
  if (p.operations() < 1) fuzz::finding("operations() < 1");
  fuzz::check_evaluation(p, *arch.arch, fuzz::everything_outermost(p, *arch.arch), nullptr);
  return 0;
}
