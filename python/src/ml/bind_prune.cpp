// sparsemap.prune_train, sparsemap.prune_compare and sparsemap.prune_overhead: ml::prune's
// run_train / run_compare / run_overhead called directly with the GIL released, keywords read
// through the commands' option tables; each returns to_json(result), the CLI's JSON. In
// `sparsemap._ml` only (they train in libtorch).
#include <pybind11/stl.h>

#include "../bindings.h"
#include "../keywords.h"
#include "sparsemap/ml/prune/run.h"

namespace sparsemap::python {

namespace py = pybind11;

namespace {

namespace pr = ml::prune;

// run_with_options from `defaults`, and the result's JSON.
template <class Run>
py::object call(const py::kwargs& kw, const options::Table<pr::Options>& table,
                pr::Options defaults, Run run) {
  return json_object(pr::to_json(run_with_options(kw, table, std::move(defaults), run)));
}

const char* const kHow =
    " Keyword arguments are the command's flags (foo_bar=x for --foo-bar x, True for a flag); "
    "defaults are the CLI's. Returns the JSON the CLI writes with --json. progress= (a "
    "callable) is called with a dict (item, items, done, total, best, label) after each epoch "
    "(prune_overhead: each algorithm); Ctrl-C stops at the next one (KeyboardInterrupt).";

}  // namespace

void bind_prune(py::module_& m) {
  m.def(
      "prune_train",
      [](py::kwargs kw) {
        return call(kw, pr::train_option_table(), pr::Options(), pr::run_train);
      },
      (std::string("`sparsemap prune-train`: trains a small classifier (mlp or cnn) with a "
                   "pruning algorithm (algo=), and with export= times its pruned weights in "
                   "sparse formats.") +
       kHow + describe_options(pr::train_option_table()))
          .c_str());
  m.def(
      "prune_compare",
      [](py::kwargs kw) {
        return call(kw, pr::compare_option_table(), pr::Options(), pr::run_compare);
      },
      (std::string("`sparsemap prune-compare`: trains with each algorithm of algos= and "
                   "returns every run.") +
       kHow + describe_options(pr::compare_option_table()))
          .c_str());
  m.def(
      "prune_overhead",
      [](py::kwargs kw) {
        return call(kw, pr::overhead_option_table(), pr::overhead_defaults(), pr::run_overhead);
      },
      (std::string("`sparsemap prune-overhead`: times a training step with each algorithm's "
                   "masking against a dense one.") +
       kHow + describe_options(pr::overhead_option_table(), pr::overhead_defaults()))
          .c_str());
}

}  // namespace sparsemap::python
