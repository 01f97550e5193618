// `sparsemap models`: the zoo's registry with layer counts, MACs and parameters.
#include <iostream>

#include "commands.h"

namespace sparsemap::cli {

void register_models(CLI::App& app) {
  auto* cmd = app.add_subcommand("models", "List the built-in model zoo (batch 1, default sizes)");
  auto json_dest = std::make_shared<std::string>();
  cmd->add_option("--json", *json_dest, "Write JSON to FILE, or - for stdout");
  cmd->callback([json_dest] {
    nlohmann::json list = nlohmann::json::array();
    Table table({"model", "layers", "gemm_layers", "macs", "params", "description"});
    for (const auto& entry : workload::zoo_entries()) {
      const workload::Model m = workload::zoo_model(entry.name);
      list.push_back({{"name", entry.name},
                      {"layers", m.layers.size()},
                      {"gemm_layers", m.count_gemm_class()},
                      {"macs", m.total_macs()},
                      {"params", m.total_params()},
                      {"description", entry.description}});
      table.add({entry.name, std::to_string(m.layers.size()), std::to_string(m.count_gemm_class()),
                 with_commas(m.total_macs()), with_commas(m.total_params()), entry.description});
    }
    if (json_dest->empty() || *json_dest != "-") std::cout << table.str();
    if (!json_dest->empty()) write_json({{"models", list}}, *json_dest);
  });
}

}  // namespace sparsemap::cli
