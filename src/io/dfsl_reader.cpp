// Recursive-descent reader of MAESTRO's DFSL files (.m).
//
// Grammar (keywords and layer types ignore case; `//` and `/* */` comments anywhere):
//   file       := { constant | network } EOF            exactly one network
//   constant   := "Constant" NAME value ";"
//   network    := "Network" NAME "{" { layer | constant } "}"
//   layer      := "Layer" NAME "{" { item } "}"
//   item       := "Type" ":" TYPE [";"]                  CONV DSCONV NGCONV TRCONV GEMM FC
//               | "Stride" "{" { ("X"|"Y") [":"] value [","] } "}"
//               | "Dimensions" "{" { DIM [":"] value [","] } "}"
//               | "Dataflow" "{" { directive } "}"
//   directive  := ("SpatialMap"|"TemporalMap") "(" expr "," expr ")" DIM ["'"] ";"
//               | "Cluster" "(" expr ["," ("P"|"L")] ")" ";"
//   expr       := value | "Sz" "(" DIM ")"
//   value      := positive integer | NAME of a Constant defined above
//   DIM        := N G K C Y X R S M                      only Y and X may be primed
//
// Semantics, checked once the layer's closing brace is read (items come in any order):
// - a layer needs a Type, nothing else: absent dimensions are 1, no Stride is 1x1, and no
//   Dataflow leaves DfslLayer::mapping empty (MAESTRO's files always give all three);
// - a dimension the kind does not use (M in a CONV, K in a DSCONV) must be 1; a dimension
//   given twice must repeat its value (a warning), otherwise it is an error; a conv-like
//   filter must fit its input (R <= Y, S <= X); the product of all dimensions must stay
//   at most 2^62 (so MACs and operand sizes fit int64);
// - the first error wins: syntax errors as they are met, a layer's semantic errors at its '}'.
// - Clamping. The extent a map tiles is the layer dimension, except for Y'/X' (output rows and
//   columns, Layer::out_y/out_x); unprimed Y/X tile the input. A tile larger than its extent is
//   clamped to the extent (a warning at the directive, DfslLayer::clamped = true); Sz(D) stays
//   symbolic unless it resolves above the extent (Sz(R) on S with R > S), when it becomes the
//   literal extent. An offset larger than the extent becomes the extent too: silently when the
//   tile covers the extent (one step whatever the offset; MAESTRO's own files write
//   TemporalMap(Sz(R),7) R), with the tile's warning when the tile was clamped, and with its
//   own warning otherwise (e.g. TemporalMap(1,8) C with C = 3, which skips elements; the
//   mapping validator judges coverage). Offsets are never raised: an offset smaller than the
//   tile (overlap, as in sliding windows) is kept. Inner cluster levels are clamped against
//   the layer's extents too; tiles against their parent tiles are the mapping's concern.
#include <cctype>
#include <map>
#include <optional>

#include "dfsl_lexer.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/io/util.h"

