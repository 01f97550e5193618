// The Python module `sparsemap._sparsemap` (pybind11), split by area. module.cpp calls each
// bind_* once, in this order, so a later area may take and return the classes an earlier one
// registered (pybind11's type registry is shared by all translation units of the module).
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "sparsemap/dse/hwalloc/methods.h"
#include "sparsemap/error.h"
#include "sparsemap/report/run.h"
#include "sparsemap/search/observer.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::python {

// Workloads, accelerators, mappings, dataflow templates, evaluate and its batch form.
void bind_core(pybind11::module_& m);
// Gym-style environments over the map space and the co-design space (no gym dependency).
void bind_env(pybind11::module_& m);
// Sparse formats to and from NumPy/SciPy-shaped arrays, pruning of NumPy weights, SpMM.
void bind_sparse(pybind11::module_& m);
// The system functions: map_model, codesign, attention, fuse, schedule, hwalloc, report, mse,
// eval_model (bind_systems.cpp; each in its bind_<system>.cpp).
void bind_systems(pybind11::module_& m);
// map_model: dse::mapper::run called directly (bind_map.cpp); `how` is the keyword text the
// command functions share.
void bind_map(pybind11::module_& m, const std::string& how);
// fuse: dse::fusion::run called directly (bind_fuse.cpp).
void bind_fuse(pybind11::module_& m, const std::string& how);
// codesign: dse::codesign::run called directly (bind_codesign.cpp).
void bind_codesign(pybind11::module_& m, const std::string& how);
// attention: dse::attention::run called directly (bind_attention.cpp).
void bind_attention(pybind11::module_& m, const std::string& how);
// schedule: dse::schedule::run called directly (bind_schedule.cpp).
void bind_schedule(pybind11::module_& m, const std::string& how);
// mse: dse::mse::run called directly (bind_mse.cpp).
void bind_mse(pybind11::module_& m, const std::string& how);
// eval_model: dse::eval::run called directly (bind_eval.cpp).
void bind_eval(pybind11::module_& m, const std::string& how);
// timeloop(*files, **kw): dse::eval::run_timeloop called directly (bind_eval.cpp).
void bind_timeloop_command(pybind11::module_& m);
// prune_study and spmm_bench: measure::prune_study::run and measure::spmm_bench::run called
// directly (bind_measure.cpp).
void bind_measure(pybind11::module_& m, const std::string& how);
// sparse_price: dse::sparse_price::run called directly (bind_sparse_price.cpp).
void bind_sparse_price(pybind11::module_& m, const std::string& how);
// hwalloc: dse::hwalloc::run called directly (bind_hwalloc.cpp), without the RL methods.
void bind_hwalloc(pybind11::module_& m, const std::string& how);
// hwalloc with the RL methods' agents `rl` (empty: none); the `_ml` module passes
// ml::hwalloc::rl_method().
void bind_hwalloc_with(pybind11::module_& m, const std::string& how, dse::hwalloc::RlMethod rl);
// report: report::run called directly (bind_report.cpp), without the NonGEMM profile.
void bind_report(pybind11::module_& m, const std::string& how);
// report with the NonGEMM profiler `profiler` (empty: none); the `_ml` module passes
// ml::nongemm::report_profiler().
void bind_report_with(pybind11::module_& m, const std::string& how,
                      report::NonGemmProfiler profiler);
// nongemm: ml::nongemm::run called directly (python/src/ml/bind_nongemm.cpp), in `_ml` only.
void bind_nongemm(pybind11::module_& m);
// train, nm_study, fuse_train: ml::train / ml::nm_study / ml::fusion run called directly
// (python/src/ml/bind_train.cpp), in `_ml` only.
void bind_train(pybind11::module_& m);

// The observer of a system run from Python with the GIL released (each call takes the GIL):
// progress goes to the `progress` callable (unless None) as a dict, warnings become
// UserWarnings, and Ctrl-C (a pending signal) cancels the run; after search::Cancelled the
// KeyboardInterrupt is the pending Python error (raise it with py::error_already_set).
// The GIL is taken only to call `progress` and, at most every kSignalPoll, to look for a
// signal: runs in several Python threads then contend for it rarely. Signals are seen by the
// thread that made the observer (Python handles them in its main thread only), in cancelled()
// and in stop_requested(); other threads see the stop that one recorded.
class PyObserver : public search::Observer {
 public:
  static constexpr std::chrono::milliseconds kSignalPoll{20};
  explicit PyObserver(pybind11::object progress);
  ~PyObserver() override;
  void on_progress(const search::Progress& p) override;
  void on_warning(const std::string& text) override;
  bool cancelled() override;
  bool stop_requested() override;

 private:
  pybind11::object progress_;
  bool has_progress_ = false;
  std::thread::id owner_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> next_poll_ns_{0};  // steady_clock time of the next signal check
};

// `path` as os.fspath gives it (a str or a PathLike).
std::string fspath(pybind11::handle path);
// A model argument as --model takes it: a Model object into `object`, a zoo name or a file
// (str / PathLike) into `name`; None changes nothing; anything else raises TypeError.
void read_model_argument(pybind11::handle model, std::string& name,
                         std::optional<workload::Model>& object);
// kw["progress"] when given, else None.
pybind11::object progress_argument(const pybind11::kwargs& kw);
// Before a timing run of `command`: measure::timing_environment_warnings(command) as
// UserWarnings (the lines the CLI prints on stderr).
void warn_timing_environment(const std::string& command);
// The Python exception an InputError becomes: FileNotFoundError when it is io::read_file's
// "cannot read" error about a path that does not exist, else ValueError (module.cpp and
// ml/module.cpp translate it with the CLI's one-line message, InputError::what()).
PyObject* input_error_type(const InputError& e);
// `j` as Python objects (json.loads of its text: the dict equals the CLI's JSON parsed).
pybind11::object json_object(const nlohmann::json& j);

// Runs `run(observer)` with the GIL released, a PyObserver reporting to `progress`, and returns
// its result; raises the pending KeyboardInterrupt when the observer cancelled the run.
template <class Run>
auto run_released(pybind11::object progress, Run&& run) {
  PyObserver observer(std::move(progress));
  std::optional<decltype(run(observer))> result;
  bool cancelled = false;
  {
    pybind11::gil_scoped_release nogil;
    try {
      result.emplace(run(observer));
    } catch (const search::Cancelled&) {
      cancelled = true;
    }
  }
  if (cancelled) throw pybind11::error_already_set();
  return std::move(*result);
}

// Timeloop v0.4 / Accelergy inputs: load_timeloop, TimeloopInputs.evaluate, TimeloopResult.
void bind_timeloop(pybind11::module_& m);

}  // namespace sparsemap::python
