// Timeloop architectures: the v0.4 tag form (!Container / !Component / !Parallel) and the
// flattened form (subtree / local, name[a..b]) of parsed-processed-input.yaml and v0.3.
#include <cmath>

#include "sparsemap/arch/hierarchy.h"
#include "sparsemap/io/timeloop.h"
#include "timeloop_yaml.h"

namespace sparsemap::io::timeloop_detail {
namespace {

// A component before it is known to be storage or compute.
struct Component {
  std::string name, component_class;
  int64_t instances = 1, mesh_x = 1, mesh_y = 1;
  bool mesh_given = false;
  bool dummy = false;
  std::map<std::string, std::string> attributes;
  std::map<std::string, YAML::Node> attribute_nodes;  // for errors at the value
  arch::LevelConstraints constraints;
  YAML::Node node;
};

// The outermost container's attributes that describe the whole design: its technology and
// clock period (seconds); other keys are the components' (read where they apply).
void read_top_attributes(const Reader& r, const YAML::Node& attributes, arch::Hierarchy& h) {
  r.each(attributes, "attributes",
         [&](const std::string& k, const YAML::Node&, const YAML::Node& v) {
           if (k == "technology")
             h.technology = r.scalar(v, "technology");
           else if (k == "global_cycle_seconds")
             h.global_cycle_seconds = r.number(v, "global_cycle_seconds");
         });
}

std::string factors_text(const Reader& r, const YAML::Node& n) {
  return r.joined(n, "factors", "a factor");
}

std::string permutation_text(const Reader& r, const YAML::Node& n) {
  return r.joined(n, "permutation", "a permutation entry");
}

// `constraints:` of a tag-form node: {dataspace: {keep, bypass}, temporal: {...}, spatial: {...}}.
void read_constraints(const Reader& r, const YAML::Node& n, arch::LevelConstraints& c) {
  r.each(n, "constraints (dataspace, temporal, spatial)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k == "dataspace") {
             r.each(v, "dataspace constraints (keep, bypass)",
                    [&](const std::string& dk, const YAML::Node& dkn, const YAML::Node& dv) {
                      if (dk == "keep")
                        c.keep = r.names(dv, "keep");
                      else if (dk == "bypass")
                        c.bypass = r.names(dv, "bypass");
                      else if (dk != "keep_only" && dk != "bypass_only" && dk != "no_coalesce")
                        r.fail(dkn, "unknown key '" + dk +
                                        "' in dataspace constraints: expected keep or bypass");
                    });
           } else if (k == "temporal" || k == "spatial") {
             const bool t = k == "temporal";
             r.each(v, k + " constraints (factors, permutation)",
                    [&](const std::string& tk, const YAML::Node& tkn, const YAML::Node& tv) {
                      if (tk == "factors")
                        (t ? c.temporal_factors : c.spatial_factors) = factors_text(r, tv);
                      else if (tk == "permutation")
                        (t ? c.temporal_permutation : c.spatial_permutation) =
                            permutation_text(r, tv);
                      else if (tk == "split" && !t)
                        c.spatial_split = static_cast<int>(r.integer(tv, "split"));
                      else if (tk != "no_reuse" && tk != "no_iteration_over_dataspaces" &&
                               tk != "maximize_dims" && tk != "min_usage" && tk != "max_usage")
                        r.fail(tkn, "unknown key '" + tk + "' in " + k +
                                        " constraints: expected factors, permutation" +
                                        (t ? "" : " or split"));
                    });
           } else {
             r.fail(kn, "unknown key '" + k +
                            "' in constraints: expected dataspace, temporal or spatial");
           }
         });
}

// `spatial: {meshX, meshY}`.
std::pair<int64_t, int64_t> read_spatial(const Reader& r, const YAML::Node& n) {
  int64_t x = 1, y = 1;
  r.each(n, "spatial (meshX, meshY)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k == "meshX")
             x = r.positive(v, "meshX");
           else if (k == "meshY")
             y = r.positive(v, "meshY");
           else
             r.fail(kn, "unknown key '" + k + "' in spatial: expected meshX or meshY");
         });
  return {x, y};
}

