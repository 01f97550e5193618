// DFSL files that MAESTRO runs as written: the layer rewritten in the form MAESTRO's parser and
// analysis read, and the mapping completed where MAESTRO would otherwise read uninitialised
// state. See maestro_export.h for each rule and why our costs do not change.
#include "sparsemap/io/maestro_export.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sparsemap/error.h"

namespace sparsemap::io {
namespace {

using mapping::Directive;
using mapping::DirectiveKind;
using mapping::SizeExpr;
using workload::Dim;
using workload::OpKind;

const SourceLocation kWhere{"<flag --emit-m>", 0, 0};

[[noreturn]] void fail(const std::string& layer, const std::string& message) {
  throw InputError(kWhere, "Layer '" + layer + "': " + message);
}

std::string text_of(const Directive& d) {
  std::string s = mapping::to_dfsl(d);
  if (!s.empty() && s.back() == ';') s.pop_back();
  return s;
}

// MAESTRO's tokenizer splits on " ,->():\t;": names keep only [A-Za-z0-9_].
std::string maestro_name(const std::string& name) {
  std::string s;
  for (char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    s += ok ? c : '_';
  }
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) s = "L" + s;
  return s;
}

// Dimensions a written layer of kind `k` has (MAESTRO's and our reader's).
std::string kind_dims(OpKind k) {
  switch (k) {
    case OpKind::DsConv:
      return "NCYXRS";
    case OpKind::NgConv:
      return "NGKCYXRS";
    case OpKind::Gemm:
      return "MNK";
    default:
      return "NKCYXRS";
  }
}

// Input rows a layer with `out` output rows, stride `s` and filter `r` uses, of `padded`:
// (out - 1) * s + r when r >= s. When r < s (a 1x1 stride-2 layer) each output row owns s rows,
// out * s, capped at `padded`: MAESTRO and our model both mis-step a Y' tile split again over
// (out - 1) * s + r rows there (8.8x the runtime of the untrimmed layer on ResNet-50's
// downsample layers), and agree on out * s.
int64_t used_rows(int64_t out, int64_t s, int64_t r, int64_t padded) {
  return std::min(padded, (out - 1) * s + std::max(r, s));
}

// The layer as written: kind, dimensions, stride; padding and dilation folded away.
workload::Layer written_layer(const workload::Layer& l, std::vector<std::string>& notes) {
  workload::Layer w;
  w.name = maestro_name(l.name);
  w.kind = l.kind;
  auto put = [&](Dim d) { w.dim(d) = l.dim(d); };
  switch (l.kind) {
    case OpKind::Fc:
      w.kind = OpKind::Conv;
      for (Dim d : {Dim::N, Dim::K, Dim::C}) put(d);
      notes.push_back("FC written as CONV with Y = X = R = S = 1 (MAESTRO reads no FC type)");
      break;
    case OpKind::Gemm:
    case OpKind::BatchedGemm:
      w.kind = OpKind::Gemm;
      for (Dim d : {Dim::M, Dim::N, Dim::K}) put(d);
      break;
    default: {  // conv-like
      for (Dim d : {Dim::N, Dim::G, Dim::K, Dim::C, Dim::R, Dim::S}) put(d);
      if (l.kind == OpKind::DsConv) w.dim(Dim::K) = 1;
      if (l.kind != OpKind::NgConv) w.dim(Dim::G) = 1;
      const int64_t oy = l.out_y(), ox = l.out_x();
      if (oy <= 0 || ox <= 0) fail(l.name, "the filter does not fit the input (no output)");
      const bool tr = l.kind == OpKind::TrConv;
      if (tr) {
        w.kind = OpKind::Conv;
        notes.push_back("TRCONV written as CONV with stride 1 over its zero-inserted input");
      } else {
        w.stride = l.stride;
      }
      const int64_t py = tr ? l.dim(Dim::Y) : l.dim(Dim::Y) + 2 * l.pad.y;
      const int64_t px = tr ? l.dim(Dim::X) : l.dim(Dim::X) + 2 * l.pad.x;
      w.dim(Dim::Y) = used_rows(oy, w.stride.y, l.dim(Dim::R), py);
      w.dim(Dim::X) = used_rows(ox, w.stride.x, l.dim(Dim::S), px);
      if (l.dilation != workload::Window2{1, 1}) {  // as our model costs a dilated filter
        w.dim(Dim::Y) = (oy - 1) * w.stride.y + l.dim(Dim::R);
        w.dim(Dim::X) = (ox - 1) * w.stride.x + l.dim(Dim::S);
      }
      std::string note;
      if (!tr && (l.pad.y || l.pad.x))
        note = "zero padding " + std::to_string(l.pad.y) + "x" + std::to_string(l.pad.x) +
               " folded into the input (" + std::to_string(l.dim(Dim::Y)) + "x" +
               std::to_string(l.dim(Dim::X)) + " -> " + std::to_string(py) + "x" +
               std::to_string(px) + ")";
      if (!tr && l.dilation != workload::Window2{1, 1})
        note += std::string(note.empty() ? "" : "; ") + "dilation " + std::to_string(l.dilation.y) +
                "x" + std::to_string(l.dilation.x) +
                " written as the undilated filter over the rows giving the same output";
      if (w.dim(Dim::Y) != py || w.dim(Dim::X) != px)
        note += std::string(note.empty() ? "" : "; ") + "Y, X = the input rows and columns used, " +
                "(Y'-1)*stride+max(R,stride) by (X'-1)*stride+max(S,stride) = " +
                std::to_string(w.dim(Dim::Y)) + "x" + std::to_string(w.dim(Dim::X));
      if (!note.empty()) notes.push_back(note);
    }
  }
  return w;
}

// The maps of one level (Cluster directives removed).
using Level = std::vector<Directive>;

int find(const Level& lv, Dim d) {
  for (size_t i = 0; i < lv.size(); ++i)
    if (lv[i].dim == d) return static_cast<int>(i);
  return -1;
}

Directive full(Dim d, int64_t n) {
  return Directive::temporal(d, SizeExpr::lit(n), SizeExpr::lit(n));
}

// Checks and rewrites the mapping of `src` for the written layer `w`.
mapping::Mapping written_mapping(const workload::Layer& src, const workload::Layer& w,
                                 const mapping::Mapping& m) {
  const bool batched = src.kind == OpKind::BatchedGemm;
  const std::string dims = kind_dims(w.kind);
  std::vector<Level> levels;
  std::vector<Directive> clusters;
  levels.emplace_back();
  bool first_map = true;
  for (const Directive& d : m.directives) {
    if (d.kind == DirectiveKind::Cluster) {
      clusters.push_back(d);
      levels.emplace_back();
      continue;
    }
    const std::string letter(1, workload::dim_letter(d.dim));
    const bool at_top = levels.size() == 1;
    if (batched && d.dim == Dim::G) {
      // One GEMM per batch: G must be walked one batch at a time, outside everything else.
      const bool one = d.kind == DirectiveKind::Temporal && d.size.resolve(src) == 1 &&
                       d.offset.resolve(src) == 1;
      if (!one || (at_top && !first_map))
        fail(src.name, text_of(d) +
                           " cannot be written for MAESTRO: a batched GEMM is written as one "
                           "GEMM layer per batch, which needs TemporalMap(1,1) G outermost");
      first_map = false;
      continue;  // dropped
    }
    if (at_top) first_map = false;
    if (dims.find(letter) == std::string::npos) {
      if (w.dim(d.dim) == 1 && src.dim(d.dim) == 1) continue;  // maps nothing; our model too
      fail(src.name, text_of(d) + " maps " + letter + ", which a " +
                         std::string(workload::op_kind_name(w.kind)) +
                         " layer in MAESTRO does not have");
    }
    if (d.kind == DirectiveKind::Temporal && (d.dim == Dim::R || d.dim == Dim::S)) {
      const int64_t n = w.dim(d.dim);
      if (d.size.resolve(w) != n || d.offset.resolve(w) != n)
        fail(src.name, text_of(d) +
                           " cannot be written for MAESTRO: its parser accepts only "
                           "full-size temporal maps on R and S (TemporalMap(" +
                           std::to_string(n) + "," + std::to_string(n) + ") " + letter +
                           "); search with --maestro-compatible");
    }
    levels.back().push_back(d);
  }
  if (batched && !m.directives.empty() && src.dim(Dim::G) > 1) {
    bool maps_g = false;
    for (const Directive& d : m.directives)
      maps_g |= d.kind != DirectiveKind::Cluster && d.dim == Dim::G;
    if (!maps_g)  // our model would unroll G as one tile of all batches
      fail(src.name,
           "the mapping does not map G: a batched GEMM is written as one GEMM layer "
           "per batch, which needs TemporalMap(1,1) G outermost");
  }

  if (w.kind != OpKind::Gemm) {
    // Level 0: N, R, S where our model completes the level (at the end, in this order).
    Level& top = levels[0];
    for (Dim d : {Dim::N, Dim::R, Dim::S})
      if (find(top, d) < 0) top.push_back(full(d, w.dim(d)));
    // Inner levels: R and S inherited from the parent, in front, in reverse parent order.
    for (size_t li = 1; li < levels.size(); ++li) {
      const Level& parent = levels[li - 1];
      Level& lv = levels[li];
      Level front;
      for (int i = static_cast<int>(parent.size()) - 1; i >= 0; --i) {
        const Directive& p = parent[static_cast<size_t>(i)];
        if ((p.dim == Dim::R || p.dim == Dim::S) && find(lv, p.dim) < 0)
          front.push_back(full(p.dim, p.size.resolve(w)));
      }
      lv.insert(lv.begin(), front.begin(), front.end());
    }
  }
  mapping::Mapping out;
  for (size_t li = 0; li < levels.size(); ++li) {
    if (li > 0) out.directives.push_back(clusters[li - 1]);
    out.directives.insert(out.directives.end(), levels[li].begin(), levels[li].end());
  }
  return out;
}

}  // namespace