namespace sparsemap::io {
namespace {

using dfsl::Lexer;
using dfsl::Token;
using dfsl::TokKind;
using mapping::Directive;
using mapping::DirectiveKind;
using mapping::SizeExpr;
using workload::Dim;
using workload::OpKind;

constexpr const char* kDimList = "N, G, K, C, Y, X, R, S or M";
constexpr const char* kTypeList = "CONV, DSCONV, NGCONV, TRCONV, GEMM or FC";

std::optional<OpKind> dfsl_kind(const Token& t) {
  const OpKind kinds[] = {OpKind::Conv,   OpKind::DsConv, OpKind::NgConv,
                          OpKind::TrConv, OpKind::Gemm,   OpKind::Fc};
  for (OpKind k : kinds)
    if (t.is_word(workload::op_kind_name(k))) return k;
  return std::nullopt;
}

bool is_windowed(OpKind k) {
  return k == OpKind::Conv || k == OpKind::DsConv || k == OpKind::NgConv || k == OpKind::TrConv;
}

// The dimensions a layer of kind `k` may give a value other than 1.
std::string used_dims(OpKind k) {
  switch (k) {
    case OpKind::DsConv:
      return "NCYXRS";
    case OpKind::NgConv:
      return "NGKCYXRS";
    case OpKind::Fc:
      return "NKC";
    case OpKind::Gemm:
      return "MNK";
    default:
      return "NKCYXRS";
  }
}

std::string list_letters(const std::string& letters) {
  std::string s;
  for (char c : letters) s += (s.empty() ? "" : ", ") + std::string(1, c);
  return s;
}

std::string loc_text(const SourceLocation& w) {
  return std::to_string(w.line) + ":" + std::to_string(w.column);
}

struct Constant {
  int64_t value;
  SourceLocation where;
};

// A value given in a Dimensions or Stride block, by its upper-case letter.
struct Entry {
  int64_t value = 1;
  SourceLocation where;
};
using Entries = std::map<char, Entry>;

struct ParsedDirective {
  Directive d;
  SourceLocation where;  // the SpatialMap/TemporalMap/Cluster keyword
};

class Parser {
 public:
  Parser(std::string_view text, std::string file) : lex_(text, std::move(file)) {
    tok_ = lex_.next();
  }

  DfslNetwork parse_file() {
    bool have_network = false;
    while (tok_.kind != TokKind::End) {
      if (tok_.is_word("Constant")) {
        parse_constant();
      } else if (tok_.is_word("Network")) {
        if (have_network) fail(tok_, "a second Network block: expected one Network per file");
        parse_network();
        have_network = true;
      } else {
        fail(tok_, "expected 'Network' or 'Constant', found " + describe(tok_));
      }
    }
    if (!have_network) fail(tok_, "expected a Network block, found end of file");
    return std::move(net_);
  }

 private:
  Token take() {
    Token t = tok_;
    tok_ = lex_.next();
    return t;
  }
  SourceLocation where(const Token& t) const { return lex_.where(t); }
  [[noreturn]] void fail(const Token& t, const std::string& message) const {
    throw InputError(where(t), message);
  }
  [[noreturn]] void fail(const SourceLocation& w, const std::string& message) const {
    throw InputError(w, message);
  }
  void warn(const SourceLocation& w, std::string message) {
    net_.warnings.push_back({w, std::move(message)});
  }

  // Consumes punctuation `c` or fails with "expected 'c' <context>, found ...".
  Token expect(char c, const std::string& context) {
    if (!tok_.is_punct(c))
      fail(tok_, std::string("expected '") + c + "' " + context + ", found " + describe(tok_));
    return take();
  }
  bool accept(char c) {
    if (!tok_.is_punct(c)) return false;
    take();
    return true;
  }
  // At end of file inside a block: "expected '}' to close Layer 'X' (opened at 3:5)".
  [[noreturn]] void unclosed(const std::string& block, const Token& open) const {
    fail(tok_, "expected '}' to close " + block + " (opened at " + loc_text(where(open)) +
                   "), found end of file");
  }

  std::string parse_name(const char* what) {
    if (tok_.kind != TokKind::Ident)
      fail(tok_, std::string("expected a ") + what + " name, found " + describe(tok_));
    return std::string(take().text);
  }

  // A positive integer or the name of a Constant defined above.
  int64_t parse_value(const char* what) {
    if (tok_.kind == TokKind::Number) {
      if (tok_.value <= 0)
        fail(tok_, std::string("expected a positive ") + what + ", found " + describe(tok_));
      return take().value;
    }
    if (tok_.kind == TokKind::Ident) {
      auto it = constants_.find(std::string(tok_.text));
      if (it == constants_.end())
        fail(tok_, "undefined constant " + describe(tok_) + ": expected a positive " + what +
                       " (an integer or a Constant defined above)");
      take();
      return it->second.value;
    }
    fail(tok_, std::string("expected a positive ") + what + ", found " + describe(tok_));
  }