void read_attributes(const Reader& r, const YAML::Node& n, Component& c) {
  r.each(n, "attributes", [&](const std::string& k, const YAML::Node&, const YAML::Node& v) {
    c.attributes[k] = v.IsScalar() ? v.Scalar() : std::string();
    c.attribute_nodes[k] = v;
  });
}

// "Buffer[1..16]" -> {"Buffer", 16}; no range -> 1.
std::pair<std::string, int64_t> name_range(const Reader& r, const YAML::Node& n) {
  const std::string s = r.scalar(n, "a name");
  const auto b = s.find('[');
  if (b == std::string::npos) return {s, 1};
  const auto dots = s.find("..", b);
  const auto e = s.find(']', b);
  if (dots == std::string::npos || e == std::string::npos || e != s.size() - 1)
    r.fail(n, "expected a name with an instance range such as Buffer[0..15], found " +
                  quote_input(s, 40));
  const std::string lo = s.substr(b + 1, dots - b - 1), hi = s.substr(dots + 2, e - dots - 2);
  auto num = [&](const std::string& t) {
    if (t.empty() || t.size() > 12 || t.find_first_not_of("0123456789") != std::string::npos)
      r.fail(n, "expected integers in the instance range of " + quote_input(s, 40));
    return std::stoll(t);
  };
  const int64_t a = num(lo), z = num(hi);
  if (z < a)
    r.fail(n, "expected an instance range [a..b] with a <= b, found " + quote_input(s, 40));
  return {s.substr(0, b), z - a + 1};
}

// ---- tag form -------------------------------------------------------------------------------

struct TagWalk {
  const Reader& r;
  std::vector<Component> out;
  arch::Hierarchy h;
  int64_t instances = 1, mesh_x = 1, mesh_y = 1;
  bool top_seen = false;

  void component(const YAML::Node& n) {
    Component c;
    c.node = n;
    YAML::Node spatial;
    r.each(
        n, "a !Component (name, class, attributes, spatial, constraints)",
        [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
          if (k == "name")
            c.name = r.scalar(v, "a component's name");
          else if (k == "class" || k == "subclass") {
            if (k == "class") c.component_class = r.scalar(v, "class");
          } else if (k == "attributes")
            read_attributes(r, v, c);
          else if (k == "spatial")
            spatial = v;
          else if (k == "constraints")
            read_constraints(r, v, c.constraints);
          else if (k != "required_actions" && k != "enabled" && k != "area_share" &&
                   k != "actions" && k != "sparse_optimizations")  // timeloop_sparse.cpp
            r.fail(
                kn,
                "unknown key '" + k +
                    "' in a !Component: expected name, class, attributes, spatial or constraints");
        });
    if (c.name.empty()) r.fail(n, "expected a !Component with a name");
    if (c.component_class.empty()) r.fail(n, "expected a !Component with a class");
    if (given(spatial)) {
      const auto [x, y] = read_spatial(r, spatial);
      instances *= x * y;
      mesh_x *= x;
      mesh_y *= y;
    }
    c.instances = instances;
    c.mesh_x = mesh_x;
    c.mesh_y = mesh_y;
    c.mesh_given = true;
    out.push_back(c);
  }

  void container(const YAML::Node& n) {
    std::string name;
    YAML::Node spatial, attributes, constraints;
    r.each(n, "a !Container (name, attributes, spatial, constraints)",
           [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
             if (k == "name")
               name = r.scalar(v, "a container's name");
             else if (k == "attributes")
               attributes = v;
             else if (k == "spatial")
               spatial = v;
             else if (k == "constraints")
               constraints = v;
             else if (k != "class" && k != "enabled")
               r.fail(kn,
                      "unknown key '" + k +
                          "' in a !Container: expected name, attributes, spatial or constraints");
           });
    if (name.empty()) r.fail(n, "expected a !Container with a name");
    if (!top_seen) {
      top_seen = true;
      h.name = name;
      read_top_attributes(r, attributes, h);
    }
    if (!given(spatial) && !given(constraints)) return;
    int64_t x = 1, y = 1;
    if (given(spatial)) std::tie(x, y) = read_spatial(r, spatial);
    // The fan-out's spatial loops live on a dummy level above the container's contents.
    Component d;
    d.name = "inter_" + name + "_spatial";
    d.component_class = "dummy_storage";
    d.dummy = true;
    d.instances = instances;
    d.mesh_x = mesh_x;
    d.mesh_y = mesh_y;
    d.mesh_given = true;
    d.node = n;
    if (given(constraints)) read_constraints(r, constraints, d.constraints);
    out.push_back(d);
    instances *= x * y;
    mesh_x *= x;
    mesh_y *= y;
  }

