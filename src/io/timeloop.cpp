// Timeloop/Accelergy YAML: the shared node reader, problem, mapping, ERT, ART and the
// dispatch on top-level keys (the architecture is in timeloop_arch.cpp).
#include "sparsemap/io/timeloop.h"

#include <cerrno>
#include <cstdlib>
#include <set>

#include "sparsemap/io/util.h"
#include "timeloop_yaml.h"

namespace sparsemap::io {
namespace timeloop_detail {

SourceLocation at(const std::string& file, const YAML::Mark& m) {
  if (m.is_null()) return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

std::string normalise_key(const std::string& key) {
  std::string k = key;
  for (auto& c : k)
    if (c == '-') c = '_';
  return k;
}

void Reader::fail(const YAML::Node& n, const std::string& message) const {
  throw InputError(where(n), message);
}

std::string Reader::scalar(const YAML::Node& n, const std::string& what) const {
  if (!n.IsScalar()) fail(n, "expected a single value for " + what);
  return n.Scalar();
}

std::string Reader::joined(const YAML::Node& n, const std::string& what,
                           const std::string& item) const {
  if (!n.IsSequence()) return scalar(n, what);
  std::string s;
  for (const auto& x : n) s += (s.empty() ? "" : " ") + scalar(x, item);
  return s;
}

int64_t Reader::integer(const YAML::Node& n, const std::string& what) const {
  const std::string s = scalar(n, what);
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno == ERANGE)
    fail(n, "expected an integer for " + what + ", found " + quote_input(s, 40));
  return v;
}

int64_t Reader::positive(const YAML::Node& n, const std::string& what) const {
  const int64_t v = integer(n, what);
  if (v < 1) fail(n, "expected a positive integer for " + what + ", found " + std::to_string(v));
  return v;
}

double Reader::number(const YAML::Node& n, const std::string& what) const {
  const std::string s = scalar(n, what);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno == ERANGE || v != v)
    fail(n, "expected a number for " + what + ", found " + quote_input(s, 40));
  return v;
}

bool Reader::boolean(const YAML::Node& n, const std::string& what) const {
  const std::string s = scalar(n, what);
  if (s == "true" || s == "True" || s == "TRUE" || s == "yes") return true;
  if (s == "false" || s == "False" || s == "FALSE" || s == "no") return false;
  fail(n, "expected true or false for " + what + ", found " + quote_input(s, 40));
}

std::vector<std::string> Reader::names(const YAML::Node& n, const std::string& what) const {
  std::vector<std::string> out;
  if (n.IsNull()) return out;
  if (n.IsScalar()) return {n.Scalar()};
  if (!n.IsSequence()) fail(n, "expected a list of names for " + what);
  for (const auto& x : n) out.push_back(scalar(x, what));
  return out;
}

void Reader::each(
    const YAML::Node& n, const std::string& what,
    const std::function<void(const std::string&, const YAML::Node&, const YAML::Node&)>& on) const {
  if (n.IsNull()) return;
  if (!n.IsMap()) fail(n, "expected a mapping of " + what);
  std::set<std::string> seen;
  for (const auto& kv : n) {
    const std::string key = normalise_key(scalar(kv.first, "a key of " + what));
    if (!seen.insert(key).second) fail(kv.first, "duplicate key '" + key + "' in " + what);
    on(key, kv.first, kv.second);
  }
}

void Reader::each_item(const YAML::Node& n, const std::string& what,
                       const std::function<void(const YAML::Node&)>& on) const {
  if (n.IsNull()) return;
  if (!n.IsSequence()) fail(n, "expected a list of " + what);
  for (const auto& x : n) on(x);
}

}  // namespace timeloop_detail

