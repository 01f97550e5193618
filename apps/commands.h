// Subcommand registration and the helpers that subcommands share (output, model loading).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/workload/model.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::cli {

void register_models(CLI::App& app);
void register_show(CLI::App& app);
void register_arch(CLI::App& app);
void register_nongemm(CLI::App& app);
void register_eval(CLI::App& app);
void register_spmm_bench(CLI::App& app);
void register_prune_study(CLI::App& app);
// prune-train, prune-compare and prune-overhead (apps/cmd_prune_train.cpp).
void register_prune_train(CLI::App& app);
// map (mapping search) and mse (the map-space-exploration study): apps/cmd_map.cpp, cmd_mse.cpp.
void register_map(CLI::App& app);
// train (N:M recipes on vit-tiny / char-gpt) and nm-study: apps/cmd_train.cpp, cmd_nm_study.cpp.
void register_train(CLI::App& app);
void register_nm_study(CLI::App& app);
void register_mse(CLI::App& app);
// codesign (DiGamma HW-mapping co-design): apps/cmd_codesign.cpp.
void register_codesign(CLI::App& app);
void register_attention(CLI::App& app);  // apps/cmd_attention.cpp (FLAT)
void register_schedule(CLI::App& app);  // schedule (G# multi-tenant): apps/cmd_schedule.cpp
void register_hwalloc(CLI::App& app);  // hwalloc (ConfuciuX): apps/cmd_hwalloc.cpp

// Writes `j` (pretty, 2 spaces) to `dest`: "-" for stdout, else a file path.
// Throws InputError when the file cannot be written.
void write_json(const nlohmann::json& j, const std::string& dest);

// A plain text table with right-aligned numeric columns.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string str() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// v with `digits` digits after the point ("%.*f").
std::string fixed(double v, int digits);
// "a, b,,c" -> {"a", "b", "c"}: a comma-separated list, spaces and empty items dropped.
std::vector<std::string> split_list(const std::string& s);

// 4090000000 -> "4,090,000,000".
std::string with_commas(int64_t v);

// A zoo model name, or a file: .m (MAESTRO DFSL), .csv (GAMMA), .onnx. Throws InputError.
workload::Model load_model(const std::string& name_or_path, const workload::ZooOptions& opt);

// JSON of one layer: name, kind, op, dims (non-trivial ones), stride, pad, macs, params, ...
nlohmann::json layer_json(const workload::Layer& l);
// "K=64 C=3 Y=224 X=224 R=7 S=7 s2 p3": the dimensions that matter for its kind.
std::string layer_dims_text(const workload::Layer& l);

}  // namespace sparsemap::cli
