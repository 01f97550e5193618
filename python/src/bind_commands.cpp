// The CLI's search commands as Python functions returning the CLI's JSON as dicts: attention,
// schedule (and map_model / codesign on Timeloop architectures; those two, fuse and hwalloc are
// otherwise bind_map.cpp, bind_codesign.cpp, bind_fuse.cpp and bind_hwalloc.cpp, which call the
// library).
//
// Each function runs the command's own code in this process (the apps/cmd_*.cpp that the
// `sparsemap` binary runs, compiled into the module; no subprocess): its keyword arguments
// become the command's flags (foo_bar=x -> --foo-bar x; True -> a flag; None and False -> left
// out; a list -> comma-joined), its JSON (--json -) is captured from std::cout and parsed, and
// its human table goes nowhere. So the dict, the options, their defaults and every error
// message are the CLI's by construction. The GIL is released while the command runs; commands run
// one at a time per process (they share std::cout), each with the threads its options ask for.
#include <pybind11/stl.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "bindings.h"
#include "commands.h"
#include "keywords.h"
#include "sparsemap/arch/arch.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

// A file path in the temporary folder, removed when this goes out of scope.
struct TempPath {
  std::filesystem::path path;
  explicit TempPath(const std::string& suffix) {
    static std::atomic<uint64_t> counter{0};
    path = std::filesystem::temp_directory_path() / ("sparsemap-py-" + std::to_string(::getpid()) +
                                                     "-" + std::to_string(counter++) + suffix);
  }
  ~TempPath() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
};

// What one command call passes: its arguments, the temporary files they name, and the Model
// objects it hands over in memory (cli::in_memory_models, under the key that --model names).
struct Call {
  std::vector<std::string> args;
  std::vector<std::unique_ptr<TempPath>> temps;
  std::vector<std::pair<std::string, workload::Model>> models;
};

// An accelerator argument: a preset name or file (str / PathLike), or an Arch object (written
// to a temporary YAML file that --hw reads back).
std::string arch_argument(py::handle a, Call& call) {
  if (py::isinstance<arch::Arch>(a)) {
    call.temps.push_back(std::make_unique<TempPath>(".yaml"));
    std::ofstream(call.temps.back()->path) << io::write_arch_yaml(a.cast<const arch::Arch&>());
    return call.temps.back()->path.string();
  }
  return py::str(py::module_::import("os").attr("fspath")(a));
}

// A model argument: a zoo name or a file (str / PathLike), or a Model object (handed to the
// command in memory under the key "python:NAME#N", which --model then names).
std::string model_argument(py::handle m, Call& call) {
  if (py::isinstance<workload::Model>(m)) {
    static std::atomic<uint64_t> counter{0};
    const auto& model = m.cast<const workload::Model&>();
    call.models.emplace_back("python:" + model.name + "#" + std::to_string(counter++), model);
    return call.models.back().first;
  }
  if (py::isinstance<py::str>(m) || py::hasattr(m, "__fspath__"))
    return py::str(py::module_::import("os").attr("fspath")(m));
  throw py::type_error(
      "model: expected a zoo name, a model file path (.m, .csv, .onnx) or a Model, as --model "
      "takes");
}

Call model_call(py::handle model, Call call = {}) {
  if (!model.is_none()) {
    const std::string key = model_argument(model, call);
    call.args.insert(call.args.begin(), {"--model", key});
  }
  return call;
}

using Register = void (*)(CLI::App&);

// The Model objects of a call, in cli::in_memory_models while the command runs.
struct InMemoryModels {
  const Call& call;
  explicit InMemoryModels(const Call& c) : call(c) {
    for (const auto& [key, model] : call.models) cli::in_memory_models()[key] = model;
  }
  ~InMemoryModels() {
    for (const auto& kv : call.models) cli::in_memory_models().erase(kv.first);
  }
};

