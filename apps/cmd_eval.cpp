// `sparsemap eval`: the cost model on every layer of a MAESTRO mapping file, or on a model under
// built-in dataflow templates; a per-layer table and JSON. `eval --timeloop FILES` is
// `sparsemap timeloop FILES` (print_timeloop, apps/cmd_timeloop.cpp): the loop-nest model on
// Timeloop's inputs, the same summary and JSON. The work is dse::eval::run (dse/eval/run.h);
// this file is flags -> Options, then the tables.
#include <iostream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/eval/run.h"
#include "sparsemap/search/observer.h"

namespace sparsemap::cli {

namespace {

namespace ev = dse::eval;

// The flags of `eval` that only the CLI has (where the JSON goes), beside the run's Options.
struct EvalArgs {
  ev::Options o;
  std::string json;
};

// Timeloop's warnings as `sparsemap timeloop` prints them ("sparsemap: warning: ...").
class TimeloopWarnings : public search::Observer {
 public:
  void on_warning(const std::string& text) override { print_warning(text); }
};

void print_run(const ev::Evaluation& r, const arch::Arch& hw) {
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
void print_comparison(const std::vector<ev::Evaluation>& runs, const arch::Arch& hw) {
  std::vector<std::string> header = {"#", "layer", "dims"};
  for (const ev::Evaluation& r : runs) {
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

// Flags -> Options, run, write the --emit-m files, print the table, write the JSON; exit 2 when
// not one layer could be evaluated (after the table and the JSON have shown every layer).
void run_eval(const EvalArgs& a) {
  if (!a.o.timeloop.empty()) {
    TimeloopWarnings observer;
    print_timeloop(*ev::run(a.o, observer).timeloop, a.json);
    return;
  }
  if (a.o.hw.empty()) throw CLI::RequiredError("--hw");  // as when --hw was a required option
  search::Observer observer;                             // reader warnings on stderr
  const ev::Result r = ev::run(a.o, observer);
  ev::write_outputs(r, observer);
  if (a.json != "-") {
    if (r.evaluations.size() == 1)
      print_run(r.evaluations[0], r.hw);
    else
      print_comparison(r.evaluations, r.hw);
  }
  if (!a.json.empty()) write_json(ev::to_json(r), a.json);
  ev::require_some_feasible(r);
}

}  // namespace

void register_eval(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "eval", "Evaluate layers on an accelerator with the analytical cost model (MAESTRO-class)");
  auto args = std::make_shared<EvalArgs>();
  // --hw: required unless --timeloop (run_eval says so in CLI11's own words).
  add_options(cmd, ev::option_table(), args->o, {{"--json", &args->json}});
  cmd->callback([args, cmd] {
    // Timeloop's files carry the architecture, problem and mapping: eval's own inputs and
    // MAESTRO-model flags (the rows not_with_timeloop) do not apply to them. The model's sizes
    // (--batch, --seq, --image) are checked last, as dse::eval::run checks them.
    if (!args->o.timeloop.empty())
      for (const bool sizes : {false, true})
        for (const auto& row : ev::option_table()) {
          const std::string flag = row.name();
          const bool size = flag == "--batch" || flag == "--seq" || flag == "--image";
          if (row.timeloop_refuses && size == sizes && cmd->count(flag) > 0)
            throw InputError({"<flag --timeloop>", 0, 0},
                             flag +
                                 " does not apply to Timeloop files (they carry the architecture, "
                                 "problem and mapping); expected --timeloop FILES [--json FILE|-]");
        }
    run_eval(*args);
  });
}

}  // namespace sparsemap::cli
