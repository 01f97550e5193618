// The system functions (map_model, codesign, attention, fuse, schedule, hwalloc, report, mse,
// eval_model, sparse_price): each reads its keywords into the system's Options (keywords.h) and
// calls its run() with the GIL released; python/sparsemap/__init__.py wraps what they return (the
// CLI's JSON) in typed results.
#include "bindings.h"

namespace sparsemap::python {

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
  bind_measure(m, how);
  bind_sparse_price(m, how);
}

}  // namespace sparsemap::python
