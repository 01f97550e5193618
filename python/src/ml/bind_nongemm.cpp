// sparsemap.nongemm (NonGEMM Bench): ml::nongemm::run called directly, with the GIL released;
// returns to_json(result) as a dict, the CLI's JSON, and writes the trace= and plot= files as
// --trace and --plot do. In `sparsemap._ml` only (it runs the models in libtorch).
#include <pybind11/stl.h>

#include "../bindings.h"
#include "../keywords.h"
#include "sparsemap/io/util.h"
#include "sparsemap/ml/nongemm/run.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

namespace ng = ml::nongemm;
using NongemmKeyword = Keyword<ng::Options>;

// A comma list as CLI11 reads a delimited option: each item converted by `conv`; one that is
// not raises CLI11's line for the whole text.
template <class T, class Conv>
std::vector<T> list_value(const std::string& flag, const std::string& text, Conv conv) {
  std::vector<T> out;
  for (const std::string& item : io::split_list(text)) {
    try {
      out.push_back(static_cast<T>(conv(flag, item)));
    } catch (const py::value_error&) {
      throw py::value_error("Could not convert: " + flag + " = " + text);
    }
  }
  return out;
}

#define SM_TEXT(flag, field) SM_KW_TEXT(ng::Options, flag, field)
#define SM_NUM(flag, field, conv) SM_KW_NUM(ng::Options, flag, field, conv)
#define SM_ON(flag, field) SM_KW_ON(ng::Options, flag, field)

// `sparsemap nongemm`'s flags (apps/cmd_nongemm.cpp) as keywords (model is the positional
// argument; reuse_memory= is read by the caller, a flag that is on by default).
const std::vector<NongemmKeyword>& nongemm_keywords() {
  static const std::vector<NongemmKeyword> table = {
      SM_ON("--all", all),
      SM_NUM("--batch", batch, to_int64),
      SM_NUM("--seq", seq, to_positive),
      SM_NUM("--layers", layers, to_int64),
      SM_NUM("--threads", threads, to_int64),
      SM_NUM("--iters", iters, to_int64),
      NongemmKeyword{"--schedule", false,
                     [](ng::Options& o, const std::string& v) {
                       o.schedule = list_value<int>("--schedule", v, to_int64);
                     }},
      SM_NUM("--seed", seed, to_seed),
      NongemmKeyword{"--gemm-speedup", false,
                     [](ng::Options& o, const std::string& v) {
                       o.gemm_speedup = list_value<double>("--gemm-speedup", v, to_double);
                     }},
      SM_TEXT("--hw", hw),
      SM_TEXT("--dataflow", dataflow),
      SM_TEXT("--taxonomy", taxonomy),
      SM_TEXT("--trace", trace),
      SM_TEXT("--plot", plot),
      SM_NUM("--top", top, to_uint64),
      SM_ON("--tiny", tiny),
      SM_TEXT("--stat", stat),
      NongemmKeyword{"--no-reuse-memory", true,
                     [](ng::Options& o, const std::string&) { o.reuse_memory = false; }},
  };
  return table;
}

#undef SM_TEXT
#undef SM_NUM
#undef SM_ON

}  // namespace

void bind_nongemm(py::module_& m) {
  m.def(
      "nongemm",
      [](py::object model, py::kwargs kw) -> py::object {
        ng::Options o;
        if (!model.is_none()) o.model = py::str(model);
        read_keywords(kw, nongemm_keywords(), o, {"progress", "reuse_memory"});
        if (kw.contains("reuse_memory") && !kw["reuse_memory"].is_none())
          o.reuse_memory = PyObject_IsTrue(kw["reuse_memory"].ptr()) == 1;
        const ng::Result r = run_released(progress_argument(kw),
                                          [&o](search::Observer& obs) { return ng::run(o, obs); });
        ng::write_trace(r);
        ng::write_plot(r);
        return json_object(ng::to_json(r));
      },
      "model"_a = py::none(),
      "`sparsemap nongemm --model MODEL` (or all=True for the suite): NonGEMM Bench, the GEMM "
      "vs NonGEMM operator time of a model run in libtorch, by taxonomy group, and its horizon "
      "on faster GEMMs (gemm_speedup=) or an accelerator (hw=). Keyword arguments are the "
      "command's flags (foo_bar=x for --foo-bar x, True for a flag; reuse_memory=False for "
      "--no-reuse-memory); defaults are the CLI's. trace= and plot= write the files --trace "
      "and --plot write. Returns the JSON the CLI writes with --json. progress= (a callable) "
      "is called with a dict (item, items, done, total, best, label) before each model's "
      "profile (label: the model); Ctrl-C stops between models (KeyboardInterrupt).");
}

}  // namespace sparsemap::python
