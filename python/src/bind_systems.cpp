// The system functions (map_model, codesign, attention, fuse, schedule, hwalloc, report, mse,
// eval_model, timeloop, prune_study, spmm_bench, sparse_price): each reads its keywords into the
// system's Options (keywords.h) and calls its run() with the GIL released;
// python/sparsemap/__init__.py wraps what they return (the CLI's JSON) in typed results.
// _ml_keywords gives the keyword lists of the functions of sparsemap._ml, whose option tables are
// torch-free (in the core library), so that their docstrings need not load libtorch.
#include "bindings.h"
#include "keywords.h"
#include "sparsemap/ml/fusion/run.h"
#include "sparsemap/ml/nm_study/run.h"
#include "sparsemap/ml/nongemm/run.h"
#include "sparsemap/ml/prune/run.h"
#include "sparsemap/ml/train/run.h"

namespace sparsemap::python {

namespace {

// describe_options of the function `name` of sparsemap._ml ("" for another name).
std::string ml_keywords(const std::string& name) {
  namespace pr = ml::prune;
  if (name == "train") return describe_options(ml::train::option_table());
  if (name == "nm_study") return describe_options(ml::nm_study::option_table());
  if (name == "fuse_train") return describe_options(ml::fusion::option_table());
  if (name == "nongemm") return describe_options(ml::nongemm::option_table());
  if (name == "prune_train") return describe_options(pr::train_option_table());
  if (name == "prune_compare") return describe_options(pr::compare_option_table());
  if (name == "prune_overhead")
    return describe_options(pr::overhead_option_table(), pr::overhead_defaults());
  return "";
}

}  // namespace

void bind_systems(pybind11::module_& m) {
  const std::string how =
      " `model` is what --model takes (a zoo name or a file) or a Model object; an accelerator "
      "(hw=) a preset, a file or an Arch object. Other keyword arguments are the command's "
      "flags (foo_bar=x for --foo-bar x, True for a flag); defaults are the CLI's. Returns the "
      "JSON the CLI writes with --json, as a typed result (sparsemap.results). Bad arguments "
      "raise ValueError (FileNotFoundError for a missing file) with the CLI's line.";
  bind_map(m, how);
  bind_codesign(m, how);
  bind_attention(m, how);
  bind_fuse(m, how);
  bind_schedule(m, how);
  bind_hwalloc(m, how);
  bind_report(m, how);
  bind_mse(m, how);
  bind_eval(m, how);
  bind_timeloop_command(m);
  bind_measure(m, how);
  bind_sparse_price(m, how);
  m.def("_ml_keywords", &ml_keywords, pybind11::arg("name"),
        "The keyword list of sparsemap._ml's function `name` (its docstring's), without loading "
        "libtorch.");
}

}  // namespace sparsemap::python
