// Attention-block cost model: FLAT's fused dataflow (Kao et al., ASPLOS 2023) at batch, head
// and row granularity, and the unfused baseline (QK, softmax, AV as separate operators).
//
// Notation (one attention block): B batch, H heads, N queries, M keys (M = N in
// self-attention), E the Q/K head dimension, F the V head dimension, w bytes per element.
// Hardware: a Pd x Pd PE array (pe_rows x pe_cols; Pd = min of the two where a formula needs
// one side), an on-chip buffer of S bytes, DRAM bandwidth BW bytes/s, clock f Hz, and a 1-D
// softmax unit of `softmax_lanes` lanes doing `softmax_passes` element passes per logit.
//
// Tensors of the fused block: Q [N x E], K [M x E], L = QK^T [N x M] (the logits),
// A = softmax(L) [N x M], V [M x F], O = AV [N x F]; each is kept on chip (in the buffer) or
// off chip (bypassing the buffer: streamed from or to DRAM, reused only in PE registers).
//
// All formulas are written per (batch, head) pair in elements and multiplied by w*B*H; they
// are given with their units above each function in attention.cpp and in docs/flat.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "sparsemap/arch/arch.h"

namespace sparsemap::cost {

// One attention block. d_model and ffn are only used to check the head dimension and for the
// end-to-end layer (projections and FFN); 0 means "not given" (no check, no layer rest).
struct AttentionShape {
  int64_t batch = 1;
  int64_t heads = 1;
  int64_t queries = 1;  // N
  int64_t keys = 1;     // M
  int64_t e = 64;       // Q/K head dimension
  int64_t f = 64;       // V head dimension
  int64_t d_model = 0;
  int64_t ffn = 0;
  bool operator==(const AttentionShape& o) const;
};

// The attention accelerator: the 2-D PE array, the buffer, DRAM, the 1-D softmax unit and the
// per-action energies. All energies in pJ: per MAC, per buffer word read / written, per DRAM
// byte, per softmax operation.
struct AttentionHw {
  std::string name;
  int64_t pe_rows = 32;
  int64_t pe_cols = 32;
  int64_t buffer_bytes = 512 * 1024;
  double dram_bytes_per_s = 50.0 * (1ull << 30);
  double clock_hz = 940e6;
  int64_t word_bytes = 2;
  int64_t softmax_lanes = 32;  // elements per cycle of the 1-D unit
  double softmax_passes = 4;   // max, exp(x - max), sum, divide: FuseMax's 4 Einsums
  double mac_pj = 17.16;
  double buffer_read_pj = 485.0 / 256.0;   // per word
  double buffer_write_pj = 451.0 / 256.0;  // per word
  double dram_pj_per_byte = 31.2;
  double exp_pj = 94.6, divide_pj = 36.25, add_pj = 8.34, max_pj = 0.028;
  // The two fitted constants of the model (every other number is a formula or a published
  // constant). Tuning set: flat_validation's 48 rows at N = 512, 2K, 8K, 32K, 128K and 512K
  // (the odd powers of two; edge and cloud, all four models); the 48 rows at 1K, 4K, 16K,
  // 64K, 256K and 1M are held out, and so are attn-flat and attn-unfused. Fitted by
  // bench/flat_fit.cpp (`build/flat_fit`), which prints the per-row values and the errors on
  // both halves (docs/flat.md, "Validation").
  // Streaming tiles of the operands that bypass the buffer, double-buffered:
  //   stream_tile_bytes = stream_factor * w * Pd * (E + F)
  // Fitted: the median over the tuning set's 11 spilled rows of the factor that their
  // recorded proportion_buffered implies: 4 on the 7 cloud rows, 2 on edge BERT/TrXL/T5 at 2K,
  // 0.5 on edge XLM at 2K (the footprint of those 4 edge rows is not reproduced).
  double stream_factor = 4;
  // Spilled logits: each on-chip logit tensor (QK, A) moves
  //   ps (1 + logit_spill_weight * min(F, Pd) / Pd) N M
  // elements of DRAM traffic per head when a fraction ps of the working set spills. Fitted:
  // the median over the tuning set's 7 spilled rows with logits on chip whose footprint is
  // reproduced (criterion in bench/flat_fit.cpp) of the weight their recorded traffic implies:
  // 0.5 on the 6 BERT/TrXL/T5 rows (32K, 128K), 0.004 on XLM 32K (1.9% spilled: weak).
  double logit_spill_weight = 0.5;
  int64_t pd() const { return pe_rows < pe_cols ? pe_rows : pe_cols; }
  int64_t pes() const { return pe_rows * pe_cols; }
};

// The attention hardware of an accelerator description: a 2-D array_shape (or a square
// num_pes), l2_bytes as the buffer, off-chip bandwidth from offchip_words_per_cycle * word *
// clock, energies from arch.energy (per word, converted), a softmax unit of Pd lanes.
// Throws InputError (label `where`) when the array is not 2-D or a size is not positive.
AttentionHw attention_hw(const arch::Arch& a, const std::string& where = "<flag --hw>");

// Throws InputError (label `where`) for zero or negative sizes, a head dimension larger than
// d_model, or a buffer that cannot hold even the streaming tiles of one PE-array pass.
void validate_attention(const AttentionShape& s, const AttentionHw& hw,
                        const std::string& where = "<attention>");

enum class Granularity : uint8_t { Batch, Head, Row };
enum class Stationarity : uint8_t { Output, Weight, Input };
enum class Bound : uint8_t { Compute, Softmax, Memory };
std::string_view granularity_name(Granularity g);    // "batch", "head", "row"
std::string_view stationarity_name(Stationarity s);  // "output", "weight", "input"
std::string_view bound_name(Bound b);                // "compute", "softmax", "memory"

// The six tensors of the fused block, in flat_validation's column order.
enum AttnTensor : int { kQ = 0, kK, kL, kA, kV, kO, kNumAttnTensors };
std::string_view attn_tensor_name(int t);  // "Q", "K", "QK", "A", "V", "AV"

// One FLAT configuration. row_tile R is the query rows per fused tile (used at Row
// granularity; Head and Batch use R = N). QK stationarity names what stays in the PEs during
// Q K^T (output: L; weight: K; input: Q); AV's likewise (output: O; weight: V; input: A).
struct FlatConfig {
  Granularity granularity = Granularity::Head;
  int64_t row_tile = 0;
  std::array<bool, kNumAttnTensors> on_chip{};
  Stationarity qk = Stationarity::Output;
  Stationarity av = Stationarity::Output;
  int64_t rows() const;  // R as used: row_tile at Row granularity; else 0 (the caller uses N)
  bool operator==(const FlatConfig& o) const;
};
std::string config_text(const FlatConfig& c);  // "row R=256 on:QK,A qk:output av:output"

struct FlatOptions {
  // false reproduces flat_validation.csv: FLAT's own cost rules count neither softmax time nor
  // softmax DRAM traffic. true (ours, and FuseMax's attn-flat rule) adds the 1-D unit's time
  // to the overlap and its traffic when the logits are off chip.
  bool softmax = true;
  // The array times of the whole block's Q K^T and A V, in s, when a mapper supplies them
  // (dse/attention maps both GEMMs with the single-operator model, for FLAT and the baseline
  // alike); <= 0 uses FLAT's mapping-limited rule (flat_gemm_seconds).
  double qk_compute_s = 0;
  double av_compute_s = 0;
};

// The cost of one attention block under one dataflow. Times in s, traffic in bytes, energy in
// pJ. Plain value, no allocation.
struct AttentionCost {
  bool feasible = true;
  const char* reason = "";  // static text when not feasible
  double macs = 0;          // B*H*N*M*(E+F)
  double ideal_s = 0;       // macs / (pes * f)
  double compute_s = 0;     // 2-D array time (mapping-limited)
  double softmax_s = 0;     // 1-D softmax unit time
  double memory_s = 0;      // dram_bytes / BW
  double latency_s = 0;     // the overlap rule (see evaluate_flat / evaluate_unfused)
  double dram_bytes = 0;
  std::array<double, kNumAttnTensors> dram_bytes_by_tensor{};  // spill included, softmax not
  double softmax_dram_bytes = 0;                               // included in dram_bytes
  // Per stage (QK, softmax, AV): DRAM bytes (spill included; they sum to dram_bytes) and the
  // stage's own unit time (QK and AV on the array, the softmax on the 1-D unit).
  std::array<double, 3> stage_dram_bytes{};
  std::array<double, 3> stage_compute_s{};
  double spill_dram_bytes = 0;  // included in dram_bytes
  double footprint_bytes = 0;   // on-chip working set of one fused tile (unfused: the largest)
  double spilled_fraction = 0;  // of the on-chip working set, 0..1
  double energy_pj = 0, dram_pj = 0, mac_pj = 0, buffer_pj = 0, softmax_pj = 0;
  Bound bound = Bound::Compute;
};

// FLAT's fused dataflow. Latency = max(compute_s, softmax_s, memory_s) (all overlap; with
// options.softmax false, softmax_s = 0). compute_s = (t_QK + t_AV) * Pd / min(R, Pd): a row
// tile shorter than the array side leaves array rows idle in every pass. Never throws; an unusable
// configuration (R out of 1..N) comes back with feasible = false. Pure, allocation-free,
// thread-safe.
AttentionCost evaluate_flat(const AttentionShape& s, const AttentionHw& hw, const FlatConfig& c,
                            const FlatOptions& options = {});

// The unfused baseline: QK, softmax and AV one after the other over the whole block.
// Each kernel k costs max(memory_k, compute_k), and latency = the sum (FuseMax's unfused
// rule). The logits and probabilities stay on chip only when all of them
// (w*B*H*N*M each) fit in the buffer at once; else each goes to DRAM and back. Each GEMM
// kernel's own operands (Q, K; V, AV) move under FLAT's traffic rules at the kernel's best row
// tile, placement and stationarity, with a footprint of its own tensors only. Not allocation-
// free (a few hundred rule evaluations per call): evaluate once per case.
// `qk_compute_s` and `av_compute_s` are the GEMMs' array times (from the single-operator
// model: see dse/attention); <= 0 uses the same mapping-limited rule as FLAT.
AttentionCost evaluate_unfused(const AttentionShape& s, const AttentionHw& hw,
                               double qk_compute_s = 0, double av_compute_s = 0);

// The mapping-limited time of the two GEMMs on the array, in s (VERIFIED against
// flat_validation's actual_latency on compute-bound rows):
//   t = t_QK + t_AV,  t_QK = B*H*N*M*E / (Pd * min(E, Pd)) / f,  t_AV = B*H*N*M*F / Pd^2 / f
double flat_gemm_seconds(const AttentionShape& s, const AttentionHw& hw);
double flat_qk_seconds(const AttentionShape& s, const AttentionHw& hw);
double flat_av_seconds(const AttentionShape& s, const AttentionHw& hw);

}  // namespace sparsemap::cost