// Runs `sparsemap <command> <args> --json - --quiet` in this process; the JSON as Python
// objects. InputError propagates (ValueError / FileNotFoundError with the CLI's line); a CLI11
// parse error (unknown option, bad number) becomes ValueError with CLI11's first line.
py::object run_command(const std::string& command, Register reg, Call call,
                       const py::kwargs& options) {
  std::vector<std::string>& args = call.args;
  for (auto item : options) {
    const std::string key = py::str(item.first);
    if (key == "json" || key == "quiet")
      throw py::value_error(key + ": the function returns the JSON as a dict; it takes no --" +
                            key);
    if (item.second.is_none()) continue;
    std::string flag = "--" + key;
    for (char& c : flag)
      if (c == '_') c = '-';
    if (py::isinstance<py::bool_>(item.second)) {
      if (item.second.cast<bool>()) args.push_back(flag);
      continue;
    }
    const std::string arg =
        key == "hw" ? arch_argument(item.second, call) : flag_value(item.second);
    args.push_back(flag);
    args.push_back(arg);
  }
  args.insert(args.begin(), {"sparsemap", command});
  args.insert(args.end(), {"--json", "-", "--quiet"});
  std::string parse_error;
  std::ostringstream captured;  // with --json -, the commands write only the JSON there
  {
    py::gil_scoped_release nogil;
    static std::mutex one_at_a_time;
    const std::lock_guard<std::mutex> lock(one_at_a_time);
    const InMemoryModels models(call);
    CLI::App app{"sparsemap"};
    app.require_subcommand(1);
    cli::configure_cli(app);
    reg(app);
    cli::check_seed_options(app);
    std::vector<const char*> argv;
    for (const auto& s : args) argv.push_back(s.c_str());
    std::streambuf* out = std::cout.rdbuf(captured.rdbuf());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
      parse_error = e.what();
    } catch (...) {
      std::cout.rdbuf(out);
      throw;
    }
    std::cout.rdbuf(out);
  }
  if (!parse_error.empty()) throw py::value_error(parse_error);
  // The JSON is the last thing written: from the first line that opens an object or array at
  // column 0 (json.dump(2) indents everything inside it).
  const std::string text = captured.str();
  size_t at = text.empty() ? std::string::npos : 0;
  if (!text.empty() && text[0] != '{' && text[0] != '[') {
    at = std::min(text.find("\n{"), text.find("\n["));
    if (at != std::string::npos) ++at;
  }
  if (at == std::string::npos) throw std::runtime_error("sparsemap " + command + " wrote no JSON");
  return py::module_::import("json").attr("loads")(text.substr(at));
}

}  // namespace

py::object map_model_command(py::object model, py::object arch, py::object algo, py::object budget,
                             py::object seed, py::object threads, py::kwargs kw) {
  Call call;
  call.args = {"--hw", arch_argument(arch, call)};
  kw["algo"] = algo;
  kw["budget"] = budget;
  kw["seed"] = seed;
  kw["threads"] = threads;
  return run_command("map", cli::register_map, model_call(model, std::move(call)), kw);
}

py::object codesign_command(py::object model, py::object platform, py::object budget,
                            py::object seed, py::object threads, py::kwargs kw) {
  kw["platform"] = platform;
  kw["budget"] = budget;
  kw["seed"] = seed;
  kw["threads"] = threads;
  return run_command("codesign", cli::register_codesign, model_call(model), kw);
}

void bind_commands(py::module_& m) {
  const std::string how =
      " `model` is what --model takes (a zoo name or a file) or a Model object; an accelerator "
      "(hw=) a preset, a file or an Arch object. Other keyword arguments are the command's "
      "flags (foo_bar=x for --foo-bar x, True for a flag); defaults are the CLI's. Returns the "
      "dict the CLI writes with --json. Bad arguments raise ValueError (FileNotFoundError for a "
      "missing file) with the CLI's line.";
  bind_map(m, how);
  bind_codesign(m, how);
  m.def(
      "attention",
      [](py::object model, py::kwargs kw) {
        if (py::isinstance<workload::Model>(model))  // its --model is a shape name, not a model
          throw py::type_error("model: attention takes FLAT's names or a zoo transformer name");
        return run_command("attention", cli::register_attention, model_call(model), kw);
      },
      "model"_a = py::none(),
      ("`sparsemap attention`: FLAT's fused attention dataflow vs the unfused baseline per "
       "sequence length (seq='512,4K'); model: FLAT's names (bert, trxl, t5, xlm) or a zoo "
       "transformer name. Other keyword arguments are the command's flags; see map_model."));
  bind_fuse(m, how);
  m.def(
      "schedule",
      [](py::kwargs kw) { return run_command("schedule", cli::register_schedule, {}, kw); },
      ("`sparsemap schedule`: G# multi-tenant scheduling (jobs=, platform=, job_table=, "
       "algo=)." +
       how)
          .c_str());
  bind_hwalloc(m, how);
}

}  // namespace sparsemap::python
