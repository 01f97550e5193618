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

namespace {

namespace fu = dse::fusion;

#define SM_TEXT(flag, field) SM_KW_TEXT(fu::Options, flag, field)
#define SM_NUM(flag, field, conv) SM_KW_NUM(fu::Options, flag, field, conv)
#define SM_IGNORED(flag, on_off, conv) SM_KW_IGNORED(fu::Options, flag, on_off, conv)

// `sparsemap fuse`'s flags (apps/cmd_fuse.cpp) as keywords (hw= is read by the caller: it takes
// an Arch object too); --groups only prints, and is accepted with no effect.
const std::vector<Keyword<fu::Options>>& fuse_keywords() {
  static const std::vector<Keyword<fu::Options>> table = {
      SM_NUM("--batch", batch, to_int64),
      SM_NUM("--image-size", image_size, to_int64),
      SM_NUM("--buffer-kb", buffer_kb, to_int64),
      SM_TEXT("--method", method),
      SM_TEXT("--objective", objective),
      SM_TEXT("--dataflow", dataflow),
      SM_NUM("--budget", budget, to_int64),
      SM_NUM("--population", population, to_uint64),
      SM_NUM("--seed", seed, to_seed),
      SM_NUM("--threads", threads, to_int64),
      SM_TEXT("--weights", weights),
      SM_TEXT("--checkpoint", checkpoint),
      SM_TEXT("--resume", resume),
      SM_NUM("--repeat", repeat, to_int64),
      SM_IGNORED("--groups", true, as_text),
  };
  return table;
}

#undef SM_TEXT
#undef SM_NUM
#undef SM_IGNORED

}  // namespace

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
        read_keywords(kw, fuse_keywords(), o, {"progress", "hw"});
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
       "after each batch of the search method; Ctrl-C stops it (KeyboardInterrupt).")
          .c_str());
}

}  // namespace sparsemap::python
