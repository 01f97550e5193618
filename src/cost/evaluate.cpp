// evaluate(): construct and precheck, analyse, then the physical bounds and the energy.
#include "sparsemap/cost/evaluate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "model_internal.h"

namespace sparsemap::cost {

namespace {

// The largest cycle or byte count a Cost reports: 2^53, the last integer a double holds
// exactly (a runtime of 2^53 cycles is 104 days at 1 GHz). A count beyond it (or NaN, from a
// degenerate input) makes the Cost infeasible with a reason, so no count is ever rounded,
// wrapped or converted out of range, and sums over a model's layers fit in an int64.
constexpr double kMaxCount = 9007199254740992.0;

std::string count_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

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
  const double runtime = std::max(r.runtime, bound);
  if (!(runtime <= kMaxCount)) {  // NaN included: never a wrapped or rounded count
    c.status = Status::Infeasible;
    c.reason = "runtime of " + count_text(runtime) + " cycles is beyond the model's 2^53 limit";
    return c;
  }
  c.runtime_cycles = std::llround(runtime);
  c.compute_cycles = r.compute_cycles;

  for (int t = 0; t < kNumTensors; ++t) {
    c.access[t] = AccessCounts{r.counts[t][0], r.counts[t][1], r.counts[t][2], r.counts[t][3]};
    // Buffer needs: words (compressed when stored compressed) times the word size.
    const double wb = static_cast<double>(std::max<int64_t>(1, arch.word_bytes));
    const double l1 = std::ceil(r.l1_words[t] * p.words_per_elem[t] - 1e-9) * wb;
    const double l2 = std::ceil(r.l2_words[t] * p.words_per_elem[t] - 1e-9) * wb;
    if (!(l1 <= kMaxCount) || !(l2 <= kMaxCount)) {
      c.status = Status::Infeasible;
      c.reason = "needs " + count_text(std::max(l1, l2)) + " B of " + (l1 > l2 ? "L1" : "L2") +
                 " for the " + std::string(tensor_name(t)) + ", beyond the model's 2^53 limit";
      return c;
    }
    c.l1_bytes_by_tensor[t] = static_cast<int64_t>(l1);
    c.l2_bytes_by_tensor[t] = static_cast<int64_t>(l2);
    c.l1_bytes += c.l1_bytes_by_tensor[t];  // at most 3 * 2^53: no overflow
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
