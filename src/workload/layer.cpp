// Layer arithmetic: output sizes, MACs, operand sizes and parameters.
#include "sparsemap/workload/layer.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace sparsemap::workload {
namespace {

constexpr char kDimLetters[kNumDims] = {'N', 'G', 'K', 'C', 'Y', 'X', 'R', 'S', 'M'};

struct KindName {
  OpKind kind;
  std::string_view name;
};
constexpr KindName kKindNames[] = {
    {OpKind::Conv, "CONV"},
    {OpKind::DsConv, "DSCONV"},
    {OpKind::NgConv, "NGCONV"},
    {OpKind::TrConv, "TRCONV"},
    {OpKind::Fc, "FC"},
    {OpKind::Gemm, "GEMM"},
    {OpKind::BatchedGemm, "BGEMM"},
    {OpKind::Softmax, "SOFTMAX"},
    {OpKind::LayerNorm, "LAYERNORM"},
    {OpKind::BatchNorm, "BATCHNORM"},
    {OpKind::Activation, "ACTIVATION"},
    {OpKind::Elementwise, "ELEMENTWISE"},
    {OpKind::Pool, "POOL"},
    {OpKind::Embedding, "EMBEDDING"},
};

int64_t product(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<int64_t>());
}

bool is_windowed(OpKind k) {
  return k == OpKind::Conv || k == OpKind::DsConv || k == OpKind::NgConv || k == OpKind::TrConv ||
         k == OpKind::Pool;
}

// floor((in + 2*pad - dil*(k-1) - 1) / stride) + 1, or 0 when the window does not fit.
int64_t window_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  const int64_t span = in + 2 * pad - dil * (k - 1) - 1;
  if (span < 0 || stride <= 0) return 0;
  return span / stride + 1;
}

}  // namespace

char dim_letter(Dim d) { return kDimLetters[index(d)]; }

std::optional<Dim> dim_from_letter(char letter) {
  const char up = static_cast<char>(std::toupper(static_cast<unsigned char>(letter)));
  for (int i = 0; i < kNumDims; ++i)
    if (kDimLetters[i] == up) return kAllDims[i];
  return std::nullopt;
}

std::string_view op_kind_name(OpKind k) {
  for (const auto& kn : kKindNames)
    if (kn.kind == k) return kn.name;
  return "?";
}

std::optional<OpKind> op_kind_from_name(std::string_view s) {
  for (const auto& kn : kKindNames) {
    if (kn.name.size() != s.size()) continue;
    bool same = true;
    for (size_t i = 0; i < s.size() && same; ++i)
      same = std::toupper(static_cast<unsigned char>(s[i])) == kn.name[i];
    if (same) return kn.kind;
  }
  return std::nullopt;
}

bool is_gemm_class(OpKind k) {
  return static_cast<int>(k) <= static_cast<int>(OpKind::BatchedGemm);
}

int64_t Layer::out_y() const {
  if (!is_windowed(kind)) return 1;
  if (kind == OpKind::TrConv) return std::max<int64_t>(0, dim(Dim::Y) - dim(Dim::R) + 1);
  return window_out(dim(Dim::Y), dim(Dim::R), stride.y, pad.y, dilation.y);
}

int64_t Layer::out_x() const {
  if (!is_windowed(kind)) return 1;
  if (kind == OpKind::TrConv) return std::max<int64_t>(0, dim(Dim::X) - dim(Dim::S) + 1);
  return window_out(dim(Dim::X), dim(Dim::S), stride.x, pad.x, dilation.x);
}

int64_t Layer::macs() const {
  const int64_t n = dim(Dim::N), g = dim(Dim::G), k = dim(Dim::K), c = dim(Dim::C);
  const int64_t window = dim(Dim::R) * dim(Dim::S) * out_y() * out_x();
  switch (kind) {
    case OpKind::Conv:
    case OpKind::NgConv:
    case OpKind::TrConv:
      return n * g * k * c * window;
    case OpKind::DsConv:
      return n * g * c * window;
    case OpKind::Fc:
      return n * k * c;
    case OpKind::Gemm:
      return dim(Dim::M) * dim(Dim::N) * dim(Dim::K);
    case OpKind::BatchedGemm:
      return g * dim(Dim::M) * dim(Dim::N) * dim(Dim::K);
    default:
      return 0;
  }
}

int64_t Layer::input_elems() const {
  const int64_t n = dim(Dim::N), g = dim(Dim::G), c = dim(Dim::C);
  switch (kind) {
    case OpKind::Conv:
    case OpKind::DsConv:
    case OpKind::NgConv:
    case OpKind::TrConv:
    case OpKind::Pool:
      return n * g * c * dim(Dim::Y) * dim(Dim::X);
    case OpKind::Fc:
      return n * c;
    case OpKind::Gemm:
      return dim(Dim::M) * dim(Dim::K);
    case OpKind::BatchedGemm:  // both operands
      return g * (dim(Dim::M) * dim(Dim::K) + dim(Dim::K) * dim(Dim::N));
    case OpKind::Embedding:
      return n;  // indices
    case OpKind::Elementwise:
      return operands * product(shape);
    default:
      return product(shape);
  }
}

