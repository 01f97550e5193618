// sparsemap.sparse_price: dse::sparse_price::run called directly (no CLI parsing, no captured
// output), with the GIL released while it maps, prices and measures; returns to_json(result) as
// a dict, the CLI's JSON (`sparsemap sparse-price --json`). Keywords are the command's flags
// (keywords.h).
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/dse/sparse_price/run.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace sp = dse::sparse_price;

void bind_sparse_price(py::module_& m, const std::string& how) {
  m.def(
      "sparse_price",
      [](py::object model, py::kwargs kw) -> py::object {
        sp::Options o;
        if (model.is_none()) throw py::value_error("--model is required");  // CLI11's line
        read_model_argument(model, o.model, o.model_object);
        // hw= and ert= are paths (str or PathLike): the design's arch.yaml or its folder.
        for (const char* key : {"hw", "ert"})
          if (kw.contains(key) && !py::object(kw[key]).is_none())
            kw[key] = py::str(fspath(kw[key]));
        read_options(kw, sp::option_table(), o, {"progress"});
        if (o.hw.empty()) throw py::value_error("--hw is required");  // CLI11's line
        if (o.spmm) warn_timing_environment("sparse-price --spmm");
        const sp::Result r = run_released(progress_argument(kw),
                                          [&o](search::Observer& obs) { return sp::run(o, obs); });
        // The CLI's warning of a busy machine during the --spmm timings.
        if (!r.spmm_warning.empty()) py::module_::import("warnings").attr("warn")(r.spmm_warning);
        return json_object(sp::to_json(r));
      },
      "model"_a = py::none(),
      ("`sparsemap sparse-price`: the model pruned by our pruner (prune=, seed=) priced on a "
       "Sparseloop design (hw=: its arch.yaml or a folder holding arch.yaml and one *ERT.yaml), "
       "dense and sparse, per layer and in total; spmm=True also measures each pruned layer's "
       "CPU SpMM against OpenBLAS (timings, never deterministic)." +
       how +
       " progress= (a callable) is called with a dict (item, items, done, total, best, label) "
       "as the mapper searches each distinct layer (label 'map') and as each layer is priced "
       "(label 'price') and measured (label 'spmm'); Ctrl-C stops it (KeyboardInterrupt)." +
       describe_options(sp::option_table()))
          .c_str());
}

}  // namespace sparsemap::python
