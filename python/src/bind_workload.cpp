// Workloads from Python: Layer (dimensions by letter, MACs), Model, the zoo and model files
// (.m, .csv, .onnx: the CLI's readers and messages).
#include <pybind11/stl.h>

#include <string>

#include "bindings.h"
#include "core_internal.h"
#include "sparsemap/error.h"
#include "sparsemap/io/load_model.h"
#include "sparsemap/workload/describe.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::python {

using workload::Dim;
using workload::Layer;
using workload::Model;
using workload::OpKind;

namespace {

bool windowed(OpKind k) {
  return k == OpKind::Conv || k == OpKind::DsConv || k == OpKind::NgConv || k == OpKind::TrConv;
}

// A stride, padding or dilation from Python: one int for both axes, or (y, x).
workload::Window2 window_of(const py::handle& v) {
  if (py::isinstance<py::int_>(v)) {
    const auto n = v.cast<int64_t>();
    return {n, n};
  }
  const auto p = v.cast<std::pair<int64_t, int64_t>>();
  return {p.first, p.second};
}

OpKind kind_of(const std::string& name) {
  const auto k = workload::op_kind_from_name(name);
  if (!k) {
    std::string names;
    for (int i = 0; i <= static_cast<int>(OpKind::Embedding); ++i)
      names += (i ? ", " : "") + std::string(workload::op_kind_name(static_cast<OpKind>(i)));
    throw InputError({"<argument kind>", 0, 0},
                     "unknown layer kind " + quote_input(name) + ": expected one of " + names);
  }
  return *k;
}

Layer make_layer(const std::string& kind, const std::string& name, const py::kwargs& dims) {
  Layer l;
  l.kind = kind_of(kind);
  l.name = name;
  for (auto [key, value] : dims) {
    const auto k = key.cast<std::string>();
    if (k.size() == 1 && workload::dim_from_letter(k[0])) {
      l.dim(*workload::dim_from_letter(k[0])) = value.cast<int64_t>();
    } else if (k == "stride") {
      l.stride = window_of(value);
    } else if (k == "pad") {
      l.pad = window_of(value);
    } else if (k == "dilation") {
      l.dilation = window_of(value);
    } else if (k == "op") {
      l.op = value.cast<std::string>();
    } else if (k == "shape") {
      l.shape = value.cast<std::vector<int64_t>>();
    } else if (k == "operands") {
      l.operands = value.cast<int64_t>();
    } else if (k == "has_bias") {
      l.has_bias = value.cast<bool>();
    } else {
      throw InputError({"<layer " + name + ">", 0, 0},
                       "unknown argument " + quote_input(k) +
                           ": expected a dimension (N, G, K, C, Y, X, R, S, M), stride, pad, "
                           "dilation, op, shape, operands or has_bias");
    }
  }
  check_layer(l);
  return l;
}

py::dict layer_dims(const Layer& l) {
  py::dict d;
  for (Dim dim : workload::kAllDims)
    d[py::str(std::string(1, workload::dim_letter(dim)))] = l.dim(dim);
  return d;
}

std::string layer_repr(const Layer& l) {
  std::string s = "Layer(" + std::string(workload::op_kind_name(l.kind)) + " '" + l.name + "'";
  for (Dim d : workload::kAllDims)
    if (l.dim(d) != 1)
      s += " " + std::string(1, workload::dim_letter(d)) + "=" + std::to_string(l.dim(d));
  if (l.stride != workload::Window2{1, 1})
    s += " stride=" + std::to_string(l.stride.y) + "x" + std::to_string(l.stride.x);
  return s + " macs=" + std::to_string(l.macs()) + ")";
}

// Layer.K, Layer.C, ...: read and write one dimension (checked as check_sizes does).
void def_dim(py::class_<Layer>& c, Dim d) {
  const std::string letter(1, workload::dim_letter(d));
  c.def_property(
      letter.c_str(), [d](const Layer& l) { return l.dim(d); },
      [d](Layer& l, int64_t v) {
        Layer probe = l;
        probe.dim(d) = v;
        check_sizes(probe);
        l.dim(d) = v;
      });
}

// Layer.stride, .pad, .dilation: an int or (y, x), checked as check_sizes does.
void def_window(py::class_<Layer>& c, const char* name, workload::Window2 Layer::*field) {
  c.def_property(
      name, [field](const Layer& l) { return std::make_pair((l.*field).y, (l.*field).x); },
      [field](Layer& l, const py::object& v) {
        Layer probe = l;
        probe.*field = window_of(v);
        check_sizes(probe);
        l.*field = probe.*field;
      });
}

// Pickling (multiprocessing): every field, checked again on the way back.
py::tuple layer_state(const Layer& l) {
  return py::make_tuple(
      l.name, std::string(workload::op_kind_name(l.kind)), l.op,
      std::vector<int64_t>(l.dims.begin(), l.dims.end()),
      std::make_tuple(l.stride.y, l.stride.x, l.pad.y, l.pad.x, l.dilation.y, l.dilation.x),
      l.has_bias, l.shape, l.operands);
}

Layer layer_from_state(const py::tuple& t) {
  Layer l;
  l.name = t[0].cast<std::string>();
  l.kind = kind_of(t[1].cast<std::string>());
  l.op = t[2].cast<std::string>();
  const auto dims = t[3].cast<std::vector<int64_t>>();
  if (dims.size() != l.dims.size()) throw py::value_error("Layer: bad pickled state");
  std::copy(dims.begin(), dims.end(), l.dims.begin());
  const auto w = t[4].cast<std::array<int64_t, 6>>();
  l.stride = {w[0], w[1]};
  l.pad = {w[2], w[3]};
  l.dilation = {w[4], w[5]};
  l.has_bias = t[5].cast<bool>();
  l.shape = t[6].cast<std::vector<int64_t>>();
  l.operands = t[7].cast<int64_t>();
  check_layer(l);
  return l;
}

void bind_layer(py::module_& m) {
  py::class_<Layer> c(m, "Layer", "One DNN operator with named loop dimensions (workload::Layer).");
  c.def(py::init(&make_layer), py::arg("kind") = "CONV", py::arg("name") = "",
        "Layer(kind='CONV', name='', *, N=1, G=1, K=1, C=1, Y=1, X=1, R=1, S=1, M=1, stride=1, "
        "pad=0, dilation=1, op='', shape=[], operands=1, has_bias=False); stride, pad and dilation "
        "take an int or (y, x). Checked as the DFSL reader checks a file's layer.");
  for (Dim d : workload::kAllDims) def_dim(c, d);
  def_window(c, "stride", &Layer::stride);
  def_window(c, "pad", &Layer::pad);
  def_window(c, "dilation", &Layer::dilation);
  c.def_readwrite("name", &Layer::name)
      .def_property(
          "kind", [](const Layer& l) { return std::string(workload::op_kind_name(l.kind)); },
          [](Layer& l, const std::string& k) { l.kind = kind_of(k); })
      .def_readwrite("op", &Layer::op)
      .def_readwrite("has_bias", &Layer::has_bias)
      .def_readwrite("shape", &Layer::shape)
      .def_readwrite("operands", &Layer::operands)
      .def_property_readonly("dims", &layer_dims, "{letter: size} of all nine dimensions")
      .def_property_readonly("macs", &Layer::macs)
      .def_property_readonly("params", &Layer::params)
      .def_property_readonly("out_y", &Layer::out_y)
      .def_property_readonly("out_x", &Layer::out_x)
      .def_property_readonly("input_elems", &Layer::input_elems)
      .def_property_readonly("weight_elems", &Layer::weight_elems)
      .def_property_readonly("output_elems", &Layer::output_elems)
      .def_property_readonly("is_gemm_class",
                             [](const Layer& l) { return workload::is_gemm_class(l.kind); })
      .def("check", &check_layer,
           "Raises ValueError when a dimension, stride or window is out of range.")
      .def("copy", [](const Layer& l) { return l; })
      .def(py::pickle(&layer_state, &layer_from_state))
      .def("__copy__", [](const Layer& l) { return l; })
      .def("__deepcopy__", [](const Layer& l, py::dict) { return l; })
      .def(
          "__eq__", [](const Layer& a, const Layer& b) { return a == b; }, py::is_operator())
      .def(
          "to_dict", [](const Layer& l) { return json_object(workload::layer_json(l)); },
          "One layer of `sparsemap show --json`: name, kind, op, dims, macs, params, elements")
      .def("__repr__", &layer_repr);
}

}  // namespace

