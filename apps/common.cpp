// Shared CLI helpers: JSON output, tables, model loading, layer descriptions.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/io/gamma_csv.h"
#include "sparsemap/io/onnx_import.h"

namespace sparsemap::cli {

using workload::Dim;
using workload::Layer;
using workload::OpKind;

void write_json(const nlohmann::json& j, const std::string& dest) {
  const std::string text = j.dump(2) + "\n";
  if (dest == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream out(dest, std::ios::binary);
  if (!out || !(out << text)) throw InputError({dest, 0, 0}, "cannot write the JSON file");
}

std::string shipped_data_file(const std::string& relative) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(relative, ec)) return relative;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path().parent_path() / relative;
    if (fs::exists(beside, ec)) return beside.string();
  }
  return relative;
}

void make_output_dir(const std::string& dir, const std::string& flag) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw InputError({dir, 0, 0}, flag + " names an existing file; expected a folder");
  if (!std::filesystem::create_directories(dir, ec) && ec)
    throw InputError({dir, 0, 0}, "cannot create the " + flag + " folder: " + ec.message());
}

void require_positive(CLI::App* cmd, std::initializer_list<const char*> flags) {
  const CLI::Validator positive(
      [](std::string& value) -> std::string {
        const bool ok = value.find_first_not_of("0123456789") == std::string::npos &&
                        value.find_first_not_of('0') != std::string::npos;
        return ok ? "" : "expected a positive integer (leave the flag out for the default)";
      },
      "POSITIVE");
  for (const char* f : flags) cmd->get_option(f)->check(positive);
}

std::string Table::str() const {
  std::vector<size_t> width(header_.size(), 0);
  auto widen = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], r[i].size());
  };
  widen(header_);
  for (const auto& r : rows_) widen(r);
  auto numeric = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789,.-%e+") == std::string::npos;
  };
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& r) {
    std::string text;
    for (size_t i = 0; i < r.size() && i < width.size(); ++i) {
      const std::string pad(width[i] - r[i].size(), ' ');
      text += (i ? "  " : "") + (numeric(r[i]) ? pad + r[i] : r[i] + pad);
    }
    os << text.substr(0, text.find_last_not_of(' ') + 1) << "\n";
  };
  line(header_);
  size_t total = 0;
  for (size_t w : width) total += w + 2;
  os << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
  for (const auto& r : rows_) line(r);
  return os.str();
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string with_commas(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return v < 0 ? "-" + s : s;
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

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

}  // namespace

std::string layer_dims_text(const Layer& l) {
  std::string s;
  for (Dim d : relevant_dims(l)) {
    if (d == Dim::N && l.dim(d) == 1 && l.kind != OpKind::Gemm) continue;
    s += (s.empty() ? "" : " ") + std::string(1, workload::dim_letter(d)) + "=" +
         std::to_string(l.dim(d));
  }
  if (l.stride != workload::Window2{1, 1})
    s += " stride=" + std::to_string(l.stride.y) +
         (l.stride.x != l.stride.y ? "x" + std::to_string(l.stride.x) : "");
  if (l.pad != workload::Window2{0, 0})
    s += " pad=" + std::to_string(l.pad.y) +
         (l.pad.x != l.pad.y ? "x" + std::to_string(l.pad.x) : "");
  if (!l.shape.empty()) s += (s.empty() ? "" : " ") + shape_text(l.shape);
  if (l.kind == OpKind::Elementwise && l.operands > 1) s += " x" + std::to_string(l.operands);
  return s;
}

nlohmann::json layer_json(const Layer& l) {
  nlohmann::json dims = nlohmann::json::object();
  for (Dim d : relevant_dims(l)) dims[std::string(1, workload::dim_letter(d))] = l.dim(d);
  nlohmann::json j = {{"name", l.name},
                      {"kind", std::string(workload::op_kind_name(l.kind))},
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

workload::Model load_model(const std::string& spec, const workload::ZooOptions& opt) {
  if (!workload::zoo_canonical_name(spec).empty()) return workload::zoo_model(spec, opt);
  if (ends_with(spec, ".m")) {
    const io::DfslNetwork net = io::read_dfsl(spec);
    for (const auto& w : net.warnings) std::cerr << "sparsemap: " << w.str() << "\n";
    workload::Model m;
    m.name = net.name;
    for (const auto& l : net.layers) m.layers.push_back(l.layer);
    return m;
  }
  if (ends_with(spec, ".csv")) return io::read_gamma_csv(spec);
  if (ends_with(spec, ".onnx")) return io::read_onnx(spec);
  throw InputError({spec, 0, 0},
                   "expected a model name (see `sparsemap models`) or a .m, .csv or .onnx file");
}

}  // namespace sparsemap::cli
