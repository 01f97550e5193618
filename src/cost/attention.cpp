// Attention-block cost model: FLAT's fused dataflow and the unfused baseline (see
// include/sparsemap/cost/attention.h for the notation and docs/flat.md for the derivation).
#include "sparsemap/cost/attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::cost {

bool AttentionShape::operator==(const AttentionShape& o) const {
  return batch == o.batch && heads == o.heads && queries == o.queries && keys == o.keys &&
         e == o.e && f == o.f && d_model == o.d_model && ffn == o.ffn;
}

int64_t FlatConfig::rows() const { return granularity == Granularity::Row ? row_tile : 0; }

bool FlatConfig::operator==(const FlatConfig& o) const {
  return granularity == o.granularity && rows() == o.rows() && on_chip == o.on_chip && qk == o.qk &&
         av == o.av;
}

std::string_view granularity_name(Granularity g) {
  switch (g) {
    case Granularity::Batch:
      return "batch";
    case Granularity::Head:
      return "head";
    case Granularity::Row:
      return "row";
  }
  return "?";
}

std::string_view stationarity_name(Stationarity s) {
  switch (s) {
    case Stationarity::Output:
      return "output";
    case Stationarity::Weight:
      return "weight";
    case Stationarity::Input:
      return "input";
  }
  return "?";
}

std::string_view bound_name(Bound b) {
  switch (b) {
    case Bound::Compute:
      return "compute";
    case Bound::Softmax:
      return "softmax";
    case Bound::Memory:
      return "memory";
  }
  return "?";
}

std::string_view attn_tensor_name(int t) {
  static constexpr std::string_view kNames[kNumAttnTensors] = {"Q", "K", "QK", "A", "V", "AV"};
  return t >= 0 && t < kNumAttnTensors ? kNames[t] : "?";
}

std::string config_text(const FlatConfig& c) {
  std::string s(granularity_name(c.granularity));
  if (c.granularity == Granularity::Row) s += " R=" + std::to_string(c.row_tile);
  std::string on;
  for (int t = 0; t < kNumAttnTensors; ++t)
    if (c.on_chip[t]) on += (on.empty() ? "" : ",") + std::string(attn_tensor_name(t));
  s += " on:" + (on.empty() ? std::string("-") : on);
  s +=
      " qk:" + std::string(stationarity_name(c.qk)) + " av:" + std::string(stationarity_name(c.av));
  return s;
}

AttentionHw attention_hw(const arch::Arch& a, const std::string& where) {
  AttentionHw hw;
  hw.name = a.name;
  if (a.array_shape.size() == 2) {
    hw.pe_rows = a.array_shape[0];
    hw.pe_cols = a.array_shape[1];
  } else if (a.array_shape.empty() || a.array_shape.size() == 1) {
    const auto side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(a.num_pes))));
    if (side * side != a.num_pes)
      throw InputError({where, 0, 0},
                       "attention needs a 2-D PE array: give array_shape [rows, cols] or a square "
                       "number of PEs (got " +
                           std::to_string(a.num_pes) + ")");
    hw.pe_rows = hw.pe_cols = side;
  } else {
    throw InputError({where, 0, 0}, "attention needs a 2-D PE array (array_shape of 2 sizes)");
  }
  if (hw.pe_rows <= 0 || hw.pe_cols <= 0 || a.l2_bytes <= 0 || a.word_bytes <= 0 ||
      !(a.clock_mhz > 0) || !(a.offchip_words_per_cycle > 0))
    throw InputError({where, 0, 0},
                     "attention needs positive PE array sides, L2 bytes, word size, clock and "
                     "off-chip bandwidth");
  hw.buffer_bytes = a.l2_bytes;
  hw.word_bytes = a.word_bytes;
  hw.clock_hz = a.clock_mhz * 1e6;
  hw.dram_bytes_per_s =
      a.offchip_words_per_cycle * static_cast<double>(a.word_bytes) * a.clock_mhz * 1e6;
  hw.softmax_lanes = hw.pd();
  hw.mac_pj = a.energy.mac_pj;
  hw.buffer_read_pj = a.energy.l2_read_pj;
  hw.buffer_write_pj = a.energy.l2_write_pj;
  hw.dram_pj_per_byte = a.energy.offchip_pj / static_cast<double>(a.word_bytes);
  return hw;
}