void check_sizes(const Layer& l) {
  const SourceLocation at{"<layer " + l.name + ">", 0, 0};
  int64_t product = 1;
  for (Dim d : workload::kAllDims) {
    const int64_t v = l.dim(d);
    if (v < 1)
      throw InputError(at, std::string("expected a positive ") + workload::dim_letter(d) +
                               ", found " + std::to_string(v));
    if (__builtin_mul_overflow(product, v, &product) || product > (int64_t{1} << 62))
      throw InputError(
          at, "Layer '" + l.name + "' is too large: the product of its dimensions exceeds 2^62");
  }
  const std::pair<const char*, workload::Window2> windows[] = {{"stride", l.stride},
                                                               {"dilation", l.dilation}};
  for (const auto& [what, w] : windows)
    if (w.y < 1 || w.x < 1 || w.y > (int64_t{1} << 31) || w.x > (int64_t{1} << 31))
      throw InputError(at, std::string("expected a positive ") + what + " of at most 2^31, found " +
                               std::to_string(w.y) + "x" + std::to_string(w.x));
  if (l.pad.y < 0 || l.pad.x < 0 || l.pad.y > (int64_t{1} << 31) || l.pad.x > (int64_t{1} << 31))
    throw InputError(at, "expected a padding in [0, 2^31], found " + std::to_string(l.pad.y) + "x" +
                             std::to_string(l.pad.x));
}