  void nodes(const YAML::Node& list) {
    r.each_item(list, "architecture nodes", [&](const YAML::Node& n) {
      const std::string tag = n.Tag();
      if (tag == "!Container") {
        container(n);
      } else if (tag == "!Component") {
        component(n);
      } else if (tag == "!Nothing") {
        // A placeholder (it may carry constraints for the mapper); no level.
      } else if (tag == "!Parallel" || tag == "!Hierarchical") {
        r.each(n, "a " + tag + " (nodes)",
               [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
                 if (k == "nodes")
                   nodes(v);
                 else
                   r.fail(kn, "unknown key '" + k + "' in " + tag + ": expected nodes");
               });
      } else {
        r.fail(
            n,
            "expected a node tagged !Container, !Component, !Parallel, !Hierarchical or !Nothing" +
                std::string(tag.empty() || tag == "?" ? "" : ", found " + quote_input(tag, 30)));
      }
    });
  }
};

// ---- flattened form -------------------------------------------------------------------------

struct FlatWalk {
  const Reader& r;
  std::vector<Component> out;
  arch::Hierarchy h;
  bool top_seen = false;

  void local(const YAML::Node& n, int64_t outer) {
    Component c;
    c.node = n;
    YAML::Node name_node;
    r.each(
        n, "a local component (name, class, attributes)",
        [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
          if (k == "name")
            name_node = v;
          else if (k == "class")
            c.component_class = r.scalar(v, "class");
          else if (k == "attributes")
            read_attributes(r, v, c);
          else if (k != "required_actions" && k != "enabled" && k != "subclass" && k != "actions")
            r.fail(kn, "unknown key '" + k +
                           "' in a local component: expected name, class or attributes");
        });
    if (!given(name_node)) r.fail(n, "expected a local component with a name");
    if (c.component_class.empty()) r.fail(n, "expected a local component with a class");
    int64_t count = 1;
    std::tie(c.name, count) = name_range(r, name_node);
    c.instances = outer * count;
    c.dummy = c.component_class == "dummy_storage";
    out.push_back(c);
  }

  void subtree(const YAML::Node& n, int64_t outer) {
    YAML::Node name_node, locals, subs, attributes;
    r.each(n, "a subtree (name, attributes, local, subtree)",
           [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
             if (k == "name")
               name_node = v;
             else if (k == "attributes")
               attributes = v;
             else if (k == "local")
               locals = v;
             else if (k == "subtree")
               subs = v;
             else if (k != "version" && k != "class")
               r.fail(kn, "unknown key '" + k +
                              "' in a subtree: expected name, attributes, local or subtree");
           });
    if (!given(name_node)) r.fail(n, "expected a subtree with a name");
    const auto [name, count] = name_range(r, name_node);
    if (!top_seen) {
      top_seen = true;
      h.name = name;
      read_top_attributes(r, attributes, h);
    }
    // A plain local: a C++17 lambda cannot capture a structured binding (clang refuses it).
    const int64_t instances = outer * count;
    r.each_item(locals, "local components", [&](const YAML::Node& c) { local(c, instances); });
    r.each_item(subs, "subtrees", [&](const YAML::Node& s) { subtree(s, instances); });
  }
};