  // A value or Sz(D).
  SizeExpr parse_expr(const char* what) {
    if (tok_.is_word("Sz")) {
      const Token sz = take();
      if (tok_.is_punct('(')) {
        take();
        const Dim d = parse_dim();
        expect(')', "after Sz(" + std::string(1, workload::dim_letter(d)));
        return SizeExpr::sz(d);
      }
      auto it = constants_.find(std::string(sz.text));
      if (it == constants_.end())
        fail(tok_, std::string("expected '(' after Sz, found ") + describe(tok_));
      return SizeExpr::lit(it->second.value);
    }
    return SizeExpr::lit(parse_value(what));
  }

  Dim parse_dim() {
    if (tok_.kind == TokKind::Ident && tok_.text.size() == 1)
      if (auto d = workload::dim_from_letter(tok_.text[0])) {
        take();
        return *d;
      }
    fail(tok_, std::string("expected a dimension (") + kDimList + "), found " + describe(tok_));
  }

  void parse_constant() {
    take();
    const Token name_tok = tok_;
    const std::string name = parse_name("constant");
    const int64_t value = parse_value("constant value");
    expect(';', "after the value of Constant " + name);
    auto [it, inserted] = constants_.emplace(name, Constant{value, where(name_tok)});
    if (!inserted && it->second.value != value)
      fail(name_tok, "Constant " + name + " redefined as " + std::to_string(value) + " (it was " +
                         std::to_string(it->second.value) + " at " + loc_text(it->second.where) +
                         ")");
  }

  void parse_network() {
    take();
    net_.name = parse_name("network");
    const Token open = expect('{', "after the Network name");
    while (!tok_.is_punct('}')) {
      if (tok_.kind == TokKind::End) unclosed("Network '" + net_.name + "'", open);
      if (tok_.is_word("Layer"))
        parse_layer();
      else if (tok_.is_word("Constant"))
        parse_constant();
      else
        fail(tok_, "expected 'Layer', 'Constant' or '}', found " + describe(tok_));
    }
    take();
  }

  // "{ K: 64, C 3 R: 3 }": letters from `allowed`, optional colons and commas.
  void parse_entries(const std::string& block, const std::string& allowed, const char* what,
                     Entries& out) {
    const Token open = expect('{', "after " + block);
    while (!tok_.is_punct('}')) {
      if (tok_.kind == TokKind::End) unclosed(block + " block", open);
      const Token key = tok_;
      if (key.kind != TokKind::Ident || key.text.size() != 1 ||
          allowed.find(static_cast<char>(std::toupper(static_cast<unsigned char>(key.text[0])))) ==
              std::string::npos)
        fail(key, (allowed.size() == 2 ? std::string("expected X, Y")
                                       : std::string("expected a dimension (") + kDimList + ")") +
                      " or '}' in " + block + ", found " + describe(key));
      take();
      const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(key.text[0])));
      accept(':');
      const int64_t value = parse_value(what);
      accept(',');
      auto [it, fresh] = out.emplace(letter, Entry{value, where(key)});
      if (!fresh) {
        const Entry& e = it->second;
        if (e.value != value)
          fail(key, std::string(1, letter) + " given twice in " + block +
                        " with different values (" + std::to_string(e.value) + " at " +
                        loc_text(e.where) + ", then " + std::to_string(value) + ")");
        warn(where(key), std::string(1, letter) + " given twice in " + block + " (both " +
                             std::to_string(value) + "); using it once");
      }
    }
    take();
  }

