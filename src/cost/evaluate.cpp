// evaluate(): construct and precheck, analyse, then the physical bounds and the energy.
#include "sparsemap/cost/evaluate.h"

#include <algorithm>
#include <cmath>

#include "model_internal.h"

namespace sparsemap::cost {

std::string_view status_name(Status s) {
  switch (s) {
    case Status::Ok:
      return "ok";
    case Status::Infeasible:
      return "infeasible";
    default:
      return "invalid";
  }
}

std::string_view tensor_name(int t) {
  static constexpr std::string_view kNames[] = {"input", "weight", "output"};
  return t >= 0 && t < kNumTensors ? kNames[t] : "?";
}

Cost evaluate(const workload::Layer& layer, const arch::Arch& arch, const mapping::Mapping& mapping,
              const EvalOptions& options) {
  Cost c;
  c.macs = layer.macs();
  detail::Problem p;
  if (!detail::build_problem(layer, arch, mapping, options, p, c)) return c;
  detail::TopResult r;
  detail::analyze(p, r);
  if (!r.valid || r.mapped_macs <= 0) {
    c.status = Status::Invalid;
    c.reason = "some step of the mapping computes no output (a tile narrower than its filter)";
    return c;
  }

  // Work: the MACs the tiles perform (never fewer than the layer's) and the effectual ones.
  const SparsityOptions& sp = options.sparsity;
  c.mapped_macs = std::max(r.mapped_macs, static_cast<double>(c.macs));
  c.effectual_macs = c.mapped_macs * effectual_fraction(sp);
  c.pes_used = std::max<int64_t>(1, std::llround(r.max_active));
  c.avg_pes_utilized = r.avg_active;

  // Runtime, never below the array bound: each used PE performs at most one MAC per cycle
  // (ineffectual MACs take their cycle unless skipped).
  //   runtime >= ceil(work / pes_used),  work = effectual MACs (skip) or mapped MACs (gate)
  const double work = sp.mode == SparseMode::Skip ? c.effectual_macs : c.mapped_macs;
  const double bound = std::ceil(work / static_cast<double>(c.pes_used) - 1e-9);
  c.runtime_cycles = std::llround(std::max(r.runtime, bound));
  c.compute_cycles = r.compute_cycles;

  for (int t = 0; t < kNumTensors; ++t) {
    c.access[t] = AccessCounts{r.counts[t][0], r.counts[t][1], r.counts[t][2], r.counts[t][3]};
    // Buffer needs: words (compressed when stored compressed) times the word size.
    const int64_t wb = std::max<int64_t>(1, arch.word_bytes);
    c.l1_bytes_by_tensor[t] =
        static_cast<int64_t>(std::ceil(r.l1_words[t] * p.words_per_elem[t] - 1e-9)) * wb;
    c.l2_bytes_by_tensor[t] =
        static_cast<int64_t>(std::ceil(r.l2_words[t] * p.words_per_elem[t] - 1e-9)) * wb;
    c.l1_bytes += c.l1_bytes_by_tensor[t];
    c.l2_bytes += c.l2_bytes_by_tensor[t];
  }
  c.noc_words_per_cycle = r.noc_peak;
  c.noc_avg_words_per_cycle = r.noc_avg;
  c.offchip_words_per_cycle = r.offchip_req;
  c.ingress = r.ingress;
  c.egress = r.egress;
  c.compute = r.compute;

  detail::finish_energy(p, arch, options, c);

  if (options.enforce_buffers) {
    if (c.l1_bytes > arch.l1_bytes) {
      c.status = Status::Infeasible;
      c.reason = "needs " + std::to_string(c.l1_bytes) + " B of L1 per PE; the accelerator has " +
                 std::to_string(arch.l1_bytes) + " B";
    } else if (c.l2_bytes > arch.l2_bytes) {
      c.status = Status::Infeasible;
      c.reason = "needs " + std::to_string(c.l2_bytes) + " B of L2; the accelerator has " +
                 std::to_string(arch.l2_bytes) + " B";
    }
  }
  return c;
}

}  // namespace sparsemap::cost