std::vector<DfslLayer> maestro_layers(const MappedLayer& in) {
  const workload::Layer& l = in.layer;
  if (!workload::is_gemm_class(l.kind))
    fail(l.name, "a " + std::string(workload::op_kind_name(l.kind)) +
                     " layer has no MACs and no DFSL type: only GEMM-class layers are written");
  if (in.mapping.empty()) fail(l.name, "no mapping to write");
  DfslLayer out;
  out.layer = written_layer(l, out.notes);
  out.mapping = written_mapping(l, out.layer, in.mapping);
  if (l.kind != OpKind::BatchedGemm) return {out};
  const int64_t g = l.dim(Dim::G);
  out.notes.push_back("batch 1 of " + std::to_string(g) + " of batched GEMM '" + l.name +
                      "' (G = " + std::to_string(g) +
                      "): written as one GEMM layer per batch; their costs add up");
  std::vector<DfslLayer> v;
  v.reserve(static_cast<size_t>(g));
  const std::string base = out.layer.name;
  for (int64_t i = 0; i < g; ++i) {
    DfslLayer b = out;
    b.layer.name = base + "_b" + std::to_string(i);
    b.notes.back() =
        "batch " + std::to_string(i + 1) + " of " + std::to_string(g) + " of batched GEMM '" +
        l.name + "': one GEMM layer per batch (MAESTRO has no batched GEMM); their costs add up";
    v.push_back(std::move(b));
  }
  return v;
}