void check_layer(const Layer& l) {
  check_sizes(l);
  const SourceLocation at{"<layer " + l.name + ">", 0, 0};
  if (windowed(l.kind)) {
    const std::pair<Dim, Dim> pairs[] = {{Dim::R, Dim::Y}, {Dim::S, Dim::X}};
    for (auto [f, in] : pairs)
      if (l.dim(f) > l.dim(in))
        throw InputError(at, std::string("filter ") + workload::dim_letter(f) + " = " +
                                 std::to_string(l.dim(f)) + " is larger than input " +
                                 workload::dim_letter(in) + " = " + std::to_string(l.dim(in)) +
                                 " in Layer '" + l.name + "'");
  }
}

namespace {

// Reader warnings (clamped tiles, repeated dimensions) as Python warnings, not stderr lines.
void warn_all(const std::vector<InputWarning>& warnings) {
  for (const auto& w : warnings)
    if (PyErr_WarnEx(PyExc_UserWarning, w.str().c_str(), 1) != 0) throw py::error_already_set();
}

workload::ZooOptions zoo_options(int64_t batch, int64_t seq_len, int64_t image_size) {
  // The CLI refuses 0 and negative --seq/--image when given (require_positive); here 0 means
  // "the model's default", as in ZooOptions.
  if (seq_len < 0 || image_size < 0)
    throw InputError({seq_len < 0 ? "<argument seq_len>" : "<argument image_size>", 0, 0},
                     "expected a positive value (or 0 for the model's default), found " +
                         std::to_string(seq_len < 0 ? seq_len : image_size));
  workload::ZooOptions o;
  o.batch = batch;
  o.seq_len = seq_len;
  o.image_size = image_size;
  return o;
}

// io::load_model (the CLI's): a zoo name, or a .m, .csv or .onnx file; a .m file's warnings
// become Python UserWarnings.
Model load_model(const std::string& spec, int64_t batch, int64_t seq_len, int64_t image_size) {
  std::vector<InputWarning> warnings;
  Model m = io::load_model(spec, zoo_options(batch, seq_len, image_size), &warnings);
  warn_all(warnings);
  return m;
}

void bind_model(py::module_& m) {
  py::class_<Model>(m, "Model", "A named, ordered list of layers (workload::Model).")
      .def(py::init([](const std::string& name, const std::vector<Layer>& layers) {
             for (const Layer& l : layers) check_layer(l);
             Model md;
             md.name = name;
             md.layers = layers;
             return md;
           }),
           py::arg("name") = "", py::arg("layers") = std::vector<Layer>{})
      .def_readwrite("name", &Model::name)
      .def_readwrite("layers", &Model::layers, "The layers (a copy; assign a list to replace them)")
      .def_readwrite("producers", &Model::producers,
                     "Dataflow edges: for each layer, the indices of the layers whose outputs it "
                     "reads ([] = the model input); empty when the model has none (a .m or .csv "
                     "file, or a model built from a layer list)")
      .def(py::pickle(
          [](const Model& md) { return py::make_tuple(md.name, md.layers, md.producers); },
          [](const py::tuple& t) {
            Model md;
            md.name = t[0].cast<std::string>();
            md.layers = t[1].cast<std::vector<Layer>>();
            if (t.size() > 2) md.producers = t[2].cast<std::vector<std::vector<int>>>();
            return md;
          }))
      .def_property_readonly("total_macs", &Model::total_macs)
      .def_property_readonly("total_params", &Model::total_params)
      .def_property_readonly(
          "gemm_layers",
          [](const Model& md) {
            std::vector<Layer> out;
            for (const Layer& l : md.layers)
              if (workload::is_gemm_class(l.kind)) out.push_back(l);
            return out;
          },
          "The GEMM-class layers (those with MACs), in order")
      .def(
          "to_dict", [](const Model& md) { return json_object(workload::model_json(md)); },
          "The JSON of `sparsemap show MODEL --json` as a dict")
      .def("__len__", [](const Model& md) { return md.layers.size(); })
      .def("__getitem__",
           [](const Model& md, long i) {
             const long n = static_cast<long>(md.layers.size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("layer index out of range");
             return md.layers[static_cast<size_t>(i)];
           })
      .def(
          "__iter__",
          [](const Model& md) { return py::make_iterator(md.layers.begin(), md.layers.end()); },
          py::keep_alive<0, 1>())
      .def(
          "__eq__", [](const Model& a, const Model& b) { return a == b; }, py::is_operator())
      .def("__repr__", [](const Model& md) {
        return "Model('" + md.name + "', " + std::to_string(md.layers.size()) + " layers, " +
               std::to_string(md.total_macs()) + " MACs)";
      });
}

}  // namespace

void bind_workload(py::module_& m) {
  bind_layer(m);
  bind_model(m);
  m.def(
      "zoo",
      [](const std::string& name, int64_t batch, int64_t seq_len, int64_t image_size) {
        return workload::zoo_model(name, zoo_options(batch, seq_len, image_size));
      },
      py::arg("name"), py::arg("batch") = 1, py::arg("seq_len") = 0, py::arg("image_size") = 0,
      "A zoo model by name (see zoo_models()); seq_len/image_size 0: the model's default.");
  m.def(
      "zoo_models",
      [] {
        std::vector<std::string> names;
        for (const auto& e : workload::zoo_entries()) names.push_back(e.name);
        return names;
      },
      "Canonical names of the zoo's models, in the CLI's order.");
  m.def(
      "zoo_descriptions",
      [] {
        py::dict d;
        for (const auto& e : workload::zoo_entries()) d[py::str(e.name)] = e.description;
        return d;
      },
      "{name: one-line description with the architecture's source}");
  m.def(
      "models", [] { return json_object(workload::zoo_json()["models"]); },
      "The zoo's models at their default sizes (name, layers, gemm_layers, macs, params, "
      "description): the list of `sparsemap models --json`.");
  m.def("load_model", &load_model, py::arg("path"), py::arg("batch") = 1, py::arg("seq_len") = 0,
        py::arg("image_size") = 0,
        "A model from a zoo name or a file: .m (MAESTRO DFSL), .csv (GAMMA), .onnx; the CLI's "
        "readers. Reader warnings become UserWarning.");
}

}  // namespace sparsemap::python
