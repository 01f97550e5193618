// `sparsemap eval`: the cost model on every layer of a MAESTRO mapping file, or on a model under
// built-in dataflow templates; a per-layer table and JSON. `eval --timeloop FILES` is
// `sparsemap timeloop FILES` (run_timeloop, apps/cmd_timeloop.cpp): the loop-nest model on
// Timeloop's inputs, the same summary and JSON.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/dfsl.h"
#include "sparsemap/io/maestro_export.h"

namespace sparsemap::cli {

namespace {

struct EvalArgs {
  std::string hw;
  std::string mapping;
  std::string model;
  std::string dataflow;
  workload::ZooOptions zoo;
  bool enforce_buffers = false;
  std::string json;
  std::string emit_m;
  std::string density, structure, sparse_mode = "gate";
  std::vector<std::string> timeloop;  // Timeloop/Accelergy files (instead of everything above)
};

struct Item {
  io::DfslLayer dl;
  std::string note;  // e.g. "mapping of the layer before (no Dataflow block)"
};

nlohmann::json cost_json(const std::string& name, const cost::Cost& c, const Item& it) {
  nlohmann::json j = {{"name", name},
                      {"status", std::string(cost::status_name(c.status))},
                      {"reason", c.reason},
                      {"runtime_cycles", c.runtime_cycles},
                      {"energy_nj", c.energy_nj},
                      {"l1_bytes", c.l1_bytes},
                      {"l2_bytes", c.l2_bytes},
                      {"macs", c.macs},
                      {"pes_used", c.pes_used},
                      {"noc_words_per_cycle", c.noc_words_per_cycle},
                      {"offchip_words_per_cycle", c.offchip_words_per_cycle}};
  j["mapped_macs"] = c.mapped_macs;
  j["effectual_macs"] = c.effectual_macs;
  j["compute_cycles"] = c.compute_cycles;
  j["avg_pes_utilized"] = c.avg_pes_utilized;
  j["area_mm2"] = c.area_mm2;
  j["power_mw"] = c.power_mw;
  j["loop_edges"] =
      it.dl.mapping.empty() ? false : cost::has_loop_edges(it.dl.layer, it.dl.mapping);
  j["clamped"] = it.dl.clamped;
  if (!it.note.empty()) j["note"] = it.note;
  j["energy_breakdown_nj"] = {{"mac", c.energy.mac_nj},
                              {"l1", c.energy.l1_nj},
                              {"l2", c.energy.l2_nj},
                              {"noc", c.energy.noc_nj},
                              {"offchip", c.energy.offchip_nj}};
  auto delays = [](const cost::DelayStats& d) {
    return nlohmann::json{{"min", d.min}, {"max", d.max}, {"avg", d.avg}};
  };
  j["step_delays_cycles"] = {
      {"ingress", delays(c.ingress)}, {"egress", delays(c.egress)}, {"compute", delays(c.compute)}};
  nlohmann::json acc = nlohmann::json::object();
  for (int t = 0; t < cost::kNumTensors; ++t)
    acc[std::string(cost::tensor_name(t))] = {{"l1_reads", c.access[t].l1_reads},
                                              {"l1_writes", c.access[t].l1_writes},
                                              {"l2_reads", c.access[t].l2_reads},
                                              {"l2_writes", c.access[t].l2_writes}};
  j["access_words"] = acc;
  return j;
}

// One evaluated layer as a MAESTRO network file (name, text): see io/maestro_export.h for what
// is rewritten. Throws InputError for a mapping MAESTRO cannot express.
std::pair<std::string, std::string> maestro_file(size_t index, const std::string& prefix,
                                                 const Item& it) {
  std::string name = std::to_string(index) + "_" + it.dl.layer.name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
  if (!prefix.empty()) name = prefix + "_" + name;
  return {name + ".m", io::write_maestro_network(prefix.empty() ? "eval" : prefix,
                                                 {{it.dl.layer, it.dl.mapping}})};
}

struct Run {
  std::string dataflow;  // empty for a mapping file
  std::vector<Item> items;
  std::vector<cost::Cost> costs;
};

nlohmann::json run_json(const Run& r) {
  nlohmann::json layers = nlohmann::json::array();
  int64_t runtime = 0, macs = 0;
  double energy = 0;
  int ok = 0;
  for (size_t i = 0; i < r.items.size(); ++i) {
    const cost::Cost& c = r.costs[i];
    layers.push_back(cost_json(r.items[i].dl.layer.name, c, r.items[i]));
    macs += c.macs;
    if (!c.ok()) continue;
    ++ok;
    runtime += c.runtime_cycles;
    energy += c.energy_nj;
  }
  nlohmann::json j = {{"layers", layers},
                      {"total",
                       {{"runtime_cycles", runtime},
                        {"energy_nj", energy},
                        {"macs", macs},
                        {"layers", r.items.size()},
                        {"layers_ok", ok}}}};
  if (!r.dataflow.empty()) j["dataflow"] = r.dataflow;
  return j;
}

void print_run(const Run& r, const arch::Arch& hw) {
  Table t({"#", "layer", "status", "runtime (cycles)", "energy (nJ)", "L1 (B)", "L2 (B)", "PEs",
           "NoC w/c", "note"});
  int64_t runtime = 0;
  double energy = 0;
  for (size_t i = 0; i < r.items.size(); ++i) {
    const cost::Cost& c = r.costs[i];
    const bool ok = c.ok();
    std::string note = ok ? r.items[i].note : c.reason;
    if (ok && !c.reason.empty()) note += (note.empty() ? "" : "; ") + c.reason;
    if (ok && cost::has_loop_edges(r.items[i].dl.layer, r.items[i].dl.mapping))
      note = "edges" + std::string(note.empty() ? "" : "; ") + note;
    t.add({std::to_string(i), r.items[i].dl.layer.name, std::string(cost::status_name(c.status)),
           ok ? with_commas(c.runtime_cycles) : "-", ok ? fixed(c.energy_nj, 1) : "-",
           ok ? with_commas(c.l1_bytes) : "-", ok ? with_commas(c.l2_bytes) : "-",
           ok ? with_commas(c.pes_used) : "-", ok ? fixed(c.noc_words_per_cycle, 0) : "-", note});
    if (ok) {
      runtime += c.runtime_cycles;
      energy += c.energy_nj;
    }
  }
  std::cout << (r.dataflow.empty() ? "" : "dataflow " + r.dataflow + " ") << "on " << hw.name
            << " (" << hw.num_pes << " PEs)\n"
            << t.str() << "total: " << with_commas(runtime) << " cycles, " << fixed(energy, 1)
            << " nJ\n";
}

// Several dataflows on one model: one row per layer, runtime and energy per dataflow.
void print_comparison(const std::vector<Run>& runs, const arch::Arch& hw) {
  std::vector<std::string> header = {"#", "layer", "dims"};
  for (const Run& r : runs) {
    header.push_back(r.dataflow + " cycles");
    header.push_back(r.dataflow + " nJ");
  }
  Table t(header);
  std::vector<int64_t> rt(runs.size(), 0);
  std::vector<double> en(runs.size(), 0);
  for (size_t i = 0; i < runs[0].items.size(); ++i) {
    std::vector<std::string> row = {std::to_string(i), runs[0].items[i].dl.layer.name,
                                    layer_dims_text(runs[0].items[i].dl.layer)};
    for (size_t k = 0; k < runs.size(); ++k) {
      const cost::Cost& c = runs[k].costs[i];
      row.push_back(c.ok() ? with_commas(c.runtime_cycles)
                           : std::string(cost::status_name(c.status)));
      row.push_back(c.ok() ? fixed(c.energy_nj, 1) : "-");
      if (c.ok()) {
        rt[k] += c.runtime_cycles;
        en[k] += c.energy_nj;
      }
    }
    t.add(row);
  }
  std::vector<std::string> total = {"", "total", ""};
  for (size_t k = 0; k < runs.size(); ++k) {
    total.push_back(with_commas(rt[k]));
    total.push_back(fixed(en[k], 1));
  }
  t.add(total);
  std::cout << "on " << hw.name << " (" << hw.num_pes << " PEs), runtime and energy per dataflow\n"
            << t.str();
}

// A run where not one layer could be evaluated has no total: say why (the first layer's reason)
// and exit 2, after the table and the JSON have shown every layer.
void require_some_feasible(const std::vector<Run>& runs, const std::string& input) {
  size_t layers = 0;
  std::string why;
  for (const Run& r : runs)
    for (const cost::Cost& c : r.costs) {
      if (c.ok()) return;
      ++layers;
      if (why.empty()) why = c.reason;
    }
  if (layers == 0) return;
  throw InputError({input, 0, 0},
                   "none of the " + std::to_string(layers) +
                       " evaluations is feasible, so there is no total (first: " + why + ")");
}

void write_eval_json(const EvalArgs& a, const std::vector<Run>& runs, const arch::Arch& hw,
                     const cost::EvalOptions& opt, const std::string& prefix);

void run_eval(const EvalArgs& a) {
  if (!a.timeloop.empty()) return run_timeloop(a.timeloop, a.json, "");
  if (a.hw.empty()) throw CLI::RequiredError("--hw");  // as when --hw was a required option
  if (a.mapping.empty() == a.model.empty())
    throw InputError({"<flags>", 0, 0},
                     "expected either --mapping FILE.m or --model NAME --dataflow T");
  if (!a.model.empty() && a.dataflow.empty())
    throw InputError({"<flag --dataflow>", 0, 0},
                     "--model needs --dataflow (kcp_ws, xp_ws, yxp_os, a comma list, or all)");
  const arch::Arch hw = io::load_arch(a.hw);
  cost::EvalOptions opt;
  opt.enforce_buffers = a.enforce_buffers;
  if (!a.density.empty()) cost::parse_density_flag(a.density, opt.sparsity);
  if (!a.structure.empty()) cost::parse_structure_flag(a.structure, opt.sparsity);
  opt.sparsity.mode = cost::parse_sparse_mode(a.sparse_mode);

  std::vector<Run> runs;
  std::string prefix;
  if (!a.mapping.empty()) {
    const io::DfslNetwork net = io::read_dfsl(a.mapping);
    for (const auto& w : net.warnings) std::cerr << "sparsemap: " << w.str() << "\n";
    prefix = net.name;
    Run r;
    mapping::Mapping prev;
    for (const io::DfslLayer& l : net.layers) {
      Item it{l, ""};
      if (it.dl.mapping.empty() && !prev.empty()) {  // MAESTRO reuses the layer before's
        it.dl.mapping = prev;
        it.note = "mapping of the layer before (no Dataflow block)";
      }
      prev = it.dl.mapping;
      r.items.push_back(std::move(it));
    }
    runs.push_back(std::move(r));
  } else {
    const workload::Model m = load_model(a.model, a.zoo);
    prefix = m.name;
    std::vector<std::string> names;
    if (a.dataflow == "all") {
      for (const auto& t : cost::dataflow_templates()) names.push_back(t.name);
    } else {
      std::stringstream ss(a.dataflow);
      for (std::string s; std::getline(ss, s, ',');) names.push_back(s);
    }
    for (const std::string& n : names) {
      Run r;
      r.dataflow = n;
      for (const workload::Layer& l : m.layers) {
        if (!workload::is_gemm_class(l.kind)) continue;
        io::DfslLayer dl;
        dl.layer = l;
        dl.mapping = cost::dataflow_mapping(n, l, hw.num_pes);
        r.items.push_back({dl, ""});
      }
      runs.push_back(std::move(r));
    }
  }
  for (Run& r : runs)
    for (const Item& it : r.items)
      r.costs.push_back(it.dl.mapping.empty()
                            ? [] {
                                cost::Cost c;
                                c.status = cost::Status::Invalid;
                                c.reason = "no Dataflow block";
                                return c;
                              }()
                            : cost::evaluate(it.dl.layer, hw, it.dl.mapping, opt));
  for (Run& r : runs)
    for (size_t i = 0; i < r.items.size(); ++i)
      if (r.items[i].dl.mapping.empty()) r.costs[i].macs = r.items[i].dl.layer.macs();

  if (!a.emit_m.empty()) {  // every check before the first file is written
    std::vector<std::pair<std::string, std::string>> files;
    for (const Run& r : runs)
      for (size_t i = 0; i < r.items.size(); ++i)
        if (!r.items[i].dl.mapping.empty())
          files.push_back(maestro_file(i, r.dataflow.empty() ? prefix : r.dataflow, r.items[i]));
    std::string note;
    files.emplace_back("accelerator.m", io::write_maestro_hw(hw, &note));
    make_output_dir(a.emit_m, "--emit-m");
    for (const auto& [name, text] : files)
      write_text_file((std::filesystem::path(a.emit_m) / name).string(), text);
    if (!note.empty()) std::cerr << "sparsemap: accelerator.m: " << note << "\n";
  }

  if (a.json != "-") {
    if (runs.size() == 1)
      print_run(runs[0], hw);
    else
      print_comparison(runs, hw);
  }
  if (!a.json.empty()) write_eval_json(a, runs, hw, opt, prefix);
  require_some_feasible(runs, a.mapping.empty() ? a.hw : a.mapping);
}

void write_eval_json(const EvalArgs& a, const std::vector<Run>& runs, const arch::Arch& hw,
                     const cost::EvalOptions& opt, const std::string& prefix) {
  nlohmann::json sparsity = nlohmann::json::object();
  for (int t = 0; t < cost::kNumTensors; ++t)
    sparsity[std::string(cost::tensor_name(t))] = cost::describe(opt.sparsity.tensors[t]);
  sparsity["mode"] = opt.sparsity.mode == cost::SparseMode::Skip ? "skip" : "gate";
  nlohmann::json j;
  if (runs.size() == 1) {
    j = run_json(runs[0]);
  } else {
    j["evaluations"] = nlohmann::json::array();
    for (const Run& r : runs) j["evaluations"].push_back(run_json(r));
  }
  j["hw"] = hw.name;
  j["sparsity"] = sparsity;
  if (!a.model.empty()) j["model"] = prefix;
  if (!a.mapping.empty()) j["mapping"] = a.mapping;
  write_json(j, a.json);
}

}  // namespace

void register_eval(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "eval", "Evaluate layers on an accelerator with the analytical cost model (MAESTRO-class)");
  auto args = std::make_shared<EvalArgs>();
  // Required unless --timeloop (run_eval says so in CLI11's own words).
  cmd->add_option("--hw", args->hw, "Accelerator: a preset name, a MAESTRO .m file or a YAML file");
  cmd->add_option("--mapping", args->mapping, "MAESTRO DFSL file with layers and dataflows");
  cmd->add_option("--model", args->model, "Zoo model name or model file (with --dataflow)");
  cmd->add_option("--dataflow", args->dataflow,
                  "Built-in template for --model: kcp_ws, xp_ws, yxp_os, a comma list, or all");
  add_zoo_options(cmd, args->zoo);
  cmd->add_flag("--enforce-buffers", args->enforce_buffers,
                "A mapping that needs more L1/L2 than the accelerator has is infeasible");
  cmd->add_option("--json", args->json, "Write JSON to FILE, or - for stdout");
  cmd->add_option("--emit-m", args->emit_m,
                  "Write each evaluated layer (and accelerator.m) as MAESTRO files into DIR");
  cmd->add_option("--density", args->density, "Tensor densities: W=0.25,I=1.0 or W=0.1:0.5");
  cmd->add_option("--structure", args->structure,
                  "Sparsity structure: W=nm:2:4, W=cvse:8, W=block:4x4, W=unstructured");
  cmd->add_option("--sparse-mode", args->sparse_mode,
                  "skip (ineffectual MACs cost neither time nor energy; compressed storage) or "
                  "gate (they take their cycle, cost no energy)");
  cmd->add_option("--timeloop", args->timeloop,
                  "Timeloop/Accelergy YAML files: evaluate them as `sparsemap timeloop` does");
  cmd->callback([args, cmd] {
    // Timeloop's files carry the architecture, problem and mapping: eval's own inputs and
    // MAESTRO-model flags do not apply to them.
    if (!args->timeloop.empty())
      for (const char* flag :
           {"--hw", "--mapping", "--model", "--dataflow", "--enforce-buffers", "--emit-m",
            "--density", "--structure", "--sparse-mode", "--batch", "--seq", "--image"})
        if (cmd->count(flag) > 0)
          throw InputError({"<flag --timeloop>", 0, 0},
                           std::string(flag) +
                               " does not apply to Timeloop files (they carry the architecture, "
                               "problem and mapping); expected --timeloop FILES [--json FILE|-]");
    run_eval(*args);
  });
}

}  // namespace sparsemap::cli