  ParsedDirective parse_directive() {
    const Token kw = take();
    ParsedDirective p;
    p.where = where(kw);
    const std::string name(kw.text);
    if (kw.is_word("Cluster")) {
      expect('(', "after Cluster");
      const SizeExpr size = parse_expr("cluster size");
      bool logical = false;
      if (accept(',')) {
        if (tok_.is_word("L"))
          logical = true;
        else if (!tok_.is_word("P"))
          fail(tok_, "expected P or L (the cluster type), found " + describe(tok_));
        take();
      }
      expect(')', "after the cluster size and type");
      expect(';', "after Cluster(...)");
      p.d = Directive::cluster(size, logical);
      return p;
    }
    const bool spatial = kw.is_word("SpatialMap");
    expect('(', "after " + name);
    const SizeExpr size = parse_expr("size");
    expect(',', "between the size and the offset of " + name);
    const SizeExpr offset = parse_expr("offset");
    expect(')', "after the offset of " + name);
    const Token dim_tok = tok_;
    const Dim d = parse_dim();
    bool primed = false;
    if (tok_.is_punct('\'')) {
      if (d != Dim::Y && d != Dim::X)
        fail(dim_tok, std::string("only Y and X can be primed (output rows and columns), found ") +
                          workload::dim_letter(d) + "'");
      take();
      primed = true;
    }
    expect(';', "after " + name + "(...) " + std::string(dim_tok.text) + (primed ? "'" : ""));
    p.d = spatial ? Directive::spatial(d, size, offset, primed)
                  : Directive::temporal(d, size, offset, primed);
    return p;
  }

  void parse_layer() {
    const Token kw = take();
    DfslLayer out;
    out.where = where(kw);
    out.layer.name = parse_name("layer");
    const std::string label = "Layer '" + out.layer.name + "'";
    const Token open = expect('{', "after the Layer name");
    std::optional<OpKind> kind;
    Entries dims, strides;
    std::optional<SourceLocation> dims_at, stride_at, dataflow_at;
    std::vector<ParsedDirective> directives;
    auto once = [&](std::optional<SourceLocation>& seen, const Token& t) {
      if (seen)
        fail(t, "duplicate " + std::string(t.text) + " block in " + label + " (first at " +
                    loc_text(*seen) + ")");
      seen = where(t);
    };
    while (!tok_.is_punct('}')) {
      const Token t = tok_;
      if (t.kind == TokKind::End) unclosed(label, open);
      if (t.is_word("Type")) {
        if (kind) fail(t, "duplicate Type in " + label);
        take();
        expect(':', "after Type");
        kind = dfsl_kind(tok_);
        if (!kind)
          fail(tok_,
               std::string("expected a layer type (") + kTypeList + "), found " + describe(tok_));
        take();
        accept(';');
      } else if (t.is_word("Stride")) {
        once(stride_at, t);
        take();
        parse_entries("Stride", "XY", "stride", strides);
      } else if (t.is_word("Dimensions")) {
        once(dims_at, t);
        take();
        parse_entries("Dimensions", "NGKCYXRSM", "dimension value", dims);
      } else if (t.is_word("Dataflow")) {
        once(dataflow_at, t);
        take();
        const Token df_open = expect('{', "after Dataflow");
        while (!tok_.is_punct('}')) {
          if (tok_.kind == TokKind::End) unclosed("Dataflow block", df_open);
          if (!tok_.is_word("SpatialMap") && !tok_.is_word("TemporalMap") &&
              !tok_.is_word("Cluster"))
            fail(tok_,
                 "expected 'SpatialMap', 'TemporalMap', 'Cluster' or '}', found " + describe(tok_));
          directives.push_back(parse_directive());
        }
        take();
      } else {
        fail(t, "expected 'Type', 'Stride', 'Dimensions', 'Dataflow' or '}', found " + describe(t));
      }
    }
    take();
    if (!kind) fail(kw, label + " has no Type: expected 'Type: CONV' (or " + kTypeList + ")");
    finish_layer(out, *kind, dims, strides, dims_at, directives);
    net_.layers.push_back(std::move(out));
  }

