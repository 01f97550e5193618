// Sparsity types: parsing, and masks from scores through sparse/prune's rules.
#include "sparsemap/ml/prune/sparsity_type.h"

#include <algorithm>
#include <cmath>

#include "sparsemap/error.h"
#include "sparsemap/sparse/prune/prune.h"
#include "text_util.h"

namespace sparsemap::ml::prune {

using sparse::ConstMatrixView;
using sparse::Mask;

namespace {

const char* pooling_name(Pooling p) {
  switch (p) {
    case Pooling::Avg:
      return "avg";
    case Pooling::Max:
      return "max";
    case Pooling::L2:
      return "l2";
  }
  return "avg";
}

bool parse_pooling(const std::string& s, Pooling& out) {
  if (s == "avg")
    out = Pooling::Avg;
  else if (s == "max")
    out = Pooling::Max;
  else if (s == "l2")
    out = Pooling::L2;
  else
    return false;
  return true;
}

// Block extents (bh x bw) of a type on a matrix.
void unit_extent(const SparsityType& t, const std::vector<int64_t>& shape, int64_t& bh,
                 int64_t& bw) {
  const MatrixShape ms = matrix_shape(shape);
  bh = 1;
  bw = 1;
  if (t.kind == SparsityKind::Block) {
    bh = t.bh;
    bw = t.bw;
  } else if (t.kind == SparsityKind::ColumnVector) {
    bh = t.v;
  } else if (t.kind == SparsityKind::Channel) {
    if (!t.input_channels) {
      bw = ms.cols;
    } else {
      const int64_t in = shape.size() >= 2 ? shape[1] : ms.cols;
      bh = ms.rows;
      bw = in > 0 ? ms.cols / in : 1;
    }
  }
  bh = std::max<int64_t>(bh, 1);
  bw = std::max<int64_t>(bw, 1);
}

// Pools bh x bw blocks of `s` (edge blocks: over the entries they have), ranks the grid with
// magnitude_mask and expands the kept blocks.
Mask pooled_block_mask(ConstMatrixView s, int64_t bh, int64_t bw, Pooling pooling,
                       double sparsity) {
  const int64_t gr = (s.rows + bh - 1) / bh, gc = (s.cols + bw - 1) / bw;
  sparse::DenseMatrix grid(gr, gc);
  std::vector<int64_t> count(static_cast<size_t>(gr * gc), 0);
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t c = 0; c < s.cols; ++c) {
      const float x = std::fabs(s.data[r * s.ld + c]);
      float& g = grid.at(r / bh, c / bw);
      if (pooling == Pooling::Max)
        g = std::max(g, x);
      else if (pooling == Pooling::L2)
        g += x * x;
      else
        g += x;
      ++count[static_cast<size_t>((r / bh) * gc + c / bw)];
    }
  for (int64_t i = 0; i < gr * gc; ++i) {
    float& g = grid.values[static_cast<size_t>(i)];
    if (pooling == Pooling::Avg) g /= static_cast<float>(count[static_cast<size_t>(i)]);
    if (pooling == Pooling::L2) g = std::sqrt(g);
  }
  const Mask units = sparse::magnitude_mask(grid.view(), sparsity);
  Mask mask{s.rows, s.cols, std::vector<uint8_t>(static_cast<size_t>(s.rows * s.cols), 0)};
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t c = 0; c < s.cols; ++c)
      mask.keep[static_cast<size_t>(r * s.cols + c)] = units.at(r / bh, c / bw) ? 1 : 0;
  return mask;
}

}  // namespace

std::string SparsityType::str() const {
  switch (kind) {
    case SparsityKind::Unstructured:
      return "unstructured";
    case SparsityKind::Block:
      return "block:" + std::to_string(bh) + "x" + std::to_string(bw) + ":" + pooling_name(pooling);
    case SparsityKind::Nm:
      return "nm:" + std::to_string(n) + ":" + std::to_string(m) +
             (axis == sparse::NmAxis::Col ? ":col" : ":row");
    case SparsityKind::Channel:
      return std::string("channel:") + (input_channels ? "in" : "out") + ":" +
             pooling_name(pooling);
    case SparsityKind::ColumnVector:
      return "cvse:" + std::to_string(v);
  }
  return "unstructured";
}

double SparsityType::intrinsic_sparsity() const {
  return kind == SparsityKind::Nm ? 1.0 - static_cast<double>(n) / m : -1.0;
}

bool SparsityType::operator==(const SparsityType& o) const { return str() == o.str(); }

