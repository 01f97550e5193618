// Built-in dataflow templates (our own presets, in the styles of MAESTRO's examples):
//   kcp_ws  NVDLA-like weight stationary: output channels across clusters, input channels
//           across the PEs of a cluster, output pixels walked in time.
//   xp_ws   weight stationary with output columns (X') across PEs, one cluster level.
//   yxp_os  ShiDianNao-like output stationary: output rows across clusters, groups of output
//           columns across the PEs of a cluster; channels and the filter walked in time.
#include <algorithm>
#include <cctype>
#include <optional>

#include "sparsemap/cost/dataflows.h"
#include "sparsemap/error.h"

namespace sparsemap::cost {
namespace {

using mapping::Directive;
using mapping::SizeExpr;
using workload::Dim;
using workload::OpKind;

struct Role {
  Dim dim;
  bool primed;
  int64_t extent;
};

// Which dimension plays which part in a layer of this kind.
struct Roles {
  std::vector<Dim> outer;  // batch-like, walked outermost
  std::optional<Role> outch, red, rows, cols;
  bool window = false;  // R and S
};

Roles roles_of(const workload::Layer& l) {
  Roles r;
  auto role = [&](Dim d, bool primed = false) {
    return Role{d, primed, primed ? (d == Dim::Y ? l.out_y() : l.out_x()) : l.dim(d)};
  };
  switch (l.kind) {
    case OpKind::Gemm:
    case OpKind::BatchedGemm:
      if (l.kind == OpKind::BatchedGemm) r.outer.push_back(Dim::G);
      r.outch = role(Dim::N);
      r.red = role(Dim::K);
      r.rows = role(Dim::M);
      break;
    case OpKind::Fc:
      r.outch = role(Dim::K);
      r.red = role(Dim::C);
      r.rows = role(Dim::N);
      break;
    case OpKind::DsConv:
      if (l.dim(Dim::N) > 1) r.outer.push_back(Dim::N);
      r.outch = role(Dim::C);
      r.rows = role(Dim::Y, true);
      r.cols = role(Dim::X, true);
      r.window = true;
      break;
    default:  // Conv, TrConv, NgConv
      if (l.dim(Dim::N) > 1) r.outer.push_back(Dim::N);
      if (l.kind == OpKind::NgConv) r.outer.push_back(Dim::G);
      r.outch = role(Dim::K);
      r.red = role(Dim::C);
      r.rows = role(Dim::Y, true);
      r.cols = role(Dim::X, true);
      r.window = true;
  }
  return r;
}

class Builder {
 public:
  void temporal(const Role& r, int64_t tile) { add(false, r, tile); }
  void spatial(const Role& r, int64_t tile) { add(true, r, tile); }
  void whole(Dim d) {  // TemporalMap(Sz(D),Sz(D)) D
    m_.directives.push_back(Directive::temporal(d, SizeExpr::sz(d), SizeExpr::sz(d)));
  }
  void window(const Roles& r) {
    if (!r.window) return;
    whole(Dim::R);
    whole(Dim::S);
  }
  void outer(const Roles& r) {
    for (Dim d : r.outer)
      m_.directives.push_back(Directive::temporal(d, SizeExpr::lit(1), SizeExpr::lit(1)));
  }
  void cluster(int64_t c) { m_.directives.push_back(Directive::cluster(SizeExpr::lit(c))); }
  mapping::Mapping take() { return std::move(m_); }

