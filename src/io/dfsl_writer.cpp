// Writer of MAESTRO's DFSL files: the inverse of parse_dfsl for the layers DFSL can describe.
//
// Contract: for every DfslNetwork that parse_dfsl returned, parse_dfsl(write_dfsl(net)) == net.
// Constants are not written (the reader has resolved them); Sz(D) is written as Sz(D).
// Every dimension a directive maps is declared (MAESTRO rejects a map of an undeclared one),
// and DfslLayer::notes are written as `//` lines after the Layer line.
// Other layers are written as close as DFSL allows, with a `//` comment saying what changed:
// - zero padding is folded into the input (Y + 2*pad_y, X + 2*pad_x), which keeps the output
//   size and the MACs (MAESTRO has no padding);
// - a dilation other than 1 cannot be written; it is dropped (noted in a comment);
// - names are made DFSL identifiers: characters other than [A-Za-z0-9_.-] become '_', and a
//   name that does not start with a letter or '_' gets a leading '_'.
// A NonGEMM or BatchedGemm layer has no DFSL type: InputError naming the layer.
#include <string>

#include "sparsemap/io/dfsl.h"

namespace sparsemap::io {
namespace {

using workload::Dim;
using workload::index;
using workload::OpKind;

std::string identifier(const std::string& name, const std::string& fallback) {
  if (name.empty()) return fallback;
  std::string s;
  const char first = name[0];
  if (!((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z') || first == '_')) s += '_';
  for (char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    s += ok ? c : '_';
  }
  return s;
}

bool is_windowed(OpKind k) {
  return k == OpKind::Conv || k == OpKind::DsConv || k == OpKind::NgConv || k == OpKind::TrConv;
}

// Letters written for each kind, in MAESTRO's usual order; N and G only when not 1.
const char* written_dims(OpKind k) {
  switch (k) {
    case OpKind::Gemm:
      return "MNK";
    case OpKind::Fc:
      return "NKC";
    default:
      return "NGKCRSYX";
  }
}

void write_layer(std::string& s, const DfslLayer& dl, size_t position) {
  const workload::Layer& l = dl.layer;
  const OpKind k = l.kind;
  if (!(is_windowed(k) || k == OpKind::Gemm || k == OpKind::Fc))
    throw InputError({"<DFSL writer>", 0, 0},
                     "Layer '" + l.name + "' is a " + std::string(workload::op_kind_name(k)) +
                         " layer: DFSL describes only CONV, DSCONV, NGCONV, TRCONV, GEMM and FC");
  workload::DimArray dims = l.dims;
  std::string notes;
  if (is_windowed(k) && (l.pad.y != 0 || l.pad.x != 0)) {
    dims[index(Dim::Y)] += 2 * l.pad.y;
    dims[index(Dim::X)] += 2 * l.pad.x;
    notes += "\t\t// zero padding " + std::to_string(l.pad.y) + "x" + std::to_string(l.pad.x) +
             " folded into the input: Y = " + std::to_string(l.dim(Dim::Y)) + " + 2*" +
             std::to_string(l.pad.y) + ", X = " + std::to_string(l.dim(Dim::X)) + " + 2*" +
             std::to_string(l.pad.x) + "\n";
  }
  if (l.dilation != workload::Window2{1, 1})
    notes += "\t\t// dilation " + std::to_string(l.dilation.y) + "x" +
             std::to_string(l.dilation.x) + " is not expressible in DFSL and was dropped\n";

  s += "\tLayer " + identifier(l.name, "L" + std::to_string(position)) + " {\n";
  for (const std::string& n : dl.notes) s += "\t\t// " + n + "\n";
  s += notes;
  s += "\t\tType: " + std::string(workload::op_kind_name(k)) + "\n";
  if (is_windowed(k) || l.stride != workload::Window2{1, 1})
    s += "\t\tStride { X: " + std::to_string(l.stride.x) + ", Y: " + std::to_string(l.stride.y) +
         " }\n";
  std::string entries;
  const std::string listed = written_dims(k);
  auto add = [&](Dim d) {
    entries += (entries.empty() ? "" : ", ") + std::string(1, workload::dim_letter(d)) + ": " +
               std::to_string(dims[index(d)]);
  };
  bool mapped[workload::kNumDims] = {};
  for (const auto& d : dl.mapping.directives)
    if (d.kind != mapping::DirectiveKind::Cluster) mapped[index(d.dim)] = true;
  for (char c : listed) {
    const Dim d = *workload::dim_from_letter(c);
    const bool optional = is_windowed(k) && (d == Dim::N || d == Dim::G);
    if (!optional || dims[index(d)] != 1 || mapped[index(d)]) add(d);
  }
  for (Dim d : workload::kAllDims)  // anything else that is not 1 or is mapped
    if (listed.find(workload::dim_letter(d)) == std::string::npos &&
        (dims[index(d)] != 1 || mapped[index(d)]))
      add(d);
  s += "\t\tDimensions { " + entries + " }\n";
  if (!dl.mapping.empty()) {
    s += "\t\tDataflow {\n";
    for (const auto& d : dl.mapping.directives) s += "\t\t\t" + mapping::to_dfsl(d) + "\n";
    s += "\t\t}\n";
  }
  s += "\t}\n";
}

}  // namespace

std::string write_dfsl(const DfslNetwork& net) {
  std::string s = "Network " + identifier(net.name, "network") + " {\n";
  for (size_t i = 0; i < net.layers.size(); ++i) {
    if (i > 0) s += "\n";
    write_layer(s, net.layers[i], i);
  }
  s += "}\n";
  return s;
}

}  // namespace sparsemap::io