namespace {

using timeloop_detail::at;
using timeloop_detail::given;
using timeloop_detail::Reader;

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A node's location, column moved `offset` characters into its (single-line) text; a quoted
// scalar starts one character later.
SourceLocation inside(const Reader& r, const YAML::Node& n, size_t offset) {
  SourceLocation w = r.where(n);
  if (w.column > 0) w.column += static_cast<int>(offset) + (n.Tag() == "!" ? 1 : 0);
  return w;
}

// Bounds and coefficients are kept small enough that every footprint and count of the
// loop-nest model fits in 64 bits.
constexpr int64_t kMaxBound = int64_t{1} << 30;
constexpr int64_t kMaxCoefficient = 1000000;

int64_t small(const Reader& r, const YAML::Node& n, const std::string& what) {
  const int64_t v = r.integer(n, what);
  if (v < 0 || v > kMaxCoefficient) r.fail(n, "expected " + what + " between 0 and 1000000");
  return v;
}

// ---- problem --------------------------------------------------------------------------------

// One axis written as text: "Wstride*P + Wdilation*R", "P+R", "C".
workload::ProjectionExpr parse_axis_text(const Reader& r, const YAML::Node& n,
                                         const workload::Einsum& p) {
  const std::string s = n.Scalar();
  workload::ProjectionExpr expr;
  size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  };
  auto word = [&]() -> std::string {
    skip();
    const size_t b = i;
    while (i < s.size() && is_name_char(s[i])) ++i;
    if (b == i)
      throw InputError(inside(r, n, i),
                       "expected a dimension or coefficient in projection " + quote_input(s, 40));
    return s.substr(b, i - b);
  };
  while (true) {
    const size_t start = i;
    std::vector<std::string> factors{word()};
    skip();
    while (i < s.size() && s[i] == '*') {
      ++i;
      factors.push_back(word());
      skip();
    }
    workload::ProjectionTerm t;
    int dims = 0;
    for (const auto& f : factors) {
      if (p.dim_index(f) >= 0) {
        t.dim = f;
        ++dims;
      } else if (!f.empty() && f[0] >= '0' && f[0] <= '9') {
        if (f.size() > 6 || f.find_first_not_of("0123456789") != std::string::npos)
          throw InputError(
              inside(r, n, start),
              "expected a coefficient of at most 6 digits, found " + quote_input(f, 20));
        t.literal *= std::atoll(f.c_str());
      } else {
        bool known = false;
        for (const auto& c : p.coefficients) known |= c.name == f;
        if (!known || !t.coefficient.empty())
          throw InputError(inside(r, n, start),
                           "expected a term 'coefficient*dimension' with a dimension of " + p.name +
                               " and a declared coefficient, found " +
                               quote_input(s.substr(start, i - start), 40));
        t.coefficient = f;
      }
    }
    if (dims != 1)
      throw InputError(inside(r, n, start), "expected exactly one dimension in the term " +
                                                quote_input(s.substr(start, i - start), 40));
    expr.push_back(t);
    if (i >= s.size()) break;
    if (s[i] != '+')
      throw InputError(inside(r, n, i), "expected '+' between projection terms, found " +
                                            quote_input(s.substr(i, 1)));
    ++i;
  }
  return expr;
}

workload::ProjectionTerm parse_term(const Reader& r, const YAML::Node& n,
                                    const workload::Einsum& p) {
  if (n.IsScalar()) {
    const auto e = parse_axis_text(r, n, p);
    if (e.size() != 1) r.fail(n, "expected one projection term, found a sum");
    return e[0];
  }
  if (!n.IsSequence() || n.size() < 1 || n.size() > 2)
    r.fail(n, "expected a projection term [dimension] or [dimension, coefficient]");
  workload::ProjectionTerm t;
  t.dim = r.scalar(n[0], "a projection term's dimension");
  if (p.dim_index(t.dim) < 0)
    r.fail(n[0], "expected a dimension of " + p.name + ", found " + quote_input(t.dim, 40));
  if (n.size() == 2) {
    const std::string c = r.scalar(n[1], "a projection term's coefficient");
    bool known = false;
    for (const auto& x : p.coefficients) known |= x.name == c;
    if (known) {
      t.coefficient = c;
    } else {
      t.literal = small(r, n[1], "a projection coefficient (a declared name or integer)");
    }
  }
  return t;
}

