// Mapping directives: construction, comparison, levels and DFSL text of one directive.
#include "sparsemap/mapping/mapping.h"

namespace sparsemap::mapping {
namespace {

std::string expr_text(const SizeExpr& e) {
  if (e.size_of) return std::string("Sz(") + workload::dim_letter(*e.size_of) + ")";
  return std::to_string(e.literal);
}

}  // namespace

Directive Directive::spatial(Dim d, SizeExpr size, SizeExpr offset, bool primed) {
  Directive x;
  x.kind = DirectiveKind::Spatial;
  x.dim = d;
  x.primed = primed;
  x.size = size;
  x.offset = offset;
  return x;
}

Directive Directive::temporal(Dim d, SizeExpr size, SizeExpr offset, bool primed) {
  Directive x = spatial(d, size, offset, primed);
  x.kind = DirectiveKind::Temporal;
  return x;
}

Directive Directive::cluster(SizeExpr size, bool logical) {
  Directive x;
  x.kind = DirectiveKind::Cluster;
  x.size = size;
  x.logical = logical;
  return x;
}

bool Directive::operator==(const Directive& o) const {
  if (kind != o.kind || size != o.size) return false;
  if (kind == DirectiveKind::Cluster) return logical == o.logical;
  return dim == o.dim && primed == o.primed && offset == o.offset;
}

std::vector<std::vector<Directive>> Mapping::levels() const {
  std::vector<std::vector<Directive>> out(1);
  for (const auto& d : directives) {
    if (d.kind == DirectiveKind::Cluster)
      out.emplace_back();
    else
      out.back().push_back(d);
  }
  return out;
}

std::vector<int64_t> Mapping::cluster_sizes(const workload::Layer& layer) const {
  std::vector<int64_t> out;
  for (const auto& d : directives)
    if (d.kind == DirectiveKind::Cluster) out.push_back(d.size.resolve(layer));
  return out;
}

std::string to_dfsl(const Directive& d) {
  if (d.kind == DirectiveKind::Cluster)
    return "Cluster(" + expr_text(d.size) + (d.logical ? ",L);" : ",P);");
  std::string s = d.kind == DirectiveKind::Spatial ? "SpatialMap(" : "TemporalMap(";
  s += expr_text(d.size) + "," + expr_text(d.offset) + ") ";
  s += workload::dim_letter(d.dim);
  if (d.primed) s += "'";
  return s + ";";
}

}  // namespace sparsemap::mapping
