// sparsemap.train, sparsemap.nm_study and sparsemap.fuse_train: ml::train::run,
// ml::nm_study::run and ml::fusion::run called directly with the GIL released; each returns
// to_json(result), the CLI's JSON. In `sparsemap._ml` only (they train in libtorch).
#include <pybind11/stl.h>

#include "../bindings.h"
#include "../keywords.h"
#include "sparsemap/ml/fusion/run.h"
#include "sparsemap/ml/nm_study/run.h"
#include "sparsemap/ml/train/run.h"

namespace sparsemap::python {

namespace py = pybind11;

namespace {

namespace tr = ml::train;
namespace ns = ml::nm_study;
namespace ft = ml::fusion;

// run_with_options, then `after` (writes the result's files), and the result's JSON.
template <class Options, class Run, class After>
py::object call(const py::kwargs& kw, const options::Table<Options>& table, Run run, After after) {
  const auto r = run_with_options(kw, table, Options(), run);
  after(r);
  return json_object(to_json(r));
}

const char* const kHow =
    " Keyword arguments are the command's flags (foo_bar=x for --foo-bar x, True for a flag); "
    "defaults are the CLI's. Returns the JSON the CLI writes with --json. progress= (a "
    "callable) is called with a dict (item, items, done, total, best, label) as training goes; "
    "Ctrl-C stops between steps (KeyboardInterrupt).";

}  // namespace

void bind_train(py::module_& m) {
  m.def(
      "train",
      [](py::kwargs kw) { return call(kw, tr::option_table(), tr::run, [](const tr::Result&) {}); },
      (std::string("`sparsemap train`: an N:M sparse-training recipe on vit-tiny or char-gpt.") +
       kHow + describe_options(tr::option_table()))
          .c_str());
  m.def(
      "nm_study",
      [](py::kwargs kw) {
        return call(kw, ns::option_table(), ns::run,
                    [](const ns::Result& r) { ns::write_plot(r); });
      },
      (std::string("`sparsemap nm-study`: every recipe at every N:M ratio on each model; "
                   "results= is rewritten after every cell and resumed from; plot= as --plot.") +
       kHow + describe_options(ns::option_table()))
          .c_str());
  m.def(
      "fuse_train",
      [](py::kwargs kw) { return call(kw, ft::option_table(), ft::run, [](const ft::Result&) {}); },
      (std::string("`sparsemap fuse-train`: trains DNNFuser's learned fusion mapper on the "
                   "search mappers' best fusion mappings (out= the model file).") +
       kHow + describe_options(ft::option_table()))
          .c_str());
}

}  // namespace sparsemap::python