workload::Einsum parse_problem(const Reader& r, const YAML::Node& node) {
  workload::Einsum p;
  YAML::Node shape, instance;
  r.each(node, "the problem (shape, instance)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k == "shape")
             shape = v;
           else if (k == "instance")
             instance = v;
           else if (k != "version")
             r.fail(kn, "unknown key '" + k + "' in problem: expected shape, instance or version");
         });
  if (!given(shape)) r.fail(node, "expected a problem with a shape");
  YAML::Node spaces;
  r.each(shape, "the problem shape",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k == "name") {
             p.name = r.scalar(v, "the shape's name");
           } else if (k == "dimensions") {
             for (const auto& d : r.names(v, "dimensions")) {
               if (p.dim_index(d) >= 0) r.fail(v, "duplicate dimension '" + d + "'");
               p.dims.push_back(d);
             }
           } else if (k == "coefficients") {
             r.each_item(v, "coefficients", [&](const YAML::Node& c) {
               workload::Coefficient co;
               r.each(c, "a coefficient (name, default)",
                      [&](const std::string& ck, const YAML::Node& ckn, const YAML::Node& cv) {
                        if (ck == "name")
                          co.name = r.scalar(cv, "a coefficient's name");
                        else if (ck == "default")
                          co.default_value = small(r, cv, "a coefficient's default");
                        else
                          r.fail(ckn, "unknown key '" + ck +
                                          "' in a coefficient: expected name or default");
                      });
               if (co.name.empty()) r.fail(c, "expected a coefficient with a name");
               p.coefficients.push_back(co);
             });
           } else if (k == "data_spaces") {
             spaces = v;
           } else {
             r.fail(kn, "unknown key '" + k +
                            "' in the problem shape: expected name, dimensions, coefficients "
                            "or data_spaces");
           }
         });
  if (p.dims.empty()) r.fail(shape, "expected a shape with dimensions");
  if (!given(spaces)) r.fail(shape, "expected a shape with data_spaces");
  r.each_item(spaces, "data spaces", [&](const YAML::Node& s) {
    workload::DataSpace ds;
    YAML::Node proj;
    r.each(s, "a data space (name, projection, read_write)",
           [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
             if (k == "name")
               ds.name = r.scalar(v, "a data space's name");
             else if (k == "projection")
               proj = v;
             else if (k == "read_write")
               ds.read_write = r.boolean(v, "read_write");
             else
               r.fail(kn, "unknown key '" + k +
                              "' in a data space: expected name, projection or read_write");
           });
    if (ds.name.empty()) r.fail(s, "expected a data space with a name");
    if (p.data_space_index(ds.name) >= 0) r.fail(s, "duplicate data space '" + ds.name + "'");
    if (!given(proj)) r.fail(s, "expected a projection for data space " + ds.name);
    r.each_item(proj, "projection axes", [&](const YAML::Node& axis) {
      if (axis.IsScalar()) {
        ds.projection.push_back(parse_axis_text(r, axis, p));
        return;
      }
      if (!axis.IsSequence() || axis.size() == 0)
        r.fail(axis, "expected a projection axis: a list of terms such as [[P, Wstride], [R]]");
      workload::ProjectionExpr e;
      for (const auto& t : axis) e.push_back(parse_term(r, t, p));
      ds.projection.push_back(e);
    });
    p.data_spaces.push_back(ds);
  });
  if (p.data_spaces.empty()) r.fail(spaces, "expected at least one data space");
  if (!given(instance)) r.fail(node, "expected a problem instance (a bound per dimension)");
  r.each(instance, "the problem instance",
         [&](const std::string&, const YAML::Node& kn, const YAML::Node& v) {
           const std::string key = kn.Scalar();
           if (key == "densities") return;
           if (p.dim_index(key) >= 0) {
             p.bounds[key] = r.positive(v, "the bound of " + key);
             if (p.bounds[key] > kMaxBound)
               r.fail(v, "expected a bound of at most 2^30 for " + key);
             return;
           }
           for (const auto& c : p.coefficients)
             if (c.name == key) {
               p.coefficient_values[key] = small(r, v, "coefficient " + key);
               return;
             }
           // Other keys (H, W, Hpad, ... as timeloopfe writes them) are Timeloop's to ignore.
           r.scalar(v, key);
         });
  for (const auto& d : p.dims)
    if (!p.bounds.count(d))
      r.fail(instance, "expected a bound for dimension " + d + " in the instance");
  return p;
}

// ---- mapping --------------------------------------------------------------------------------

// `factors:` as one string or a sequence of strings; a dimension given twice, in one string or
// across the sequence's items, is an InputError (at the item that repeats it).
std::vector<mapping::LoopFactor> factors_of(const Reader& r, const YAML::Node& n) {
  if (n.IsSequence()) {
    std::vector<mapping::LoopFactor> out;
    for (const auto& x : n) {
      r.scalar(x, "a factor");
      for (const auto& f : parse_timeloop_factors(x.Scalar(), inside(r, x, 0))) {
        for (const auto& g : out)
          if (g.dim == f.dim) r.fail(x, "duplicate factor for " + quote_input(f.dim, 20));
        out.push_back(f);
      }
    }
    return out;
  }
  r.scalar(n, "factors");
  return parse_timeloop_factors(n.Scalar(), inside(r, n, 0));
}

