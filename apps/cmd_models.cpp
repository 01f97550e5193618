// `sparsemap models`: the zoo's registry with layer counts, MACs and parameters.
#include <iostream>

#include "commands.h"
#include "option_table.h"

namespace sparsemap::cli {

void register_models(CLI::App& app) {
  auto* cmd = app.add_subcommand("models", "List the built-in model zoo (batch 1, default sizes)");
  struct ModelsArgs {
    std::string json;
  };
  static const options::Table<ModelsArgs> flags = {
      {"--json", options::kJsonHelp, SM_FIELD(ModelsArgs, json)}};
  auto args = std::make_shared<ModelsArgs>();
  add_options(cmd, flags, *args);
  cmd->callback([args] {
    Table table({"model", "layers", "gemm_layers", "macs", "params", "description"});
    const nlohmann::json zoo = workload::zoo_json();
    for (const auto& m : zoo["models"])
      table.add({m["name"], std::to_string(m["layers"].get<size_t>()),
                 std::to_string(m["gemm_layers"].get<size_t>()),
                 with_commas(m["macs"].get<int64_t>()), with_commas(m["params"].get<int64_t>()),
                 m["description"]});
    if (args->json.empty() || args->json != "-") std::cout << table.str();
    if (!args->json.empty()) write_json(zoo, args->json);
  });
}

}  // namespace sparsemap::cli