SparsityType parse_sparsity_type(const std::string& text) {
  const SourceLocation where{"<flag --type>", 0, 0};
  const std::string forms =
      "expected unstructured, block:HxW[:avg|max|l2], nm:N:M[:row|col], "
      "channel[:out|in][:avg|max|l2] or cvse:V";
  const std::vector<std::string> f = split(canonical_name(text), ':');
  auto bad = [&](const std::string& why) -> InputError {
    return InputError(where, "'" + text + "': " + why);
  };
  SparsityType t;
  int64_t a = 0, b = 0;
  if (f[0] == "unstructured" && f.size() == 1) {
    return t;
  } else if (f[0] == "block" && (f.size() == 2 || f.size() == 3)) {
    t.kind = SparsityKind::Block;
    const std::vector<std::string> hw = split(f[1], 'x');
    if (hw.size() != 2 || !parse_int(hw[0], a) || !parse_int(hw[1], b) || a < 1 || b < 1 ||
        a > 4096 || b > 4096)
      throw bad("block sizes must be HxW with H, W in [1, 4096]");
    t.bh = static_cast<int>(a);
    t.bw = static_cast<int>(b);
    if (f.size() == 3 && !parse_pooling(f[2], t.pooling)) throw bad("pooling is avg, max or l2");
  } else if (f[0] == "nm" && (f.size() == 3 || f.size() == 4)) {
    t.kind = SparsityKind::Nm;
    if (!parse_int(f[1], a) || !parse_int(f[2], b) || a < 1 || b > 255 || a > b)
      throw bad("N:M needs 1 <= N <= M <= 255");
    t.n = static_cast<int>(a);
    t.m = static_cast<int>(b);
    if (f.size() == 4) {
      if (f[3] == "row")
        t.axis = sparse::NmAxis::Row;
      else if (f[3] == "col")
        t.axis = sparse::NmAxis::Col;
      else
        throw bad("the N:M axis is row or col");
    }
  } else if (f[0] == "channel" && f.size() <= 3) {
    t.kind = SparsityKind::Channel;
    t.pooling = Pooling::L2;
    for (size_t i = 1; i < f.size(); ++i) {
      if (f[i] == "out")
        t.input_channels = false;
      else if (f[i] == "in")
        t.input_channels = true;
      else if (!parse_pooling(f[i], t.pooling))
        throw bad(forms);
    }
  } else if ((f[0] == "cvse" || f[0] == "column") && f.size() == 2) {
    t.kind = SparsityKind::ColumnVector;
    if (!parse_int(f[1], a) || !sparse::valid_cvse_v(static_cast<int>(a)))
      throw bad("V must be 1, 2, 4, 8, 16 or 32");
    t.v = static_cast<int>(a);
  } else {
    throw bad(forms);
  }
  return t;
}

MatrixShape matrix_shape(const std::vector<int64_t>& shape) {
  MatrixShape ms;
  if (shape.empty()) return ms;
  ms.rows = shape.size() == 1 ? 1 : shape[0];
  int64_t cols = 1;
  for (size_t i = shape.size() == 1 ? 0 : 1; i < shape.size(); ++i) cols *= shape[i];
  ms.cols = cols;
  return ms;
}

Mask compute_mask(ConstMatrixView scores, const SparsityType& type, double sparsity,
                  const std::vector<int64_t>& shape) {
  if (!(sparsity >= 0.0 && sparsity <= 1.0))
    throw InputError({"<prune>", 0, 0},
                     "sparsity must be in [0, 1], got " + std::to_string(sparsity));
  switch (type.kind) {
    case SparsityKind::Unstructured:
      return sparse::magnitude_mask(scores, sparsity);
    case SparsityKind::ColumnVector:
      return sparse::column_vector_mask(scores, type.v, sparsity);
    case SparsityKind::Nm:
      if (sparsity <= 0.0) return sparse::magnitude_mask(scores, 0.0);
      return sparse::nm_mask(scores, type.n, type.m, type.axis);
    case SparsityKind::Block:
    case SparsityKind::Channel: {
      int64_t bh = 1, bw = 1;
      unit_extent(type, shape, bh, bw);
      if (type.pooling == Pooling::L2 && bh <= 4096 && bw <= 4096)
        return sparse::block_mask(scores, static_cast<int>(bh), static_cast<int>(bw), sparsity);
      sparse::check_view(scores, "scores");
      return pooled_block_mask(scores, bh, bw, type.pooling, sparsity);
    }
  }
  return sparse::magnitude_mask(scores, sparsity);
}

Mask top_k_mask(ConstMatrixView scores, int64_t keep) {
  const int64_t units = scores.rows * scores.cols;
  keep = std::clamp<int64_t>(keep, 0, units);
  const double s = units > 0 ? static_cast<double>(units - keep) / static_cast<double>(units) : 0;
  Mask m = sparse::magnitude_mask(scores, std::clamp(s, 0.0, 1.0));
  SPARSEMAP_ASSERT(m.kept() == keep);
  return m;
}

int64_t unit_count(const SparsityType& type, const std::vector<int64_t>& shape) {
  const MatrixShape ms = matrix_shape(shape);
  if (type.kind == SparsityKind::Nm)
    return type.axis == sparse::NmAxis::Row ? ms.rows * ((ms.cols + type.m - 1) / type.m)
                                            : ms.cols * ((ms.rows + type.m - 1) / type.m);
  int64_t bh = 1, bw = 1;
  unit_extent(type, shape, bh, bw);
  return ((ms.rows + bh - 1) / bh) * ((ms.cols + bw - 1) / bw);
}

}  // namespace sparsemap::ml::prune
