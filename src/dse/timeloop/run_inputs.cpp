// The inputs of `map` / `codesign` on a Timeloop architecture: the architecture file (read once
// per process), the tables beside it, and the layers of --model.
#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include "sparsemap/dse/timeloop/run.h"
#include "sparsemap/error.h"
#include "sparsemap/io/load_model.h"

namespace sparsemap::dse::timeloop {

namespace fs = std::filesystem;

namespace {

bool is_yaml(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

}  // namespace

const io::TimeloopInputs* arch_inputs(const std::string& path) {
  // Read once per process: `map` and `codesign` ask before they run, then run on the result.
  // Entries are never removed, so a returned pointer stays valid.
  static std::mutex lock;
  static std::map<std::string, std::optional<io::TimeloopInputs>> read;
  const std::lock_guard<std::mutex> guard(lock);
  auto it = read.find(path);
  if (it == read.end()) {
    std::optional<io::TimeloopInputs> in;
    std::error_code ec;
    if (is_yaml(path) && fs::is_regular_file(path, ec)) {
      try {
        in = io::read_timeloop_files({path});
        if (!in->arch) in.reset();
      } catch (const InputError&) {
        // not a Timeloop file: the other readers say what is wrong with it
      }
    }
    it = read.emplace(path, std::move(in)).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::string table_beside(const std::string& arch_file, const std::string& suffix,
                         const std::string& flag) {
  const fs::path dir =
      fs::path(arch_file).parent_path().empty() ? fs::path(".") : fs::path(arch_file).parent_path();
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      found.push_back(e.path().string());
  }
  if (found.size() > 1)
    throw InputError({"<flag " + flag + ">"}, "several *" + suffix + " files beside " + arch_file +
                                                  ": expected " + flag + " naming one");
  return found.empty() ? "" : found[0];
}

std::vector<NetworkLayer> load_layers(const std::string& model,
                                      const std::optional<workload::Model>& object,
                                      const workload::ZooOptions& zoo, const io::TimeloopInputs& hw,
                                      std::string& model_name) {
  std::vector<NetworkLayer> out;
  auto from_file = [&](const std::string& path) {
    const io::TimeloopInputs in = io::read_timeloop_files({path});
    if (!in.problem)
      throw InputError({path}, "expected a Timeloop problem (a top-level problem key)");
    out.push_back({fs::path(path).stem().string(), *in.problem});
  };
  auto from_model = [&](const workload::Model& m) {
    model_name = m.name;
    for (const auto& l : m.layers)
      if (workload::is_gemm_class(l.kind)) out.push_back({l.name, workload::to_einsum(l)});
  };
  if (object) {
    from_model(*object);
  } else if (model.empty()) {
    if (!hw.problem)
      throw InputError({"<flag --model>"},
                       "expected --model: the architecture file holds no problem");
    model_name = hw.problem->name;
    out.push_back({hw.problem->name, *hw.problem});
  } else if (fs::is_directory(model)) {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(model))
      if (e.is_regular_file() && is_yaml(e.path().string())) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty())
      throw InputError({model}, "expected a folder of Timeloop problem files (*.yaml)");
    for (const auto& f : files) from_file(f);
    model_name = fs::path(model).filename().string();
  } else if (is_yaml(model)) {
    from_file(model);
    model_name = out.back().name;
  } else {
    from_model(io::load_model(model, zoo));
  }
  return out;
}

}  // namespace sparsemap::dse::timeloop