namespace {

// The double-buffered tiles of streamed operands (bytes): stream_factor * w * Pd * (E + F).
double stream_tile_bytes(const AttentionShape& s, const AttentionHw& hw) {
  return hw.stream_factor * static_cast<double>(hw.word_bytes) * static_cast<double>(hw.pd()) *
         static_cast<double>(s.e + s.f);
}

double ceil_div(double a, double b) { return std::ceil(a / b); }

}  // namespace

void validate_attention(const AttentionShape& s, const AttentionHw& hw, const std::string& where) {
  auto bad = [&](const std::string& what) { throw InputError({where, 0, 0}, what); };
  if (s.batch <= 0) bad("batch must be positive (got " + std::to_string(s.batch) + ")");
  if (s.heads <= 0) bad("heads must be positive (got " + std::to_string(s.heads) + ")");
  if (s.queries <= 0 || s.keys <= 0)
    bad("sequence length must be positive (got N = " + std::to_string(s.queries) +
        ", M = " + std::to_string(s.keys) + ")");
  if (s.e <= 0 || s.f <= 0) bad("head dimensions E and F must be positive");
  if (s.d_model < 0 || s.ffn < 0) bad("d_model and ffn must not be negative");
  if (s.d_model > 0 && (s.e > s.d_model || s.f > s.d_model))
    bad("head dimension (E = " + std::to_string(s.e) + ", F = " + std::to_string(s.f) +
        ") larger than the model dimension " + std::to_string(s.d_model));
  constexpr int64_t kMaxSeq = int64_t{1} << 24;  // 16M tokens: N*M stays exact in a double
  if (s.queries > kMaxSeq || s.keys > kMaxSeq || s.batch > kMaxSeq || s.heads > kMaxSeq ||
      s.e > kMaxSeq || s.f > kMaxSeq)
    bad("sizes above 16,777,216 are not supported");
  if (hw.pe_rows <= 0 || hw.pe_cols <= 0 || hw.buffer_bytes <= 0 || hw.word_bytes <= 0 ||
      hw.softmax_lanes <= 0 || !(hw.clock_hz > 0) || !(hw.dram_bytes_per_s > 0))
    bad("accelerator sizes must be positive");
  const double need = stream_tile_bytes(s, hw);
  if (need > static_cast<double>(hw.buffer_bytes))
    bad("buffer too small for any tile: " + std::to_string(hw.buffer_bytes) +
        " bytes on chip, one PE-array pass streams " + std::to_string(static_cast<int64_t>(need)) +
        " bytes (4 w Pd (E + F))");
}

// t_QK = B H N M E / (Pd min(E, Pd)) / f  [s]: the QK contraction over E fills only
// min(E, Pd) array rows.  t_AV = B H N M F / (rows cols) / f  [s]: AV fills the array.
double flat_qk_seconds(const AttentionShape& s, const AttentionHw& hw) {
  const double pd = static_cast<double>(hw.pd()), e = static_cast<double>(s.e);
  return static_cast<double>(s.batch) * static_cast<double>(s.heads) *
         static_cast<double>(s.queries) * static_cast<double>(s.keys) * e / (pd * std::min(e, pd)) /
         hw.clock_hz;
}

double flat_av_seconds(const AttentionShape& s, const AttentionHw& hw) {
  return static_cast<double>(s.batch) * static_cast<double>(s.heads) *
         static_cast<double>(s.queries) * static_cast<double>(s.keys) * static_cast<double>(s.f) /
         static_cast<double>(hw.pes()) / hw.clock_hz;
}