mapping::LoopNest parse_mapping(const Reader& r, const YAML::Node& node) {
  mapping::LoopNest m;
  r.each_item(node, "mapping directives", [&](const YAML::Node& e) {
    mapping::LoopNestDirective d;
    bool has_type = false;
    YAML::Node type_node;
    r.each(e, "a mapping directive",
           [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
             if (k == "target") {
               d.target = r.scalar(v, "target");
             } else if (k == "type") {
               const std::string t = r.scalar(v, "type");
               has_type = true;
               type_node = v;
               if (t == "temporal")
                 d.kind = mapping::LoopNestDirectiveKind::kTemporal;
               else if (t == "spatial")
                 d.kind = mapping::LoopNestDirectiveKind::kSpatial;
               else if (t == "bypass" || t == "dataspace" || t == "datatype")
                 d.kind = mapping::LoopNestDirectiveKind::kDataspace;
               else
                 r.fail(v, "expected type temporal, spatial, dataspace or bypass, found " +
                               quote_input(t, 40));
             } else if (k == "factors") {
               d.factors = factors_of(r, v);
             } else if (k == "permutation") {
               d.permutation = r.joined(v, "permutation", "a permutation entry");
             } else if (k == "split") {
               d.split = static_cast<int>(r.integer(v, "split"));
               if (d.split < 0) r.fail(v, "expected a split >= 0");
             } else if (k == "keep") {
               d.keep = r.names(v, "keep");
             } else if (k == "bypass") {
               d.bypass = r.names(v, "bypass");
             } else {
               r.fail(kn, "unknown key '" + k +
                              "' in a mapping directive: expected target, "
                              "type, factors, permutation, split, keep or bypass");
             }
           });
    if (d.target.empty()) r.fail(e, "expected a mapping directive with a target");
    if (!has_type)
      r.fail(e, "expected a mapping directive with a type (temporal, spatial, dataspace)");
    m.directives.push_back(d);
  });
  return m;
}

// ---- ERT / ART ------------------------------------------------------------------------------

arch::EnergyTable parse_ert(const Reader& r, const YAML::Node& node) {
  arch::EnergyTable t;
  YAML::Node tables;
  r.each(node, "the ERT (version, tables)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k == "tables")
             tables = v;
           else if (k != "version")
             r.fail(kn, "unknown key '" + k + "' in the ERT: expected version or tables");
         });
  if (!given(tables)) r.fail(node, "expected an ERT with tables");
  r.each_item(tables, "ERT tables", [&](const YAML::Node& c) {
    arch::ComponentEnergy ce;
    YAML::Node actions;
    r.each(c, "an ERT table (name, actions)",
           [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
             if (k == "name")
               ce.name = r.scalar(v, "a component's name");
             else if (k == "actions")
               actions = v;
             else
               r.fail(kn, "unknown key '" + k + "' in an ERT table: expected name or actions");
           });
    if (ce.name.empty()) r.fail(c, "expected an ERT table with a name");
    r.each_item(actions, "actions", [&](const YAML::Node& a) {
      arch::ActionEnergy ae;
      bool has_energy = false;
      r.each(a, "an action (name, arguments, energy)",
             [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
               if (k == "name") {
                 ae.name = r.scalar(v, "an action's name");
               } else if (k == "energy") {
                 ae.energy_pj = r.number(v, "an action's energy (pJ)");
                 has_energy = true;
               } else if (k == "arguments") {
                 r.each(v, "arguments",
                        [&](const std::string&, const YAML::Node& an, const YAML::Node& av) {
                          ae.arguments[an.Scalar()] = av.IsScalar() ? av.Scalar() : std::string();
                        });
               } else {
                 r.fail(kn,
                        "unknown key '" + k + "' in an action: expected name, arguments or energy");
               }
             });
      if (ae.name.empty() || !has_energy) r.fail(a, "expected an action with a name and an energy");
      ce.actions.push_back(ae);
    });
    t.components.push_back(ce);
  });
  return t;
}

