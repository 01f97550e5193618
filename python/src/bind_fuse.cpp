// sparsemap.fuse: dse::fusion::run called directly (no CLI parsing, no captured output), with
// the GIL released while it runs; returns to_json(result) as a dict (a list of dicts for a
// list of methods), the CLI's JSON. Keywords are the command's flags (keywords.h).
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/arch/arch.h"
#include "sparsemap/dse/fusion/run.h"
#include "sparsemap/io/util.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace fu = dse::fusion;

void bind_fuse(py::module_& m, const std::string& how) {
  m.def(
      "fuse",
      [](py::object model, py::kwargs kw) -> py::object {
        fu::Options o;
        if (model.is_none()) throw py::value_error("--model is required");  // CLI11's line
        read_model_argument(model, o.model, o.model_object);
        const py::object hw = kw.contains("hw") ? py::object(kw["hw"]) : py::none();
        if (py::isinstance<arch::Arch>(hw))
          o.hw_object = hw.cast<arch::Arch>();
        else if (!hw.is_none())
          o.hw = fspath(hw);
        read_options(kw, fu::option_table(), o, {"progress", "hw"});
        if (o.weights.empty()) o.weights = io::shipped_data_file("data/dnnfuser/fuser.bin");
        const fu::Result r = run_released(progress_argument(kw),
                                          [&o](search::Observer& obs) { return fu::run(o, obs); });
        return json_object(fu::to_json(r));
      },
      "model"_a,
      ("`sparsemap fuse`: inter-layer fusion (DNNFuser's space); a list of methods returns a "
       "list of dicts. method='learned' runs the shipped mapper (data/dnnfuser/fuser.bin) "
       "without libtorch; only training it (fuse-train) needs libtorch and the CLI." +
       how +
       " progress= (a callable) is called with a dict (item, items, done, total, best, label) "
       "after each batch of the search method; Ctrl-C stops it (KeyboardInterrupt)." +
       describe_options(fu::option_table()))
          .c_str());
}

}  // namespace sparsemap::python