double flat_gemm_seconds(const AttentionShape& s, const AttentionHw& hw) {
  return flat_qk_seconds(s, hw) + flat_av_seconds(s, hw);
}

namespace {

// Per (batch, head), in elements: what the PE array moves for each tensor when it bypasses
// the buffer (`off`) and when it is kept on chip (`on`: DRAM fill or drain only). With
// p = min(R, Pd) query rows per array pass, nr = ceil(N / R) row tiles, nPq = ceil(N / p),
// nM = ceil(M / Pd), nE = ceil(E / Pd), nF = ceil(F / Pd):
//   Q  on N E;  off: output/weight-stationary QK nM N E (re-read per key block), input N E
//   K  on M E;  off: weight-stationary nr M E (re-read per row tile), else nPq M E
//   QK on 0;    off: N M (partial sums stay on chip: partial_and_row_tiles)
//   A  on 0;    off: input-stationary AV N M, else nF N M (re-read per block of Pd F-columns)
//   V  on M F;  off: weight-stationary nr M F, else nPq M F
//   AV on N F;  off: N F
struct TensorTraffic {
  std::array<double, kNumAttnTensors> off{}, on{};
};

TensorTraffic tensor_traffic(const AttentionShape& s, const AttentionHw& hw, double rows) {
  const double n = static_cast<double>(s.queries), m = static_cast<double>(s.keys);
  const double e = static_cast<double>(s.e), f = static_cast<double>(s.f);
  const double pd = static_cast<double>(hw.pd());
  const double p = std::min(rows, pd);
  const double npq = ceil_div(n, p), nm_blocks = ceil_div(m, pd);
  TensorTraffic t;
  t.on = {n * e, m * e, 0, 0, m * f, n * f};
  // Output-stationary; apply_stationarity changes the others.
  t.off[kQ] = nm_blocks * n * e;
  t.off[kK] = npq * m * e;
  t.off[kL] = n * m;
  t.off[kA] = n * m;
  t.off[kV] = npq * m * f;
  t.off[kO] = n * f;
  return t;
}

void apply_stationarity(TensorTraffic& t, const AttentionShape& s, const AttentionHw& hw,
                        double rows, Stationarity qk, Stationarity av) {
  const double n = static_cast<double>(s.queries), m = static_cast<double>(s.keys);
  const double e = static_cast<double>(s.e), f = static_cast<double>(s.f);
  const double pd = static_cast<double>(hw.pd());
  const double nr = ceil_div(n, rows), nf = ceil_div(f, pd);
  (void)e;
  if (qk == Stationarity::Weight) t.off[kK] = nr * m * e;
  if (qk == Stationarity::Input) t.off[kQ] = n * e;
  if (av == Stationarity::Weight) t.off[kV] = nr * m * f;
  if (av != Stationarity::Input) t.off[kA] = nf * n * m;
}

// Partial sums of a contraction split over array passes accumulate on chip (never in DRAM):
// QK under weight/input stationarity with E > Pd needs an R x Pd tile unless QK is on chip;
// AV under weight/input stationarity with M > Pd needs an R x F tile unless AV is on chip.
// On-chip Q and AV row tiles beyond the first Pd rows (those live in the streaming tiles) are
// double-buffered. Elements of one head.
double partial_and_row_tiles(const AttentionShape& s, const AttentionHw& hw, const FlatConfig& c,
                             double rows) {
  const double e = static_cast<double>(s.e), f = static_cast<double>(s.f);
  const double pd = static_cast<double>(hw.pd());
  double fp = 0;
  if (c.qk != Stationarity::Output && s.e > hw.pd() && !c.on_chip[kL]) fp += rows * pd;
  if (c.av != Stationarity::Output && s.keys > hw.pd() && !c.on_chip[kO]) fp += rows * f;
  const double extra_rows = std::max(0.0, rows - pd);
  if (c.on_chip[kQ]) fp += 2 * extra_rows * e;
  if (c.on_chip[kO]) fp += 2 * extra_rows * f;
  return fp;
}

// Softmax on the 1-D unit: t_sm = passes B H N M / (lanes f) [s].
double softmax_seconds(const AttentionShape& s, const AttentionHw& hw) {
  const double elems = static_cast<double>(s.batch) * static_cast<double>(s.heads) *
                       static_cast<double>(s.queries) * static_cast<double>(s.keys);
  return hw.softmax_passes * elems / (static_cast<double>(hw.softmax_lanes) * hw.clock_hz);
}

// pJ per logit of the softmax: max + subtract + exp + sum + divide.
double softmax_pj_per_logit(const AttentionHw& hw) {
  return hw.max_pj + hw.add_pj + hw.exp_pj + hw.add_pj + hw.divide_pj;
}

Bound pick_bound(double compute, double softmax, double memory) {
  if (memory > compute && memory > softmax) return Bound::Memory;
  if (softmax > compute) return Bound::Softmax;
  return Bound::Compute;
}

}  // namespace