 private:
  void add(bool sp, const Role& r, int64_t tile) {
    const int64_t t = std::max<int64_t>(1, std::min(tile, r.extent));
    const SizeExpr e = t == r.extent && !r.primed ? SizeExpr::sz(r.dim) : SizeExpr::lit(t);
    m_.directives.push_back(sp ? Directive::spatial(r.dim, e, e, r.primed)
                               : Directive::temporal(r.dim, e, e, r.primed));
  }
  mapping::Mapping m_;
};

mapping::Mapping kcp_ws(const Roles& r, int64_t num_pes) {
  Builder b;
  b.outer(r);
  const int64_t c = std::min<int64_t>(64, num_pes);
  b.spatial(*r.outch, 1);
  if (!r.red || c < 2) {  // no reduction to spread (depthwise): one level
    if (r.red) b.temporal(*r.red, 1);
    if (r.rows) b.temporal(*r.rows, 1);
    if (r.cols) b.temporal(*r.cols, 1);
    b.window(r);
    return b.take();
  }
  b.temporal(*r.red, c);
  b.window(r);
  if (r.rows) b.temporal(*r.rows, 1);
  if (r.cols) b.temporal(*r.cols, 1);
  b.cluster(c);
  b.spatial(*r.red, 1);
  if (r.rows) b.temporal(*r.rows, 1);
  if (r.cols) b.temporal(*r.cols, 1);
  b.window(r);
  return b.take();
}

mapping::Mapping xp_ws(const Roles& r) {
  Builder b;
  b.outer(r);
  // Across PEs: output columns, else output rows, else output channels.
  const Role* sp = nullptr;
  if (r.cols && r.cols->extent > 1)
    sp = &*r.cols;
  else if (r.rows && r.rows->extent > 1)
    sp = &*r.rows;
  else
    sp = &*r.outch;
  auto put = [&](const std::optional<Role>& x) {
    if (!x) return;
    if (&*x == sp)
      b.spatial(*x, 1);
    else
      b.temporal(*x, 1);
  };
  put(r.outch);
  put(r.red);
  put(r.rows);
  put(r.cols);
  b.window(r);
  return b.take();
}

mapping::Mapping yxp_os(const Roles& r, int64_t num_pes) {
  Builder b;
  b.outer(r);
  // Outer spatial: output rows; inner: groups of output columns (output channels for GEMM).
  const Role& a = *r.rows;
  const Role& c = r.cols ? *r.cols : *r.outch;
  const int64_t t = std::max<int64_t>(1, std::min<int64_t>({8, c.extent, num_pes}));
  if (&c != &*r.outch) b.temporal(*r.outch, 1);
  if (r.red) b.temporal(*r.red, 1);
  b.spatial(a, 1);
  b.temporal(c, t);
  b.cluster(t);
  b.spatial(c, 1);
  b.window(r);
  return b.take();
}

std::string normalise(std::string_view s) {
  std::string n(s);
  for (char& ch : n) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (ch == '-') ch = '_';
  }
  return n;
}

}  // namespace

const std::vector<DataflowTemplate>& dataflow_templates() {
  static const std::vector<DataflowTemplate> all = {
      {"kcp_ws",
       "NVDLA-like weight stationary (MAESTRO's kcp_ws style): output channels across "
       "clusters of 64 PEs, input channels across a cluster's PEs"},
      {"xp_ws",
       "weight stationary (MAESTRO's xp_ws style): output columns across the PEs, one level"},
      {"yxp_os",
       "ShiDianNao-like output stationary (MAESTRO's yxp_os style): output rows across "
       "clusters, 8 output columns across a cluster's PEs"},
  };
  return all;
}

mapping::Mapping dataflow_mapping(std::string_view name, const workload::Layer& layer,
                                  int64_t num_pes) {
  if (!workload::is_gemm_class(layer.kind))
    throw InputError({"<dataflow " + std::string(name) + ">", 0, 0},
                     "layer '" + layer.name + "' (" +
                         std::string(workload::op_kind_name(layer.kind)) +
                         ") has no MACs: dataflow templates map GEMM-class layers");
  const Roles r = roles_of(layer);
  const std::string n = normalise(name);
  if (n == "kcp_ws") return kcp_ws(r, num_pes);
  if (n == "xp_ws") return xp_ws(r);
  if (n == "yxp_os") return yxp_os(r, num_pes);
  std::string names;
  for (const auto& t : dataflow_templates()) names += (names.empty() ? "" : ", ") + t.name;
  throw InputError({"<dataflow>", 0, 0}, "unknown dataflow template '" + std::string(name) +
                                             "'; expected one of: " + names);
}

}  // namespace sparsemap::cost
