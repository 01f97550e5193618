// `sparsemap models`: the zoo's registry with layer counts, MACs and parameters.
#include <iostream>

#include "commands.h"

namespace sparsemap::cli {

void register_models(CLI::App& app) {
  auto* cmd = app.add_subcommand("models", "List the built-in model zoo (batch 1, default sizes)");
  auto json_dest = std::make_shared<std::string>();
  cmd->add_option("--json", *json_dest, "Write JSON to FILE, or - for stdout");
  cmd->callback([json_dest] {
    Table table({"model", "layers", "gemm_layers", "macs", "params", "description"});
    const nlohmann::json zoo = workload::zoo_json();
    for (const auto& m : zoo["models"])
      table.add({m["name"], std::to_string(m["layers"].get<size_t>()),
                 std::to_string(m["gemm_layers"].get<size_t>()),
                 with_commas(m["macs"].get<int64_t>()), with_commas(m["params"].get<int64_t>()),
                 m["description"]});
    if (json_dest->empty() || *json_dest != "-") std::cout << table.str();
    if (!json_dest->empty()) write_json(zoo, *json_dest);
  });
}

}  // namespace sparsemap::cli