int64_t attr_int(const Reader& r, const Component& c, const std::string& key, int64_t fallback) {
  const auto it = c.attribute_nodes.find(key);
  if (it == c.attribute_nodes.end() || it->second.IsNull()) return fallback;
  const std::string& s = c.attributes.at(key);
  if (s == "inf" || s == ".inf") return fallback;
  const double v = r.number(it->second, key + " of " + c.name);
  if (v < 0 || v != std::floor(v) || v > 9e15)
    r.fail(it->second, "expected a non-negative integer for " + key + " of " + c.name);
  return static_cast<int64_t>(v);
}

double attr_double(const Reader& r, const Component& c, const std::string& key, double fallback) {
  const auto it = c.attribute_nodes.find(key);
  if (it == c.attribute_nodes.end() || it->second.IsNull()) return fallback;
  const std::string& s = c.attributes.at(key);
  if (s == "inf" || s == ".inf") return fallback;
  const double v = r.number(it->second, key + " of " + c.name);
  if (v < 0) r.fail(it->second, "expected a non-negative number for " + key + " of " + c.name);
  return v;
}

arch::Hierarchy finish(const Reader& r, arch::Hierarchy h, std::vector<Component> comps,
                       const YAML::Node& where) {
  // The compute unit: the last non-dummy component.
  int compute = -1;
  for (int i = static_cast<int>(comps.size()) - 1; i >= 0; --i)
    if (!comps[i].dummy) {
      compute = i;
      break;
    }
  if (compute < 0)
    r.fail(where, "expected an architecture with at least one component (the compute unit last)");
  if (compute == 0)
    r.fail(where, "expected at least one storage level above the compute unit " + comps[0].name);
  for (size_t i = 0; i < comps.size(); ++i) {
    Component& c = comps[i];
    if (!c.mesh_given) {
      const int64_t mx = attr_int(r, c, "meshX", 0), my = attr_int(r, c, "meshY", 0);
      c.mesh_x = mx > 0 ? mx : (my > 0 ? c.instances / my : c.instances);
      c.mesh_y = my > 0 ? my : (c.mesh_x > 0 ? c.instances / c.mesh_x : 1);
      if (c.mesh_x * c.mesh_y != c.instances)
        r.fail(c.node, "expected meshX * meshY = instances for " + c.name + " (" +
                           std::to_string(c.mesh_x) + " * " + std::to_string(c.mesh_y) +
                           " != " + std::to_string(c.instances) + ")");
    }
    if (static_cast<int>(i) == compute) {
      h.compute.name = c.name;
      h.compute.component_class = c.component_class;
      h.compute.instances = c.instances;
      h.compute.mesh_x = c.mesh_x;
      h.compute.mesh_y = c.mesh_y;
      h.compute.datawidth_bits = attr_int(r, c, "datawidth", attr_int(r, c, "width", 0));
      h.compute.attributes = c.attributes;
      continue;
    }
    if (static_cast<int>(i) > compute) continue;  // dummies after the compute unit hold nothing
    arch::StorageLevel s;
    s.name = c.name;
    s.component_class = c.component_class;
    s.instances = c.instances;
    s.mesh_x = c.mesh_x;
    s.mesh_y = c.mesh_y;
    s.dummy = c.dummy;
    s.attributes = c.attributes;
    s.constraints = c.constraints;
    s.depth = attr_int(r, c, "depth", attr_int(r, c, "entries", 0));
    s.width_bits = attr_int(r, c, "width", attr_int(r, c, "memory_width", 0));
    s.datawidth_bits = attr_int(r, c, "datawidth", attr_int(r, c, "word_bits", 0));
    s.cluster_size = std::max<int64_t>(1, attr_int(r, c, "cluster_size", 1));
    int64_t block = 1;
    if (s.width_bits > 0 && s.datawidth_bits > 0)
      block = std::max<int64_t>(1, s.width_bits / s.datawidth_bits / s.cluster_size);
    s.block_size = attr_int(r, c, "block_size", block);
    if (s.block_size < 1) s.block_size = 1;
    s.read_bandwidth = attr_double(r, c, "read_bandwidth", 0);
    s.write_bandwidth = attr_double(r, c, "write_bandwidth", 0);
    s.shared_bandwidth = attr_double(r, c, "shared_bandwidth", 0);
    s.multiple_buffering = attr_double(r, c, "multiple_buffering", 1);
    if (c.dummy) s.depth = 0;
    if (h.find(s.name) >= 0) r.fail(c.node, "duplicate storage level name '" + s.name + "'");
    h.storage.push_back(s);
  }
  return h;
}

