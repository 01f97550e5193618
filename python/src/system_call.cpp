// What the functions that call a system's run() directly share (bindings.h): the observer,
// the model and path arguments, running without the GIL, and the JSON as Python objects.
#include <pybind11/stl.h>

#include <filesystem>

#include "bindings.h"
#include "sparsemap/measure/spmm_bench.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

PyObserver::PyObserver(py::object progress)
    : progress_(std::move(progress)),
      has_progress_(!progress_.is_none()),
      owner_(std::this_thread::get_id()) {}

PyObserver::~PyObserver() {
  py::gil_scoped_acquire gil;
  progress_ = py::object();
}

void PyObserver::on_progress(const search::Progress& p) {
  if (!has_progress_) return;
  py::gil_scoped_acquire gil;
  progress_(py::dict("item"_a = p.item, "items"_a = p.items, "done"_a = p.done, "total"_a = p.total,
                     "best"_a = p.best, "label"_a = p.label));
}

void PyObserver::on_warning(const std::string& text) {
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), 1) != 0) throw py::error_already_set();
}

bool PyObserver::cancelled() { return stop_requested(); }

bool PyObserver::stop_requested() {
  if (stop_) return true;
  if (std::this_thread::get_id() != owner_) return false;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  if (now < next_poll_ns_) return false;
  next_poll_ns_ = now + std::chrono::nanoseconds(kSignalPoll).count();
  py::gil_scoped_acquire gil;
  // KeyboardInterrupt (or the handler's error) is now the pending Python error.
  if (PyErr_CheckSignals() != 0) stop_ = true;
  return stop_;
}

std::string fspath(py::handle path) {
  return py::str(py::module_::import("os").attr("fspath")(path));
}

void read_model_argument(py::handle model, std::string& name,
                         std::optional<workload::Model>& object) {
  if (py::isinstance<workload::Model>(model)) {
    object = model.cast<workload::Model>();
  } else if (py::isinstance<py::str>(model) || py::hasattr(model, "__fspath__")) {
    name = fspath(model);
  } else if (!model.is_none()) {
    throw py::type_error(
        "model: expected a zoo name, a model file path (.m, .csv, .onnx) or a Model, as "
        "--model takes");
  }
}

void warn_timing_environment(const std::string& command) {
  for (const std::string& w : measure::timing_environment_warnings(command))
    if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) != 0) throw py::error_already_set();
}

py::object progress_argument(const py::kwargs& kw) {
  return kw.contains("progress") ? py::object(kw["progress"]) : py::none();
}

PyObject* input_error_type(const InputError& e) {
  // io::read_file reports an unreadable file at {path, 0, 0} with a message starting "cannot
  // read"; the path's absence on disk (checked here, not read from the text) makes it a missing
  // file rather than a directory, a permission problem or an oversized input.
  const auto& where = e.where();
  if (where.line != 0 || where.file.empty() || e.message().rfind("cannot read", 0) != 0)
    return PyExc_ValueError;
  std::error_code ec;
  return !std::filesystem::exists(where.file, ec) && !ec ? PyExc_FileNotFoundError
                                                         : PyExc_ValueError;
}

py::object json_object(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

}  // namespace sparsemap::python
