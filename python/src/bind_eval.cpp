// sparsemap.eval_model: dse::eval::run called directly (no CLI parsing, no captured output),
// with the GIL released; returns to_json(result) as a dict, the CLI's JSON (`sparsemap eval`).
// Keywords are the command's flags (keywords.h), read with the CLI's conversions and errors;
// timeloop= (a file or a list of files) evaluates Timeloop's inputs as `sparsemap timeloop`
// does; sparsemap.timeloop(*files, **kw) is that command with its own flags (hw=, no_leakage=,
// timeloop_3_0_3=, emit_map=), dse::eval::run_timeloop called directly.
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/arch/arch.h"
#include "sparsemap/dse/eval/run.h"
#include "sparsemap/dse/eval/timeloop.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

namespace ev = dse::eval;

// timeloop=: one file (str or PathLike) or a list of them.
std::vector<std::string> timeloop_files(py::handle v) {
  std::vector<std::string> files;
  if (v.is_none()) return files;
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    for (py::handle f : v) files.push_back(fspath(f));
    return files;
  }
  files.push_back(fspath(v));
  return files;
}

}  // namespace

void bind_eval(py::module_& m, const std::string& how) {
  m.def(
      "eval_model",
      [](py::object model, py::object hw, py::object dataflow, py::kwargs kw) -> py::object {
        ev::Options o;
        read_model_argument(model, o.model, o.model_object);
        if (py::isinstance<arch::Arch>(hw))
          o.arch_object = hw.cast<arch::Arch>();
        else if (!hw.is_none())
          o.hw = fspath(hw);
        kw["dataflow"] = dataflow;
        if (kw.contains("mapping") && !py::object(kw["mapping"]).is_none())
          kw["mapping"] = py::str(fspath(kw["mapping"]));
        if (kw.contains("timeloop")) o.timeloop = timeloop_files(kw["timeloop"]);
        read_options(kw, ev::option_table(), o, {"progress", "timeloop"});
        const ev::Result r = run_released(progress_argument(kw), [&o](search::Observer& obs) {
          const ev::Result r = ev::run(o, obs);
          ev::write_outputs(r, obs);
          return r;
        });
        py::object d = json_object(ev::to_json(r));
        ev::require_some_feasible(r);
        return d;
      },
      "model"_a = py::none(), "hw"_a = py::none(), "dataflow"_a = py::none(),
      ("`sparsemap eval`: the MAESTRO-class cost model on every GEMM-class layer of `model` "
       "under the dataflow templates dataflow= (kcp_ws, xp_ws, yxp_os, a list or a comma list, "
       "or 'all'; several give `evaluations`), or on the layers and dataflows of a MAESTRO file "
       "(mapping=); density=, structure= and sparse_mode= price sparse tensors. timeloop= (a "
       "file or a list of Timeloop/Accelergy files, without model, hw and the other options) "
       "gives `sparsemap timeloop`'s JSON." +
       how + " A run where no layer is feasible raises ValueError, as the CLI exits 2." +
       describe_options(ev::option_table()))
          .c_str());
}

void bind_timeloop_command(py::module_& m) {
  m.def(
      "timeloop",
      [](py::args files, py::kwargs kw) -> py::object {
        ev::TimeloopOptions o;
        o.files = timeloop_files(py::tuple(files));
        if (kw.contains("emit_map") && !py::object(kw["emit_map"]).is_none())
          kw["emit_map"] = py::str(fspath(kw["emit_map"]));
        read_options(kw, ev::timeloop_option_table(), o, {"progress"});
        if (o.files.empty())
          throw py::value_error("files is required");  // CLI11's line for the positional
        const ev::TimeloopResult r =
            run_released(progress_argument(kw),
                         [&o](search::Observer& obs) { return ev::run_timeloop(o, obs); });
        ev::write_outputs(r);
        return json_object(ev::to_json(r));
      },
      ("`sparsemap timeloop FILES`: Timeloop/Accelergy YAML files (str or PathLike: an "
       "architecture, a problem, a mapping, an ERT; or a parsed-processed-input.yaml) through "
       "the loop-nest model (Sparseloop's when they hold sparse_optimizations); returns the JSON "
       "of `sparsemap timeloop --json` as a typed result. Keyword arguments are the command's "
       "flags; bad inputs raise ValueError with the CLI's line." +
       describe_options(ev::timeloop_option_table()))
          .c_str());
}

}  // namespace sparsemap::python