// architecture_constraints: {targets: [{target, type, factors, permutation, keep, bypass}]}.
void apply_constraints(const Reader& r, const YAML::Node& n, arch::Hierarchy& h) {
  r.each(n, "architecture_constraints (targets)",
         [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
           if (k != "targets")
             r.fail(kn, "unknown key '" + k + "' in architecture_constraints: expected targets");
           r.each_item(v, "constraint targets", [&](const YAML::Node& t) {
             std::string target, type;
             YAML::Node factors, perm, keep, bypass, split;
             r.each(t, "a constraint (target, type, factors, permutation, keep, bypass)",
                    [&](const std::string& tk, const YAML::Node&, const YAML::Node& tv) {
                      if (tk == "target")
                        target = r.scalar(tv, "target");
                      else if (tk == "type")
                        type = r.scalar(tv, "type");
                      else if (tk == "factors")
                        factors = tv;
                      else if (tk == "permutation")
                        perm = tv;
                      else if (tk == "keep")
                        keep = tv;
                      else if (tk == "bypass")
                        bypass = tv;
                      else if (tk == "split")
                        split = tv;
                    });
             const int i = h.find(target);
             if (i < 0)
               r.fail(t, "expected a constraint target naming a storage level, found " +
                             quote_input(target, 40));
             auto& c = h.storage[i].constraints;
             if (type == "temporal" || type == "spatial") {
               const bool tmp = type == "temporal";
               if (given(factors))
                 (tmp ? c.temporal_factors : c.spatial_factors) = factors_text(r, factors);
               if (given(perm))
                 (tmp ? c.temporal_permutation : c.spatial_permutation) = permutation_text(r, perm);
               if (given(split) && !tmp)
                 c.spatial_split = static_cast<int>(r.integer(split, "split"));
             } else if (type == "bypass" || type == "dataspace" || type == "datatype") {
               if (given(keep)) c.keep = r.names(keep, "keep");
               if (given(bypass)) c.bypass = r.names(bypass, "bypass");
             } else if (type != "utilization" && type != "max_overbooked_proportion") {
               r.fail(t, "expected a constraint type temporal, spatial or dataspace, found " +
                             quote_input(type, 30));
             }
           });
         });
}

}  // namespace

arch::Hierarchy parse_architecture(const Reader& r, const YAML::Node& node,
                                   const YAML::Node& constraints) {
  YAML::Node nodes, subtree;
  r.each(
      node, "the architecture (version, nodes or subtree)",
      [&](const std::string& k, const YAML::Node& kn, const YAML::Node& v) {
        if (k == "nodes")
          nodes = v;
        else if (k == "subtree")
          subtree = v;
        else if (k != "version")
          r.fail(
              kn,
              "unknown key '" + k +
                  "' in architecture: expected version, nodes (v0.4 tags) or subtree (flattened)");
      });
  arch::Hierarchy h;
  if (given(nodes) && given(subtree))
    r.fail(node, "expected either nodes or subtree in architecture, not both");
  if (given(nodes)) {
    TagWalk w{r, {}, {}};
    w.nodes(nodes);
    h = finish(r, w.h, w.out, node);
  } else if (given(subtree)) {
    FlatWalk w{r, {}, {}};
    r.each_item(subtree, "subtrees", [&](const YAML::Node& s) { w.subtree(s, 1); });
    h = finish(r, w.h, w.out, node);
  } else {
    r.fail(node, "expected an architecture with nodes (v0.4 tags) or subtree (flattened form)");
  }
  if (given(constraints)) apply_constraints(r, constraints, h);
  return h;
}

}  // namespace sparsemap::io::timeloop_detail
