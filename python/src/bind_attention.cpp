// sparsemap.attention: dse::attention::run called directly (no CLI parsing, no captured output),
// with the GIL released while it runs; returns to_json(result) as a dict, the CLI's JSON.
// Keywords are the command's flags (keywords.h).
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/arch/arch.h"
#include "sparsemap/dse/attention/run.h"
#include "sparsemap/error.h"
#include "sparsemap/plot/gnuplot.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace at = dse::attention;

// Not `how`: attention's model is a name only (FLAT's or the zoo's), never a Model object.
void bind_attention(py::module_& m, const std::string& /*how*/) {
  m.def(
      "attention",
      [](py::object model, py::kwargs kw) -> py::object {
        if (py::isinstance<workload::Model>(model))  // its --model is a shape name, not a model
          throw py::type_error("model: attention takes FLAT's names or a zoo transformer name");
        at::Options o;
        std::optional<workload::Model> unused;
        read_model_argument(model, o.model, unused);
        const py::object hw = kw.contains("hw") ? py::object(kw["hw"]) : py::none();
        if (py::isinstance<arch::Arch>(hw))
          o.hw_object = hw.cast<arch::Arch>();
        else if (!hw.is_none())
          o.hw = fspath(hw);
        read_options(kw, at::option_table(), o, {"progress", "hw", "plot"});
        const std::string plot =
            kw.contains("plot") && !kw["plot"].is_none() ? fspath(kw["plot"]) : "";
        // The CLI's checks before any work, in its order (--json aside).
        at::check_sizes(o);
        at::parse_objective(o.objective);
        if (!plot.empty() && !plot::is_plot_path(plot))
          throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file");
        const at::Result r = run_released(progress_argument(kw),
                                          [&o](search::Observer& obs) { return at::run(o, obs); });
        if (!plot.empty()) at::write_plot(r, plot);
        return json_object(at::to_json(r));
      },
      "model"_a = py::none(),
      ("`sparsemap attention`: FLAT's fused attention dataflow vs the unfused baseline per "
       "sequence length (seq='512,4K'); model: FLAT's names (bert, trxl, t5, xlm) or a zoo "
       "transformer name; hw= a preset, a file or an Arch object. Other keyword arguments are the "
       "command's flags; see map_model. progress= (a callable) is called with a dict (item, items, "
       "done, total, best, label) before each sequence length and after a case's last; Ctrl-C "
       "stops the run (KeyboardInterrupt)." +
       describe_options(at::option_table()))
          .c_str());
}

}  // namespace sparsemap::python
