// Layers and models as text and JSON (describe.h).
#include "sparsemap/workload/describe.h"

#include <algorithm>

#include "sparsemap/workload/zoo.h"

namespace sparsemap::workload {

namespace {

// Dimensions that matter for a layer kind, in display order.
std::vector<Dim> relevant_dims(const Layer& l) {
  switch (l.kind) {
    case OpKind::Conv:
    case OpKind::TrConv:
      return {Dim::N, Dim::K, Dim::C, Dim::Y, Dim::X, Dim::R, Dim::S};
    case OpKind::NgConv:
      return {Dim::N, Dim::G, Dim::K, Dim::C, Dim::Y, Dim::X, Dim::R, Dim::S};
    case OpKind::DsConv:
    case OpKind::Pool:
      return {Dim::N, Dim::C, Dim::Y, Dim::X, Dim::R, Dim::S};
    case OpKind::Fc:
      return {Dim::N, Dim::K, Dim::C};
    case OpKind::Gemm:
      return {Dim::M, Dim::N, Dim::K};
    case OpKind::BatchedGemm:
      return {Dim::G, Dim::M, Dim::N, Dim::K};
    case OpKind::Embedding:
      return {Dim::N, Dim::C, Dim::K};
    default:
      return {};
  }
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

// " stride=2 pad=3" (or "2x1" where y and x differ); "" for stride 1 and no padding.
std::string stride_pad_text(const Layer& l) {
  const auto pair = [](const Window2& w) {
    return std::to_string(w.y) + (w.x != w.y ? "x" + std::to_string(w.x) : "");
  };
  std::string s;
  if (l.stride != Window2{1, 1}) s += " stride=" + pair(l.stride);
  if (l.pad != Window2{0, 0}) s += " pad=" + pair(l.pad);
  return s;
}

}  // namespace

std::string layer_dims_text(const Layer& l) {
  std::string s;
  for (Dim d : relevant_dims(l)) {
    if (d == Dim::N && l.dim(d) == 1 && l.kind != OpKind::Gemm) continue;
    s += (s.empty() ? "" : " ") + std::string(1, dim_letter(d)) + "=" + std::to_string(l.dim(d));
  }
  s += stride_pad_text(l);
  if (!l.shape.empty()) s += (s.empty() ? "" : " ") + shape_text(l.shape);
  if (l.kind == OpKind::Elementwise && l.operands > 1) s += " x" + std::to_string(l.operands);
  return s;
}

std::string layer_dims_short(const Layer& l) {
  std::string s;
  const bool conv = l.kind == OpKind::Conv || l.kind == OpKind::TrConv ||
                    l.kind == OpKind::NgConv || l.kind == OpKind::DsConv || l.kind == OpKind::Pool;
  if (!conv) {
    s = layer_dims_text(l);
  } else {
    const auto d = [&](Dim x) { return std::to_string(l.dim(x)); };
    if (l.dim(Dim::N) != 1) s += "N" + d(Dim::N) + " ";
    if (l.kind == OpKind::NgConv) s += "G" + d(Dim::G) + " ";
    if (l.kind != OpKind::DsConv && l.kind != OpKind::Pool) s += "K" + d(Dim::K) + " ";
    s += "C" + d(Dim::C) + " " + d(Dim::Y) + "x" + d(Dim::X) + " " + d(Dim::R) + "x" + d(Dim::S);
    s += stride_pad_text(l);
  }
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"stride=", "s"}, {"pad=", "p"}})
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
  s.erase(std::remove(s.begin(), s.end(), '='), s.end());
  return s;
}

nlohmann::json layer_json(const Layer& l) {
  nlohmann::json dims = nlohmann::json::object();
  for (Dim d : relevant_dims(l)) dims[std::string(1, dim_letter(d))] = l.dim(d);
  nlohmann::json j = {{"name", l.name},
                      {"kind", std::string(op_kind_name(l.kind))},
                      {"op", l.op},
                      {"dims", dims},
                      {"macs", l.macs()},
                      {"params", l.params()},
                      {"input_elems", l.input_elems()},
                      {"weight_elems", l.weight_elems()},
                      {"output_elems", l.output_elems()}};
  if (!relevant_dims(l).empty() && l.kind != OpKind::Fc && l.kind != OpKind::Gemm &&
      l.kind != OpKind::BatchedGemm && l.kind != OpKind::Embedding) {
    j["stride"] = {l.stride.y, l.stride.x};
    j["pad"] = {l.pad.y, l.pad.x};
    j["out_y"] = l.out_y();
    j["out_x"] = l.out_x();
  }
  if (!l.shape.empty()) j["shape"] = l.shape;
  return j;
}

nlohmann::json model_json(const Model& m) {
  nlohmann::json layers = nlohmann::json::array();
  for (const Layer& l : m.layers) layers.push_back(layer_json(l));
  return {{"model", m.name},
          {"layers", layers},
          {"total", {{"macs", m.total_macs()}, {"params", m.total_params()}}}};
}

nlohmann::json zoo_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& entry : zoo_entries()) {
    const Model m = zoo_model(entry.name);
    list.push_back({{"name", entry.name},
                    {"layers", m.layers.size()},
                    {"gemm_layers", m.count_gemm_class()},
                    {"macs", m.total_macs()},
                    {"params", m.total_params()},
                    {"description", entry.description}});
  }
  return {{"models", list}};
}

}  // namespace sparsemap::workload