  void finish_layer(DfslLayer& out, OpKind kind, const Entries& dims, const Entries& strides,
                    const std::optional<SourceLocation>& dims_at,
                    std::vector<ParsedDirective>& directives) {
    workload::Layer& l = out.layer;
    l.kind = kind;
    const std::string used = used_dims(kind);
    const std::string kind_name(workload::op_kind_name(kind));
    int64_t product = 1;
    for (Dim d : workload::kAllDims) {
      const char letter = workload::dim_letter(d);
      const auto it = dims.find(letter);
      if (it == dims.end()) continue;
      const Entry& e = it->second;
      if (e.value != 1 && used.find(letter) == std::string::npos)
        fail(e.where, std::string(1, letter) + " = " + std::to_string(e.value) +
                          " is not used by " + kind_name + " layers: expected " +
                          list_letters(used) + " (or " + letter + ": 1)");
      l.dim(d) = e.value;
      if (__builtin_mul_overflow(product, e.value, &product) || product > (int64_t{1} << 62))
        fail(*dims_at,
             "Layer '" + l.name + "' is too large: the product of its dimensions exceeds 2^62");
    }
    if (auto y = strides.find('Y'); y != strides.end()) l.stride.y = y->second.value;
    if (auto x = strides.find('X'); x != strides.end()) l.stride.x = x->second.value;
    if (is_windowed(kind)) {
      const std::pair<Dim, Dim> windows[] = {{Dim::R, Dim::Y}, {Dim::S, Dim::X}};
      for (auto [f, in] : windows)
        if (l.dim(f) > l.dim(in))
          fail(dims_at ? *dims_at : out.where,
               std::string("filter ") + workload::dim_letter(f) + " = " + std::to_string(l.dim(f)) +
                   " is larger than input " + workload::dim_letter(in) + " = " +
                   std::to_string(l.dim(in)) + " in Layer '" + l.name + "'");
    }
    for (ParsedDirective& p : directives) {
      if (p.d.kind != DirectiveKind::Cluster) clamp(out, p);
      out.mapping.directives.push_back(p.d);
    }
  }

  // Clamps a map's tile and offset to the extent it tiles; see the file comment.
  void clamp(DfslLayer& out, ParsedDirective& p) {
    const workload::Layer& l = out.layer;
    Directive& d = p.d;
    const int64_t extent = d.primed ? (d.dim == Dim::Y ? l.out_y() : l.out_x()) : l.dim(d.dim);
    const int64_t size = d.size.resolve(l), offset = d.offset.resolve(l);
    if (size <= extent && offset <= extent) return;
    std::string text = mapping::to_dfsl(d);
    text.pop_back();  // the ';'
    const std::string dim = std::string(1, workload::dim_letter(d.dim)) + (d.primed ? "'" : "");
    const std::string ext = std::to_string(extent);
    auto shown = [&](const SizeExpr& e, int64_t v) {
      return e.size_of ? std::string("Sz(") + workload::dim_letter(*e.size_of) +
                             ") = " + std::to_string(v)
                       : std::to_string(v);
    };
    if (size == extent) {  // the tile covers the extent: one step, the offset is moot
      d.offset = SizeExpr::lit(extent);
      return;
    }
    const std::string what =
        size > extent ? "tile " + shown(d.size, size) : "offset " + shown(d.offset, offset);
    if (size > extent) d.size = SizeExpr::lit(extent);
    if (offset > extent) d.offset = SizeExpr::lit(extent);
    out.clamped = true;
    warn(p.where, text + ": " + what + " larger than " + dim + " = " + ext + "; clamped to " + ext);
  }

  Lexer lex_;
  Token tok_;
  std::map<std::string, Constant> constants_;
  DfslNetwork net_;
};

}  // namespace

DfslNetwork parse_dfsl(const std::string& text, const std::string& file) {
  return Parser(without_bom(text), file).parse_file();
}

DfslNetwork read_dfsl(const std::string& path) { return parse_dfsl(read_file(path), path); }

}  // namespace sparsemap::io
