// `sparsemap show MODEL|FILE`: the per-layer table of a model (zoo name, .m, .csv or .onnx).
#include <iostream>

#include "commands.h"
#include "option_table.h"

namespace sparsemap::cli {

namespace {

struct ShowArgs {
  std::string model;
  workload::ZooOptions zoo;
  std::string json;
};

const options::Table<ShowArgs>& show_options() {
  static const options::Table<ShowArgs> table = {
      options::Option<ShowArgs>{"model",
                                "Zoo model name, or a .m (MAESTRO), .csv (GAMMA) or .onnx file",
                                SM_FIELD(ShowArgs, model)}
          .required(),
      // The zoo validates the sizes (InputError naming the limit); --seq and --image positive.
      SM_ZOO_OPTIONS(ShowArgs, zoo),
      {"--json", options::kJsonHelp, SM_FIELD(ShowArgs, json)},
  };
  return table;
}

}  // namespace

void register_show(CLI::App& app) {
  auto* cmd = app.add_subcommand("show", "Show a model's layers: name, kind, dimensions, MACs");
  auto args = std::make_shared<ShowArgs>();
  add_options(cmd, show_options(), *args);
  cmd->callback([args] {
    const workload::Model m = load_model(args->model, args->zoo);
    Table table({"#", "layer", "kind", "dimensions", "macs"});
    for (size_t i = 0; i < m.layers.size(); ++i) {
      const auto& l = m.layers[i];
      std::string kind(workload::op_kind_name(l.kind));
      if (!l.op.empty()) kind += ":" + l.op;
      table.add({std::to_string(i), l.name, kind, layer_dims_text(l), with_commas(l.macs())});
    }
    if (args->json != "-") {
      std::cout << m.name << ": " << m.layers.size() << " layers, " << with_commas(m.total_macs())
                << " MACs, " << with_commas(m.total_params()) << " parameters\n\n"
                << table.str();
    }
    if (!args->json.empty()) write_json(workload::model_json(m), args->json);
  });
}

}  // namespace sparsemap::cli
