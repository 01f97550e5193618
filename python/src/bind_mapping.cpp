// Mappings from Python: DFSL text in and out, the built-in dataflow templates, and GAMMA's map
// space (genome <-> mapping).
#include <pybind11/stl.h>

#include <cmath>
#include <random>

#include "core_internal.h"
#include "sparsemap/cost/dataflows.h"
#include "sparsemap/error.h"
#include "sparsemap/io/dfsl.h"

namespace sparsemap::python {

using dse::mapper::MapSpace;
using mapping::Mapping;
using workload::Dim;
using workload::Layer;

namespace {

void warn_all(const std::vector<InputWarning>& warnings) {
  for (const auto& w : warnings)
    if (PyErr_WarnEx(PyExc_UserWarning, w.str().c_str(), 1) != 0) throw py::error_already_set();
}

// A Dataflow block's directives read for `layer`: the text is parsed inside a one-layer DFSL
// network written for the layer (so Sz(), constants and the reader's clamping act as in a
// file); errors are reported at "<mapping>:line:column" of `text` itself. Layers without a
// DFSL type (NonGEMM, BATCHED_GEMM) are refused as io::write_dfsl refuses them.
Mapping mapping_from_dfsl(const std::string& text, const Layer& layer) {
  check_layer(layer);
  io::DfslNetwork net;
  net.name = "python";
  io::DfslLayer dl;
  dl.layer = layer;
  dl.layer.name = "L";
  net.layers.push_back(dl);
  std::string head = io::write_dfsl(net);  // "...Layer L {\n ... }\n}\n"
  head.resize(head.size() - 4);
  head += "\nDataflow {\n";
  int head_lines = 0;
  for (char c : head) head_lines += c == '\n';
  try {
    io::DfslNetwork parsed = io::parse_dfsl(head + text + "\n}\n}\n}\n", "<mapping>");
    for (auto& w : parsed.warnings)
      w.where.line = w.where.line > head_lines ? w.where.line - head_lines : 0;
    warn_all(parsed.warnings);
    return parsed.layers.at(0).mapping;
  } catch (const InputError& e) {
    SourceLocation at = e.where();
    at.line = at.line > head_lines ? at.line - head_lines : 0;
    if (at.line == 0) at.column = 0;
    throw InputError(at, e.message());
  }
}

std::string mapping_to_dfsl(const Mapping& m) {
  std::string s;
  for (const auto& d : m.directives) s += mapping::to_dfsl(d) + "\n";
  return s;
}

py::dict network_dict(const io::DfslNetwork& net) {
  warn_all(net.warnings);
  std::vector<Layer> layers;
  std::vector<Mapping> mappings;
  std::vector<bool> clamped;
  for (const auto& l : net.layers) {
    layers.push_back(l.layer);
    mappings.push_back(l.mapping);
    clamped.push_back(l.clamped);
  }
  py::dict d;
  d["name"] = net.name;
  d["layers"] = layers;
  d["mappings"] = mappings;
  d["clamped"] = clamped;
  return d;
}

std::string write_network(const std::vector<Layer>& layers, const std::vector<Mapping>& mappings,
                          const std::string& name) {
  if (mappings.size() != layers.size() && !mappings.empty())
    throw InputError({"<argument mappings>", 0, 0},
                     "expected one mapping per layer (" + std::to_string(layers.size()) +
                         "), found " + std::to_string(mappings.size()));
  io::DfslNetwork net;
  net.name = name;
  for (size_t i = 0; i < layers.size(); ++i) {
    io::DfslLayer dl;
    dl.layer = layers[i];
    if (!mappings.empty()) dl.mapping = mappings[i];
    net.layers.push_back(dl);
  }
  return io::write_dfsl(net);
}

// Pickling: one (kind, dim, primed, size, size_of, offset, offset_of, logical) tuple per
// directive; size_of/offset_of are the Sz() dimension's index, or -1 for a literal.
py::tuple mapping_state(const Mapping& m) {
  py::list out;
  auto of = [](const mapping::SizeExpr& e) { return e.size_of ? workload::index(*e.size_of) : -1; };
  for (const auto& d : m.directives)
    out.append(py::make_tuple(static_cast<int>(d.kind), workload::index(d.dim), d.primed,
                              d.size.literal, of(d.size), d.offset.literal, of(d.offset),
                              d.logical));
  return py::make_tuple(out);
}

Mapping mapping_from_state(const py::tuple& t) {
  Mapping m;
  auto expr = [](int64_t lit, int of) {
    if (of < -1 || of >= workload::kNumDims) throw py::value_error("Mapping: bad pickled state");
    return of < 0 ? mapping::SizeExpr::lit(lit) : mapping::SizeExpr::sz(workload::kAllDims[of]);
  };
  for (const auto& h : t[0].cast<py::list>()) {
    const auto d = h.cast<std::tuple<int, int, bool, int64_t, int, int64_t, int, bool>>();
    const int kind = std::get<0>(d), dim = std::get<1>(d);
    if (kind < 0 || kind > 2 || dim < 0 || dim >= workload::kNumDims)
      throw py::value_error("Mapping: bad pickled state");
    mapping::Directive x;
    x.kind = static_cast<mapping::DirectiveKind>(kind);
    x.dim = workload::kAllDims[dim];
    x.primed = std::get<2>(d);
    x.size = expr(std::get<3>(d), std::get<4>(d));
    x.offset = expr(std::get<5>(d), std::get<6>(d));
    x.logical = std::get<7>(d);
    m.directives.push_back(x);
  }
  return m;
}

void bind_mapping_class(py::module_& m) {
  py::class_<Mapping>(
      m, "Mapping", "Data-centric directives (SpatialMap, TemporalMap, Cluster), outermost first.")
      .def(py::init<>())
      .def_static("from_dfsl", &mapping_from_dfsl, py::arg("text"), py::arg("layer"),
                  "Directives in MAESTRO syntax (a Dataflow block's body), read for `layer`.")
      .def("to_dfsl", &mapping_to_dfsl, "The directives in MAESTRO syntax, one per line")
      .def_property_readonly("directives",
                             [](const Mapping& x) {
                               std::vector<std::string> out;
                               for (const auto& d : x.directives)
                                 out.push_back(mapping::to_dfsl(d));
                               return out;
                             })
      .def_property_readonly(
          "levels", [](const Mapping& x) { return x.levels().size(); },
          "Cluster levels (1 + the number of Cluster directives)")
      .def("cluster_sizes", &Mapping::cluster_sizes, py::arg("layer"))
      .def("__len__", [](const Mapping& x) { return x.directives.size(); })
      .def(
          "__eq__", [](const Mapping& a, const Mapping& b) { return a == b; }, py::is_operator())
      .def(py::pickle(&mapping_state, &mapping_from_state))
      .def("__copy__", [](const Mapping& x) { return x; })
      .def("__deepcopy__", [](const Mapping& x, py::dict) { return x; })
      .def("__repr__", [](const Mapping& x) {
        std::string s = "Mapping(";
        for (size_t i = 0; i < x.directives.size(); ++i)
          s += (i ? " " : "") + mapping::to_dfsl(x.directives[i]);
        return s + ")";
      });
}

}  // namespace

void check_genes(double* g, size_t dims, const std::string& label, long row) {
  const std::string where = row < 0 ? "" : " of row " + std::to_string(row);
  for (size_t i = 0; i < dims; ++i) {
    if (std::isnan(g[i]) || g[i] < 0.0 || g[i] > 1.0)
      throw InputError({label, 0, 0},
                       "gene " + std::to_string(i) + where + " is " +
                           (std::isnan(g[i]) ? std::string("nan") : std::to_string(g[i])) +
                           ": expected a value in [0, 1]");
    if (g[i] == 1.0) g[i] = std::nextafter(1.0, 0.0);
  }
}

std::vector<double> genome_from(const py::handle& obj, size_t dims, const std::string& label) {
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(obj);
  if (!a || a.ndim() != 1)
    throw InputError({label, 0, 0},
                     "expected a 1-D sequence of " + std::to_string(dims) + " genes in [0, 1]");
  if (static_cast<size_t>(a.size()) != dims)
    throw InputError({label, 0, 0}, "expected a genome of " + std::to_string(dims) +
                                        " genes, found " + std::to_string(a.size()));
  std::vector<double> g(a.data(), a.data() + dims);
  check_genes(g.data(), dims, label, -1);
  return g;
}

dse::mapper::MapSpaceOptions space_options(int max_levels, bool divisors_only,
                                           const std::string& constraint, bool fixed_order,
                                           bool maestro_compatible) {
  dse::mapper::MapSpaceOptions o;
  o.max_levels = max_levels;
  o.divisors_only = divisors_only;
  o.constraint = dse::mapper::parse_constraint(constraint);
  o.fixed_order = fixed_order;
  o.maestro_compatible = maestro_compatible;
  return o;
}

namespace {

// The slot of GAMMA's map space that holds directive `d` (map_space.h's table), or -1.
int slot_of(const MapSpace& sp, const mapping::Directive& d) {
  const workload::OpKind k = sp.layer().kind;
  using workload::OpKind;
  if (k == OpKind::Gemm || k == OpKind::BatchedGemm) {
    const Dim dims[] = {Dim::N, Dim::K, Dim::M, Dim::G};
    for (int s = 0; s < 4; ++s)
      if (d.dim == dims[s] && !d.primed && sp.extent(s) > 0) return s;
    return -1;
  }
  if (k == OpKind::Fc) {
    const Dim dims[] = {Dim::K, Dim::C, Dim::N};
    for (int s = 0; s < 3; ++s)
      if (d.dim == dims[s]) return s;
    return -1;
  }
  const Dim dims[] = {Dim::K, Dim::C, Dim::Y, Dim::X, Dim::R, Dim::S};
  for (int s = 0; s < 6; ++s)
    if (d.dim == dims[s] && d.primed == (s == 2 || s == 3) && !(k == OpKind::DsConv && s == 0))
      return s;
  return -1;
}

// The genome of a mapping of this map space (one that decode() can produce): read its levels
// as Decoded, encode, and check that the genome decodes back to the same mapping.
std::vector<double> genome_of(const MapSpace& sp, const Mapping& m) {
  const auto levels = m.levels();
  const auto clusters = m.cluster_sizes(sp.layer());
  MapSpace::Decoded d;
  d.levels = static_cast<int>(levels.size());
  bool ok = d.levels >= 1 && d.levels <= sp.options().max_levels;
  for (int l = 0; ok && l < d.levels; ++l) {
    std::array<bool, dse::mapper::kSlots> seen{};
    int rank = 0;
    for (int s = 0; s < dse::mapper::kSlots; ++s)
      d.tile[l][s] = l == 0 ? std::max<int64_t>(1, sp.extent(s)) : d.tile[l - 1][s];
    for (const auto& dir : levels[l]) {
      const int s = slot_of(sp, dir);
      if (s < 0 || seen[s]) continue;  // batch-like dimensions walked outermost
      seen[s] = true;
      d.order[l][rank++] = s;
      d.tile[l][s] = dir.size.resolve(sp.layer());
      if (dir.kind == mapping::DirectiveKind::Spatial) d.parallel[l] = s;
    }
    for (int s = 0; s < dse::mapper::kSlots; ++s)
      if (!seen[s]) {
        d.order[l][rank++] = s;
        if (sp.extent(s) <= 1) d.tile[l][s] = 1;
      }
    d.cluster[l] = l == 0 ? 0 : clusters[static_cast<size_t>(l - 1)];
  }
  std::vector<double> g;
  if (ok) g = sp.encode(d);
  if (!ok || sp.decode(g) != m)
    throw InputError({"<argument mapping>", 0, 0},
                     "the mapping is not in this map space (no genome decodes to it): expected "
                     "a mapping that MapSpace.decode produced for this layer, arch and options");
  return g;
}

py::array_t<double> to_array(const std::vector<double>& g) {
  return py::array_t<double>(static_cast<py::ssize_t>(g.size()), g.data());
}

void bind_map_space(py::module_& m) {
  py::class_<MapSpace>(m, "MapSpace",
                       "GAMMA's map space of one layer on one accelerator: a genome of `dims` "
                       "genes in [0, 1] decodes to a legal mapping (dse/mapper/map_space.h).")
      .def(py::init([](const Layer& layer, const arch::Arch& hw, int max_levels, bool divisors_only,
                       const std::string& constraint, bool fixed_order, bool maestro_compatible) {
             check_layer(layer);
             check_arch(hw);
             return MapSpace(layer, hw,
                             space_options(max_levels, divisors_only, constraint, fixed_order,
                                           maestro_compatible));
           }),
           py::arg("layer"), py::arg("arch"), py::arg("max_levels") = 2,
           py::arg("divisors_only") = false, py::arg("constraint") = "none",
           py::arg("fixed_order") = false, py::arg("maestro_compatible") = false)
      .def_property_readonly("dims", &MapSpace::dims, "Genes per genome")
      .def_property_readonly("layer", &MapSpace::layer)
      .def_property_readonly("arch", &MapSpace::arch)
      .def(
          "decode",
          [](const MapSpace& sp, const py::handle& g) {
            return sp.decode(genome_from(g, sp.dims(), "<argument genome>"));
          },
          py::arg("genome"), "The mapping a genome decodes to (after repair)")
      .def(
          "encode", [](const MapSpace& sp, const Mapping& x) { return to_array(genome_of(sp, x)); },
          py::arg("mapping"), "A genome that decodes to `mapping` (ValueError if none does)")
      .def(
          "sample",
          [](const MapSpace& sp, size_t n, uint64_t seed) {
            std::mt19937_64 rng(seed);
            std::uniform_real_distribution<double> u(0.0, 1.0);
            py::array_t<double> out(
                {static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(sp.dims())});
            double* p = out.mutable_data();
            for (size_t i = 0; i < n * sp.dims(); ++i) p[i] = u(rng);
            return out;
          },
          py::arg("n"), py::arg("seed") = 1, "n uniform random genomes, shape (n, dims)");
}

}  // namespace

void bind_mapping(py::module_& m) {
  bind_mapping_class(m);
  bind_map_space(m);
  m.def(
      "parse_dfsl",
      [](const std::string& text, const std::string& file) {
        return network_dict(io::parse_dfsl(text, file));
      },
      py::arg("text"), py::arg("file") = "<dfsl>",
      "A MAESTRO DFSL network: {'name', 'layers', 'mappings', 'clamped'}; warnings as "
      "UserWarning.");
  m.def(
      "read_dfsl", [](const std::string& path) { return network_dict(io::read_dfsl(path)); },
      py::arg("path"), "parse_dfsl of a .m file");
  m.def("write_dfsl", &write_network, py::arg("layers"),
        py::arg("mappings") = std::vector<Mapping>{}, py::arg("name") = "network",
        "DFSL text that read_dfsl reads back");
  m.def(
      "dataflow",
      [](const std::string& name, const Layer& layer, const arch::Arch& hw) {
        check_layer(layer);
        check_arch(hw);
        return cost::dataflow_mapping(name, layer, hw.num_pes);
      },
      py::arg("name"), py::arg("layer"), py::arg("arch"),
      "The mapping of `layer` under a built-in template (kcp_ws, xp_ws, yxp_os)");
  m.def("dataflow_templates", [] {
    py::dict d;
    for (const auto& t : cost::dataflow_templates()) d[py::str(t.name)] = t.description;
    return d;
  });
}

}  // namespace sparsemap::python