// FLAT, per (batch, head) in elements, then x w B H for bytes:
//   traffic = sum_t (on_chip[t] ? on_t : off_t)                     (see tensor_traffic)
//           + spill + softmax traffic
//   footprint (bytes, one fused tile of g heads; g = H at Batch granularity, else 1;
//   Rr = R at Row granularity, else N):
//     w g [Rr M (if QK or A on chip) + M E (K on chip) + M F (V on chip)
//          + 2 max(0, Rr - Pd) (E (Q on chip) + F (AV on chip)) + partial-sum tiles]
//     + stream_factor w Pd (E + F)
//   (the first Pd rows of on-chip Q and AV live in the streaming tiles, as in flat_validation)
//   spilled fraction ps = max(0, 1 - S / footprint)
//   spill = ps [ (#logit tensors on chip) (1 + a min(F, Pd) / Pd) N M
//                + sum over K, V on chip (and Q, AV when R > Pd) of (off_t - on_t) ]
//     (a = hw.logit_spill_weight and stream_factor are fitted on flat_validation's tuning
//      half, attention.h: 2.25 N M when both logit tensors are on chip, F = 64, Pd = 256)
//   softmax traffic (options.softmax): N M if QK off chip (read) + N M if A off chip (write)
//     + ps (passes + 2) N M if the logits are on chip (its buffer reads and writes of the
//     spilled part; FuseMax's StableSoftmax rule)
//   latency = max(t_gemm, t_softmax, traffic / BW)
AttentionCost evaluate_flat(const AttentionShape& s, const AttentionHw& hw, const FlatConfig& c,
                            const FlatOptions& options) {
  AttentionCost r;
  const double n = static_cast<double>(s.queries), m = static_cast<double>(s.keys);
  const double e = static_cast<double>(s.e), f = static_cast<double>(s.f);
  const double w = static_cast<double>(hw.word_bytes), pd = static_cast<double>(hw.pd());
  const double bh = static_cast<double>(s.batch) * static_cast<double>(s.heads);
  r.macs = bh * n * m * (e + f);
  r.ideal_s = r.macs / (static_cast<double>(hw.pes()) * hw.clock_hz);
  double rows = n;
  if (c.granularity == Granularity::Row) {
    if (c.row_tile < 1 || c.row_tile > s.queries) {
      r.feasible = false;
      r.reason = "row tile outside 1..N";
      return r;
    }
    rows = static_cast<double>(c.row_tile);
  }
  const double g = c.granularity == Granularity::Batch ? static_cast<double>(s.heads) : 1.0;
  TensorTraffic t = tensor_traffic(s, hw, rows);
  apply_stationarity(t, s, hw, rows, c.qk, c.av);

  const bool logits_on = c.on_chip[kL] || c.on_chip[kA];
  double fp = 0;
  if (logits_on) fp += rows * m;
  if (c.on_chip[kK]) fp += m * e;
  if (c.on_chip[kV]) fp += m * f;
  fp += partial_and_row_tiles(s, hw, c, rows);
  r.footprint_bytes = w * g * fp + stream_tile_bytes(s, hw);
  const double buffer = static_cast<double>(hw.buffer_bytes);
  r.spilled_fraction = r.footprint_bytes > buffer ? 1.0 - buffer / r.footprint_bytes : 0.0;

  double base = 0, onchip_reads = 0, onchip_writes = 0;
  std::array<double, kNumAttnTensors> spill_t{};  // spill per tensor, elements per head
  const double logit_spill = (1.0 + hw.logit_spill_weight * std::min(f, pd) / pd) * n * m;
  for (int k = 0; k < kNumAttnTensors; ++k) {
    const double v = c.on_chip[k] ? t.on[k] : t.off[k];
    base += v;
    if (!c.on_chip[k]) {
      r.dram_bytes_by_tensor[k] = v * w * bh;
      continue;
    }
    if (k == kL) {
      onchip_writes += n * m;
    } else if (k == kA) {
      onchip_reads += t.off[kA];
    } else if (k == kO) {
      onchip_writes += t.off[kO];
    } else {
      onchip_reads += t.off[k];
      onchip_writes += t.on[k];
    }
    // Q and AV row tiles occupy the buffer only beyond the first Pd rows.
    if (k == kL || k == kA)
      spill_t[k] = logit_spill;
    else if (k == kK || k == kV || ((k == kQ || k == kO) && rows > pd))
      spill_t[k] = t.off[k] - t.on[k];
    spill_t[k] *= r.spilled_fraction;
    r.dram_bytes_by_tensor[k] = (v + spill_t[k]) * w * bh;
  }
  const double spill =
      spill_t[kQ] + spill_t[kK] + spill_t[kL] + spill_t[kA] + spill_t[kV] + spill_t[kO];

  double sm_traffic = 0;
  if (options.softmax) {
    if (!c.on_chip[kL]) sm_traffic += n * m;
    if (!c.on_chip[kA]) sm_traffic += n * m;
    r.softmax_s = softmax_seconds(s, hw);
    if (logits_on) {
      onchip_reads += hw.softmax_passes * n * m;
      onchip_writes += 2 * n * m;
      // The spilled part of the logits is also where the softmax reads and writes them.
      sm_traffic += r.spilled_fraction * (hw.softmax_passes + 2) * n * m;
    }
    r.softmax_pj = bh * n * m * softmax_pj_per_logit(hw);
  }
  r.spill_dram_bytes = spill * w * bh;
  r.softmax_dram_bytes = sm_traffic * w * bh;
  r.dram_bytes = (base + spill + sm_traffic) * w * bh;
  r.stage_dram_bytes = {
      r.dram_bytes_by_tensor[kQ] + r.dram_bytes_by_tensor[kK] + r.dram_bytes_by_tensor[kL],
      r.softmax_dram_bytes,
      r.dram_bytes_by_tensor[kA] + r.dram_bytes_by_tensor[kV] + r.dram_bytes_by_tensor[kO]};
  const double t_qk = options.qk_compute_s > 0 ? options.qk_compute_s : flat_qk_seconds(s, hw);
  const double t_av = options.av_compute_s > 0 ? options.av_compute_s : flat_av_seconds(s, hw);
  const double underfill = pd / std::min(rows, pd);
  r.stage_compute_s = {t_qk * underfill, r.softmax_s, t_av * underfill};
  r.compute_s = (t_qk + t_av) * underfill;
  r.memory_s = r.dram_bytes / hw.dram_bytes_per_s;
  r.latency_s = std::max({r.compute_s, r.softmax_s, r.memory_s});
  r.bound = pick_bound(r.compute_s, r.softmax_s, r.memory_s);

  r.dram_pj = r.dram_bytes * hw.dram_pj_per_byte;
  r.mac_pj = r.macs * hw.mac_pj;
  r.buffer_pj = bh * (onchip_reads * hw.buffer_read_pj + onchip_writes * hw.buffer_write_pj);
  r.energy_pj = r.dram_pj + r.mac_pj + r.buffer_pj + r.softmax_pj;
  return r;
}

