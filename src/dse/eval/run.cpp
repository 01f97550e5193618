// `sparsemap eval`'s work as a library call: the checks, the layers of a mapping file or of a
// model under dataflow templates, their costs, the --emit-m files (run.h); run_json.cpp builds
// the JSON.
#include "sparsemap/dse/eval/run.h"

#include <filesystem>
#include <sstream>

#include "sparsemap/cost/dataflows.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/load_model.h"
#include "sparsemap/io/maestro_export.h"
#include "sparsemap/io/util.h"

namespace sparsemap::dse::eval {

namespace {

// With --timeloop, the first of eval's own inputs and MAESTRO-model options that is not at its
// default ("" when none): Timeloop's files carry the architecture, problem and mapping.
std::string flag_beside_timeloop(const Options& a) {
  const workload::ZooOptions zoo;
  const std::pair<bool, const char*> given[] = {
      {!a.hw.empty() || a.arch_object.has_value(), "--hw"},
      {!a.mapping.empty(), "--mapping"},
      {!a.model.empty() || a.model_object.has_value(), "--model"},
      {!a.dataflow.empty(), "--dataflow"},
      {a.enforce_buffers, "--enforce-buffers"},
      {!a.emit_m.empty(), "--emit-m"},
      {!a.density.empty(), "--density"},
      {!a.structure.empty(), "--structure"},
      {a.sparse_mode != "gate", "--sparse-mode"},
      {a.zoo.batch != zoo.batch, "--batch"},
      {a.zoo.seq_len != zoo.seq_len, "--seq"},
      {a.zoo.image_size != zoo.image_size, "--image"}};
  for (const auto& [set, flag] : given)
    if (set) return flag;
  return "";
}

// The layers of the mapping file, one evaluation; a layer without a Dataflow block takes the
// mapping of the layer before, as MAESTRO does. Reader warnings go to `observer`.
Evaluation file_layers(const std::string& path, std::string& name, search::Observer& observer) {
  const io::DfslNetwork net = io::read_dfsl(path);
  for (const auto& w : net.warnings) observer.on_warning(w.str());
  name = net.name;
  Evaluation r;
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
  return r;
}

// The model's GEMM-class layers under each dataflow `names` (a comma list, or all).
std::vector<Evaluation> model_layers(const workload::Model& m, const std::string& names_text,
                                     const arch::Arch& hw) {
  std::vector<std::string> names;
  if (names_text == "all") {
    for (const auto& t : cost::dataflow_templates()) names.push_back(t.name);
  } else {
    std::stringstream ss(names_text);
    for (std::string s; std::getline(ss, s, ',');) names.push_back(s);
  }
  std::vector<Evaluation> runs;
  for (const std::string& n : names) {
    Evaluation r;
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
  return runs;
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

}  // namespace

Result run(const Options& a, search::Observer& observer) {
  Result r;
  r.options = a;
  r.options.model_object.reset();
  r.options.arch_object.reset();
  if (!a.timeloop.empty()) {
    if (const std::string flag = flag_beside_timeloop(a); !flag.empty())
      throw InputError({"<flag --timeloop>", 0, 0},
                       flag +
                           " does not apply to Timeloop files (they carry the architecture, "
                           "problem and mapping); expected --timeloop FILES [--json FILE|-]");
    TimeloopOptions t;
    t.files = a.timeloop;
    r.timeloop = run_timeloop(t, observer);
    return r;
  }
  if (a.hw.empty() && !a.arch_object) throw InputError({"<flag --hw>", 0, 0}, "--hw is required");
  r.from_model = !a.model.empty() || a.model_object.has_value();
  if (a.mapping.empty() == !r.from_model)
    throw InputError({"<flags>", 0, 0},
                     "expected either --mapping FILE.m or --model NAME --dataflow T");
  if (r.from_model && a.dataflow.empty())
    throw InputError({"<flag --dataflow>", 0, 0},
                     "--model needs --dataflow (kcp_ws, xp_ws, yxp_os, a comma list, or all)");
  r.hw = a.arch_object ? *a.arch_object : io::load_arch(a.hw);
  r.eval.enforce_buffers = a.enforce_buffers;
  if (!a.density.empty()) cost::parse_density_flag(a.density, r.eval.sparsity);
  if (!a.structure.empty()) cost::parse_structure_flag(a.structure, r.eval.sparsity);
  r.eval.sparsity.mode = cost::parse_sparse_mode(a.sparse_mode);

  if (!r.from_model) {
    r.evaluations.push_back(file_layers(a.mapping, r.name, observer));
  } else {
    const workload::Model m = a.model_object ? *a.model_object : io::load_model(a.model, a.zoo);
    r.name = m.name;
    r.evaluations = model_layers(m, a.dataflow, r.hw);
  }
  for (Evaluation& e : r.evaluations)
    for (const Item& it : e.items)
      e.costs.push_back(it.dl.mapping.empty()
                            ? [] {
                                cost::Cost c;
                                c.status = cost::Status::Invalid;
                                c.reason = "no Dataflow block";
                                return c;
                              }()
                            : cost::evaluate(it.dl.layer, r.hw, it.dl.mapping, r.eval));
  for (Evaluation& e : r.evaluations)
    for (size_t i = 0; i < e.items.size(); ++i)
      if (e.items[i].dl.mapping.empty()) e.costs[i].macs = e.items[i].dl.layer.macs();
  return r;
}

void write_outputs(const Result& r, search::Observer& observer) {
  if (r.timeloop) return write_outputs(*r.timeloop);
  const Options& a = r.options;
  if (a.emit_m.empty()) return;
  std::vector<std::pair<std::string, std::string>> files;  // every check before the first file
  for (const Evaluation& e : r.evaluations)
    for (size_t i = 0; i < e.items.size(); ++i)
      if (!e.items[i].dl.mapping.empty())
        files.push_back(maestro_file(i, e.dataflow.empty() ? r.name : e.dataflow, e.items[i]));
  std::string note;
  files.emplace_back("accelerator.m", io::write_maestro_hw(r.hw, &note));
  io::make_output_dir(a.emit_m, "--emit-m");
  for (const auto& [name, text] : files)
    io::write_text_file((std::filesystem::path(a.emit_m) / name).string(), text);
  if (!note.empty()) observer.on_warning("accelerator.m: " + note);
}

void require_some_feasible(const Result& r) {
  size_t layers = 0;
  std::string why;
  for (const Evaluation& e : r.evaluations)
    for (const cost::Cost& c : e.costs) {
      if (c.ok()) return;
      ++layers;
      if (why.empty()) why = c.reason;
    }
  if (layers == 0) return;
  const Options& a = r.options;
  throw InputError({a.mapping.empty() ? (a.hw.empty() ? r.hw.name : a.hw) : a.mapping, 0, 0},
                   "none of the " + std::to_string(layers) +
                       " evaluations is feasible, so there is no total (first: " + why + ")");
}

}  // namespace sparsemap::dse::eval