arch::AreaTable parse_art(const Reader& r, const YAML::Node& node) {
  arch::AreaTable t;
  YAML::Node tables;
  r.each(node, "the ART (version, tables)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k == "tables")
             tables = v;
           else if (k != "version")
             r.fail(kn, "unknown key '" + k + "' in the ART: expected version or tables");
         });
  if (!given(tables)) r.fail(node, "expected an ART with tables");
  r.each_item(tables, "ART tables", [&](const YAML::Node& c) {
    arch::ComponentArea ca;
    bool has_area = false;
    r.each(c, "an ART table (name, area)",
           [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
             if (k == "name") {
               ca.name = r.scalar(v, "a component's name");
             } else if (k == "area") {
               ca.area_um2 = r.number(v, "an area (um^2)");
               has_area = true;
             } else {
               r.fail(kn, "unknown key '" + k + "' in an ART table: expected name or area");
             }
           });
    if (ca.name.empty() || !has_area) r.fail(c, "expected an ART table with a name and an area");
    t.components.push_back(ca);
  });
  return t;
}

// Where each part came from (for the merge's error).
struct PartLocations {
  std::map<std::string, SourceLocation> where;
};

TimeloopInputs parse_document(const std::string& text, const std::string& file,
                              PartLocations* locs) {
  YAML::Node root;
  try {
    root = YAML::Load(timeloop_detail::without_ignored_blocks(text, {"compound_components"}));
  } catch (const YAML::Exception& e) {
    throw InputError(at(file, e.mark), "invalid YAML: " + e.msg);
  }
  const Reader r(file);
  if (!root.IsMap())
    throw InputError(at(file, root.Mark()),
                     "expected a Timeloop input: a mapping with problem, architecture, mapping, "
                     "ERT or ART");
  timeloop_detail::apply_merge_keys(r, root);
  TimeloopInputs in;
  YAML::Node arch_node, constraints;
  std::set<std::string> seen;
  for (const auto& kv : root) {
    const std::string key = r.scalar(kv.first, "a top-level key");
    if (!seen.insert(key).second) r.fail(kv.first, "duplicate key '" + key + "'");
    const YAML::Node& v = kv.second;
    std::string part;
    if (key == "problem") {
      in.problem = parse_problem(r, v);
      if (v.IsMap() && v["instance"].IsMap())
        in.densities = timeloop_detail::parse_densities(r, v["instance"]["densities"], *in.problem);
      for (const auto& [name, m] : in.densities)
        if (in.problem->data_space_index(name) < 0)
          r.fail(v["instance"]["densities"],
                 "expected densities of the problem's data spaces, found " + quote_input(name, 30));
      part = "problem";
    } else if (key == "architecture") {
      arch_node = v;
      part = "architecture";
    } else if (key == "architecture_constraints") {
      constraints = v;
    } else if (key == "mapping") {
      // timeloop-mapper's processed input writes `mapping: []`: no mapping, not an empty one.
      if (!(v.IsSequence() && v.size() == 0) && !v.IsNull()) {
        in.mapping = parse_mapping(r, v);
        part = "mapping";
      }
    } else if (key == "sparse_optimizations") {
      in.sparse = timeloop_detail::parse_sparse_optimizations(r, v);
      part = "sparse_optimizations";
    } else if (key == "ERT") {
      in.ert = parse_ert(r, v);
      part = "ERT";
    } else if (key == "ART") {
      in.art = parse_art(r, v);
      part = "ART";
    } else if (key == "mapper" && v.IsMap()) {
      for (const char* k : {"optimization_metrics", "optimization_metric"})
        if (v[k] && !v[k].IsNull() && in.optimization_metrics.empty())
          in.optimization_metrics = r.names(v[k], k);
    }
    if (!part.empty() && locs) locs->where[part] = r.where(kv.first);
    if (!part.empty()) in.sources[part] = file;
  }
  if (given(arch_node)) {
    in.arch = timeloop_detail::parse_architecture(r, arch_node, constraints);
    auto tagged = timeloop_detail::tag_sparse_optimizations(r, arch_node);
    if (!tagged.empty()) {
      if (in.sparse)
        r.fail(arch_node,
               "sparse optimizations both in the architecture's components and at the "
               "top level: expected one of the two");
      in.sparse = std::move(tagged);
      if (locs) locs->where["sparse_optimizations"] = r.where(arch_node);
      in.sources["sparse_optimizations"] = file;
    }
  }
  if (!in.problem && !in.arch && !in.mapping && !in.ert && !in.art && !in.sparse)
    throw InputError(at(file, root.Mark()),
                     "expected a Timeloop input: none of problem, architecture, mapping, ERT or "
                     "ART is a top-level key here");
  return in;
}