namespace {

// One GEMM kernel of the unfused baseline under the same traffic rules as FLAT, with the logit
// tensor it touches (QK's output or AV's A) in DRAM unless `logits_fit`: the least traffic
// (elements of one head) over row tiles R (powers of two, Pd <= R <= N, or N), the placement
// of its two other tensors and its stationarity. Its footprint holds only its own tensors.
struct KernelTraffic {
  double elements = 1e300;  // per head, spill included
  double footprint_bytes = 0;
  double spilled_fraction = 0;
  std::array<double, kNumAttnTensors> by_tensor{};
};

KernelTraffic unfused_kernel(const AttentionShape& s, const AttentionHw& hw, bool qk_kernel,
                             bool logits_fit) {
  const double n = static_cast<double>(s.queries), m = static_cast<double>(s.keys);
  const double w = static_cast<double>(hw.word_bytes), pd = static_cast<double>(hw.pd());
  const double buffer = static_cast<double>(hw.buffer_bytes);
  const int a_t = qk_kernel ? kQ : kV, b_t = qk_kernel ? kK : kO, l_t = qk_kernel ? kL : kA;
  KernelTraffic best;
  std::vector<double> tiles;
  for (double r = std::min(pd, n); r < n; r *= 2) tiles.push_back(r);
  tiles.push_back(n);
  for (double rows : tiles)
    for (int bits = 0; bits < 4; ++bits)
      for (Stationarity st : {Stationarity::Output, Stationarity::Weight, Stationarity::Input}) {
        FlatConfig c;
        c.granularity = Granularity::Row;
        c.on_chip[a_t] = bits & 1;
        c.on_chip[b_t] = (bits >> 1) & 1;
        c.on_chip[l_t] = logits_fit;
        (qk_kernel ? c.qk : c.av) = st;
        TensorTraffic t = tensor_traffic(s, hw, rows);
        apply_stationarity(t, s, hw, rows, c.qk, c.av);
        double fp = 0;
        if (c.on_chip[kK]) fp += m * static_cast<double>(s.e);
        if (c.on_chip[kV]) fp += m * static_cast<double>(s.f);
        FlatConfig own = c;  // partial-sum and row tiles of this kernel only
        if (qk_kernel) own.av = Stationarity::Output;
        if (!qk_kernel) own.qk = Stationarity::Output;
        fp += partial_and_row_tiles(s, hw, own, rows);
        const double fp_bytes = w * fp + stream_tile_bytes(s, hw);
        const double ps = fp_bytes > buffer ? 1.0 - buffer / fp_bytes : 0.0;
        KernelTraffic k;
        k.elements = 0;
        for (int x : {a_t, b_t, l_t}) {
          double v = c.on_chip[x] ? t.on[x] : t.off[x];
          if (c.on_chip[x] && x != l_t) v += ps * (t.off[x] - t.on[x]);
          k.by_tensor[x] = v;
          k.elements += v;
        }
        k.footprint_bytes = fp_bytes;
        k.spilled_fraction = ps;
        if (k.elements < best.elements) best = k;
      }
  return best;
}

}  // namespace

