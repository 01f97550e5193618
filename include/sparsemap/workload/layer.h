// Workload IR: one DNN operator (a "layer") with named loop dimensions and its tensors.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparsemap::workload {

// Loop dimensions, in MAESTRO's vocabulary. Their meaning depends on the layer kind:
//   conv-like (Conv, DsConv, NgConv, TrConv, Pool):
//     N batch, G groups, K output channels (per group), C input channels (per group),
//     Y/X input rows/columns (before padding), R/S filter rows/columns.
//   Fc:          N batch, K outputs, C inputs.
//   Gemm:        O[M][N] += A[M][K] * B[K][N]  (B is the weight).
//   BatchedGemm: O[G][M][N] += A[G][M][K] * B[G][K][N]  (both operands are activations,
//                e.g. attention's Q x K^T with G = batch x heads).
// An absent dimension has size 1.
enum class Dim : uint8_t { N, G, K, C, Y, X, R, S, M };
inline constexpr int kNumDims = 9;
inline constexpr std::array<Dim, kNumDims> kAllDims = {Dim::N, Dim::G, Dim::K, Dim::C, Dim::Y,
                                                       Dim::X, Dim::R, Dim::S, Dim::M};
using DimArray = std::array<int64_t, kNumDims>;

char dim_letter(Dim d);                           // 'N', 'G', ...
std::optional<Dim> dim_from_letter(char letter);  // inverse; nullopt for other letters
inline constexpr int index(Dim d) { return static_cast<int>(d); }

enum class OpKind : uint8_t {
  // GEMM-class operators (they have MACs).
  Conv,         // standard convolution (G = 1)
  DsConv,       // depthwise: one filter per input channel; K is ignored (MAESTRO writes K: 1)
  NgConv,       // grouped convolution: G groups of K x C (MAESTRO's NGCONV, "G:" dimension)
  TrConv,       // transposed convolution, in MAESTRO's convention: costed as the direct
                // convolution over its (zero-inserted) input Y x X, output Y' = Y - R + 1
  Fc,           // fully connected
  Gemm,         // matrix multiply with a weight operand
  BatchedGemm,  // matrix multiply of two activations (attention QK^T and AV)
  // NonGEMM operators (no MACs; counted by elements).
  Softmax,
  LayerNorm,    // also RMSNorm (op = "rms_norm"); normalises the last dimension of `shape`
  BatchNorm,    // per-channel over shape[1]
  Activation,   // op: relu, relu6, gelu, silu, sigmoid, tanh, hardswish, ...
  Elementwise,  // op: add, mul, ...; `operands` inputs of `shape`
  Pool,         // op: max_pool, avg_pool, global_avg_pool; conv-like dims (N, C, Y, X, R, S)
  Embedding,    // table lookup: N lookups of K-wide rows from a table of C rows
};

std::string_view op_kind_name(OpKind k);                      // "CONV", "DSCONV", ..., "SOFTMAX"
std::optional<OpKind> op_kind_from_name(std::string_view s);  // inverse, case-insensitive
bool is_gemm_class(OpKind k);                                 // Conv .. BatchedGemm

// A pair of per-axis integers for rows (y) and columns (x).
struct Window2 {
  int64_t y = 1;
  int64_t x = 1;
  bool operator==(const Window2& o) const { return y == o.y && x == o.x; }
  bool operator!=(const Window2& o) const { return !(*this == o); }
};

struct Layer {
  std::string name;
  OpKind kind = OpKind::Conv;
  std::string op;  // NonGEMM operator name (e.g. "relu", "add"); empty for GEMM-class kinds
  DimArray dims = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  Window2 stride{1, 1};
  Window2 pad{0, 0};  // zero padding on each side (conv-like and Pool)
  Window2 dilation{1, 1};
  bool has_bias = false;  // adds one parameter per output channel / column
  std::vector<int64_t>
      shape;             // Softmax, LayerNorm, BatchNorm, Activation, Elementwise: input shape
  int64_t operands = 1;  // Elementwise: number of input tensors of `shape`

  int64_t dim(Dim d) const { return dims[index(d)]; }
  int64_t& dim(Dim d) { return dims[index(d)]; }

  // Output rows/columns of conv-like kinds and Pool:
  //   Y' = floor((Y + 2*pad_y - dilation_y*(R-1) - 1) / stride_y) + 1   (Conv, DsConv, NgConv,
  //   Pool) Y' = Y - R + 1                                                     (TrConv, MAESTRO's
  //   rule)
  // Returns 0 when the filter does not fit. 1 for other kinds.
  int64_t out_y() const;
  int64_t out_x() const;

  // Multiply-accumulates: Conv N*K*C*R*S*Y'*X'; NgConv G*(that); DsConv N*C*R*S*Y'*X';
  // TrConv as Conv; Fc N*K*C; Gemm M*N*K; BatchedGemm G*M*N*K; NonGEMM 0.
  int64_t macs() const;
  // Element counts of the operands: input activations, weights (0 when none), outputs.
  int64_t input_elems() const;
  int64_t weight_elems() const;
  int64_t output_elems() const;
  // Learned parameters: weights, plus bias, plus norm scale and shift (2 per channel).
  int64_t params() const;

  bool operator==(const Layer& o) const;
  bool operator!=(const Layer& o) const { return !(*this == o); }
};

// Convenience constructors used by the zoo and the readers. Sizes are validated by callers.
Layer conv2d(std::string name, int64_t n, int64_t c_in, int64_t h, int64_t w, int64_t c_out,
             int64_t kernel, int64_t stride = 1, int64_t pad = 0, int64_t groups = 1,
             bool bias = false);  // groups == c_in == c_out gives DsConv, groups > 1 NgConv
Layer fc(std::string name, int64_t n, int64_t in, int64_t out, bool bias = true);
Layer gemm(std::string name, int64_t m, int64_t n, int64_t k, bool bias = false);
Layer batched_gemm(std::string name, int64_t batch, int64_t m, int64_t n, int64_t k);
Layer nongemm(std::string name, OpKind kind, std::string op, std::vector<int64_t> shape,
              int64_t operands = 1);
Layer pool2d(std::string name, std::string op, int64_t n, int64_t c, int64_t h, int64_t w,
             int64_t kernel, int64_t stride, int64_t pad = 0);
Layer embedding(std::string name, int64_t lookups, int64_t rows, int64_t width);

}  // namespace sparsemap::workload