// Includes expanded, then parsed; an error inside an included file names that file and line.
TimeloopInputs parse_impl(const std::string& raw, const std::string& file, PartLocations* locs) {
  const timeloop_detail::IncludedText inc =
      timeloop_detail::expand_includes(std::string(without_bom(raw)), file);
  try {
    return parse_document(inc.text, file, locs);
  } catch (const InputError& e) {
    if (e.where().file != file) throw;
    throw InputError(inc.origin(e.where()), e.message());
  }
}

}  // namespace

std::vector<mapping::LoopFactor> parse_timeloop_factors(const std::string& s,
                                                        const SourceLocation& where) {
  std::vector<mapping::LoopFactor> out;
  auto here = [&](size_t i) {
    SourceLocation w = where;
    if (w.column > 0) w.column += static_cast<int>(i);
    return w;
  };
  size_t i = 0;
  while (true) {
    while (i < s.size() && (s[i] == ' ' || s[i] == ',' || s[i] == '\t')) ++i;
    if (i >= s.size()) break;
    const size_t b = i;
    while (i < s.size() && is_name_char(s[i])) ++i;
    if (b == i)
      throw InputError(here(i), "expected a factor DIM=N (as in \"R=3 P=16\"), found " +
                                    quote_input(s.substr(i, 1)));
    mapping::LoopFactor f;
    f.dim = s.substr(b, i - b);
    size_t nb = i;
    if (i < s.size() && s[i] == '=') {
      nb = ++i;
    } else {
      // timeloop-mapper's form "C1 M16": the trailing digits are the factor.
      size_t d = i;
      while (d > b && s[d - 1] >= '0' && s[d - 1] <= '9') --d;
      if (d == b || d == i)
        throw InputError(here(i), "expected '=' after " + quote_input(f.dim, 20) +
                                      " in factors (as in \"R=3 P=16\" or \"R3 P16\")");
      f.dim = s.substr(b, d - b);
      nb = i = d;
    }
    int64_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (v > (int64_t{1} << 40))
        throw InputError(here(nb), "factor of " + f.dim + " is too large");
      v = v * 10 + (s[i] - '0');
      ++i;
    }
    if (nb == i || v < 1)
      throw InputError(here(nb), "expected a positive integer factor for " + f.dim);
    if (i < s.size() && s[i] != ' ' && s[i] != ',' && s[i] != '\t')
      throw InputError(here(i), "expected a space or ',' after the factor of " + f.dim +
                                    ", found " + quote_input(s.substr(i, 1)));
    for (const auto& g : out)
      if (g.dim == f.dim) throw InputError(here(b), "duplicate factor for " + f.dim);
    f.value = v;
    out.push_back(f);
  }
  return out;
}

void TimeloopInputs::require_evaluable() const {
  std::string missing;
  if (!arch) missing += " an architecture,";
  if (!problem) missing += " a problem,";
  if (!mapping) missing += " a mapping,";
  if (missing.empty()) return;
  missing.pop_back();
  throw InputError({"<arguments>"}, "expected" + missing + " among the files");
}

TimeloopInputs parse_timeloop_yaml(const std::string& text, const std::string& file) {
  return parse_impl(text, file, nullptr);
}

TimeloopInputs read_timeloop_files(const std::vector<std::string>& paths) {
  TimeloopInputs all;
  std::map<std::string, std::string> from;  // part -> file
  for (const auto& path : paths) {
    PartLocations locs;
    TimeloopInputs in = parse_impl(read_file(path), path, &locs);
    auto merge = [&](auto& dst, auto& src, const std::string& part) {
      if (!src) return;
      if (dst)
        throw InputError(locs.where[part], "a second " + part + " (the first is in " + from[part] +
                                               "): expected each part once across the files");
      dst = std::move(src);
      from[part] = path;
      all.sources[part] = path;
    };
    merge(all.problem, in.problem, "problem");
    merge(all.arch, in.arch, "architecture");
    merge(all.mapping, in.mapping, "mapping");
    merge(all.ert, in.ert, "ERT");
    merge(all.art, in.art, "ART");
    merge(all.sparse, in.sparse, "sparse_optimizations");
    if (!in.densities.empty()) all.densities = std::move(in.densities);
    if (all.optimization_metrics.empty()) all.optimization_metrics = in.optimization_metrics;
  }
  return all;
}

}  // namespace sparsemap::io