int64_t Layer::weight_elems() const {
  const int64_t g = dim(Dim::G), k = dim(Dim::K), c = dim(Dim::C);
  const int64_t rs = dim(Dim::R) * dim(Dim::S);
  switch (kind) {
    case OpKind::Conv:
    case OpKind::NgConv:
    case OpKind::TrConv:
      return g * k * c * rs;
    case OpKind::DsConv:
      return g * c * rs;
    case OpKind::Fc:
      return k * c;
    case OpKind::Gemm:
      return dim(Dim::K) * dim(Dim::N);
    case OpKind::Embedding:
      return c * k;
    default:
      return 0;
  }
}

int64_t Layer::output_elems() const {
  const int64_t n = dim(Dim::N), g = dim(Dim::G), k = dim(Dim::K), c = dim(Dim::C);
  switch (kind) {
    case OpKind::Conv:
    case OpKind::NgConv:
    case OpKind::TrConv:
      return n * g * k * out_y() * out_x();
    case OpKind::DsConv:
    case OpKind::Pool:
      return n * g * c * out_y() * out_x();
    case OpKind::Fc:
      return n * k;
    case OpKind::Gemm:
      return dim(Dim::M) * dim(Dim::N);
    case OpKind::BatchedGemm:
      return g * dim(Dim::M) * dim(Dim::N);
    case OpKind::Embedding:
      return n * k;
    default:
      return product(shape);
  }
}

int64_t Layer::params() const {
  int64_t p = weight_elems();
  if (has_bias) {
    switch (kind) {
      case OpKind::Conv:
      case OpKind::NgConv:
      case OpKind::TrConv:
        p += dim(Dim::G) * dim(Dim::K);
        break;
      case OpKind::DsConv:
        p += dim(Dim::G) * dim(Dim::C);
        break;
      case OpKind::Fc:
        p += dim(Dim::K);
        break;
      case OpKind::Gemm:
        p += dim(Dim::N);
        break;
      default:
        break;
    }
  }
  if (kind == OpKind::LayerNorm && !shape.empty()) p += (op == "rms_norm" ? 1 : 2) * shape.back();
  if (kind == OpKind::BatchNorm && shape.size() >= 2) p += 2 * shape[1];
  return p;
}

bool Layer::operator==(const Layer& o) const {
  return name == o.name && kind == o.kind && op == o.op && dims == o.dims && stride == o.stride &&
         pad == o.pad && dilation == o.dilation && has_bias == o.has_bias && shape == o.shape &&
         operands == o.operands;
}

Layer conv2d(std::string name, int64_t n, int64_t c_in, int64_t h, int64_t w, int64_t c_out,
             int64_t kernel, int64_t stride, int64_t pad, int64_t groups, bool bias) {
  Layer l;
  l.name = std::move(name);
  l.dim(Dim::N) = n;
  l.dim(Dim::Y) = h;
  l.dim(Dim::X) = w;
  l.dim(Dim::R) = kernel;
  l.dim(Dim::S) = kernel;
  l.stride = {stride, stride};
  l.pad = {pad, pad};
  l.has_bias = bias;
  if (groups <= 1) {
    l.kind = OpKind::Conv;
    l.dim(Dim::K) = c_out;
    l.dim(Dim::C) = c_in;
  } else if (groups == c_in && groups == c_out) {
    l.kind = OpKind::DsConv;
    l.dim(Dim::C) = c_in;
  } else {
    l.kind = OpKind::NgConv;
    l.dim(Dim::G) = groups;
    l.dim(Dim::K) = c_out / groups;
    l.dim(Dim::C) = c_in / groups;
  }
  return l;
}

Layer fc(std::string name, int64_t n, int64_t in, int64_t out, bool bias) {
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::Fc;
  l.dim(Dim::N) = n;
  l.dim(Dim::C) = in;
  l.dim(Dim::K) = out;
  l.has_bias = bias;
  return l;
}

Layer gemm(std::string name, int64_t m, int64_t n, int64_t k, bool bias) {
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::Gemm;
  l.dim(Dim::M) = m;
  l.dim(Dim::N) = n;
  l.dim(Dim::K) = k;
  l.has_bias = bias;
  return l;
}

Layer batched_gemm(std::string name, int64_t batch, int64_t m, int64_t n, int64_t k) {
  Layer l = gemm(std::move(name), m, n, k);
  l.kind = OpKind::BatchedGemm;
  l.dim(Dim::G) = batch;
  return l;
}

Layer nongemm(std::string name, OpKind kind, std::string op, std::vector<int64_t> shape,
              int64_t operands) {
  Layer l;
  l.name = std::move(name);
  l.kind = kind;
  l.op = std::move(op);
  l.shape = std::move(shape);
  l.operands = operands;
  return l;
}

Layer pool2d(std::string name, std::string op, int64_t n, int64_t c, int64_t h, int64_t w,
             int64_t kernel, int64_t stride, int64_t pad) {
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::Pool;
  l.op = std::move(op);
  l.dim(Dim::N) = n;
  l.dim(Dim::C) = c;
  l.dim(Dim::Y) = h;
  l.dim(Dim::X) = w;
  l.dim(Dim::R) = kernel;
  l.dim(Dim::S) = kernel;
  l.stride = {stride, stride};
  l.pad = {pad, pad};
  return l;
}

Layer embedding(std::string name, int64_t lookups, int64_t rows, int64_t width) {
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::Embedding;
  l.op = "embedding";
  l.dim(Dim::N) = lookups;
  l.dim(Dim::C) = rows;
  l.dim(Dim::K) = width;
  return l;
}

}  // namespace sparsemap::workload