std::string write_maestro_network(const std::string& name, const std::vector<MappedLayer>& layers) {
  DfslNetwork net;
  net.name = maestro_name(name);
  for (const MappedLayer& m : layers)
    for (DfslLayer& d : maestro_layers(m)) net.layers.push_back(std::move(d));
  return write_dfsl(net);
}

std::string write_maestro_hw(const arch::Arch& a, std::string* note) {
  if (note) note->clear();
  auto words = [&](double v, const char* key) {
    const double f = std::floor(v);
    if (f != v && note)
      *note += std::string(note->empty() ? "" : "; ") + key + " " + std::to_string(v) +
               " words/cycle written as " + std::to_string(static_cast<int64_t>(f)) +
               " (MAESTRO reads integers)";
    return static_cast<int64_t>(std::max(1.0, f));
  };
  std::ostringstream os;
  os << "num_pes: " << a.num_pes << "\nl1_size_cstr: " << a.l1_bytes
     << "\nl2_size_cstr: " << a.l2_bytes
     << "\nnoc_bw_cstr: " << words(a.noc_words_per_cycle, "noc_bw_cstr")
     << "\noffchip_bw_cstr: " << words(a.offchip_words_per_cycle, "offchip_bw_cstr") << "\n";
  return os.str();
}

}  // namespace sparsemap::io