// Unfused, over the whole block (B H pairs): three kernels one after the other.
//   logits fit  <=>  w B H N M <= S (all of L, then all of A, live between kernels)
//   QK kernel:      Q, K under FLAT's traffic rules at their best row tile, placement and
//                   stationarity (unfused_kernel), + N M (L written) if not fit
//   softmax kernel: 2 N M (read L, write A) if not fit
//   AV kernel:      A (N M, or nF N M weight-stationary) if not fit, + V, AV likewise
//   latency = sum over kernels of max(traffic_k / BW, compute_k)
// When K and V fit on chip this is w B H [4 N M + 2 N (E + F)] with M = N (VERIFIED against
// FuseMax's attn-unfused traffic up to 64K).
AttentionCost evaluate_unfused(const AttentionShape& s, const AttentionHw& hw, double qk_compute_s,
                               double av_compute_s) {
  AttentionCost r;
  const double n = static_cast<double>(s.queries), m = static_cast<double>(s.keys);
  const double e = static_cast<double>(s.e), f = static_cast<double>(s.f);
  const double w = static_cast<double>(hw.word_bytes);
  const double bh = static_cast<double>(s.batch) * static_cast<double>(s.heads);
  r.macs = bh * n * m * (e + f);
  r.ideal_s = r.macs / (static_cast<double>(hw.pes()) * hw.clock_hz);
  const double logits_bytes = w * bh * n * m;
  const double buffer = static_cast<double>(hw.buffer_bytes);
  const bool fits = logits_bytes <= buffer;
  const KernelTraffic qk = unfused_kernel(s, hw, true, fits);
  const KernelTraffic av = unfused_kernel(s, hw, false, fits);
  r.footprint_bytes = std::max({logits_bytes, qk.footprint_bytes, av.footprint_bytes});
  r.spilled_fraction =
      fits ? std::max(qk.spilled_fraction, av.spilled_fraction) : 1.0 - buffer / logits_bytes;
  const double nm = fits ? 0.0 : n * m;
  for (int t = 0; t < kNumAttnTensors; ++t)
    r.dram_bytes_by_tensor[t] = w * bh * (qk.by_tensor[t] + av.by_tensor[t]);
  const double qk_bytes = w * bh * qk.elements;
  const double sm_bytes = w * bh * 2 * nm;
  const double av_bytes = w * bh * av.elements;
  r.softmax_dram_bytes = sm_bytes;
  r.dram_bytes = qk_bytes + sm_bytes + av_bytes;
  r.stage_dram_bytes = {qk_bytes, sm_bytes, av_bytes};
  const double t_qk = qk_compute_s > 0 ? qk_compute_s : flat_qk_seconds(s, hw);
  const double t_av = av_compute_s > 0 ? av_compute_s : flat_av_seconds(s, hw);
  r.softmax_s = softmax_seconds(s, hw);
  r.compute_s = t_qk + t_av;
  r.stage_compute_s = {t_qk, r.softmax_s, t_av};
  r.memory_s = r.dram_bytes / hw.dram_bytes_per_s;
  const double bw = hw.dram_bytes_per_s;
  double mem_part = 0, comp_part = 0, sm_part = 0;
  auto kernel = [&](double bytes, double comp, double& comp_bucket) {
    const double mem = bytes / bw;
    if (mem > comp)
      mem_part += mem;
    else
      comp_bucket += comp;
  };
  kernel(qk_bytes, t_qk, comp_part);
  kernel(sm_bytes, r.softmax_s, sm_part);
  kernel(av_bytes, t_av, comp_part);
  r.latency_s = mem_part + comp_part + sm_part;
  r.bound = pick_bound(comp_part, sm_part, mem_part);

  r.dram_pj = r.dram_bytes * hw.dram_pj_per_byte;
  r.mac_pj = r.macs * hw.mac_pj;
  // On chip every operand passes through the buffer once per kernel: reads of Q, K, L (by the
  // softmax, `passes` times), A, V; writes of L, A (2 N M by the softmax), O.
  const double reads = n * e + m * e + hw.softmax_passes * n * m + n * m + m * f;
  const double writes = n * m + 2 * n * m + n * f;
  r.buffer_pj = bh * (reads * hw.buffer_read_pj + writes * hw.buffer_write_pj);
  r.softmax_pj = bh * n * m * softmax_pj_per_logit(hw);
  r.energy_pj = r.dram_pj + r.mac_pj + r.buffer_pj + r.softmax_pj;
  return r;
}

}  // namespace sparsemap::cost
