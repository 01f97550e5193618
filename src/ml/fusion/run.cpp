// `sparsemap fuse-train`'s work as a library call: the checks of every flag, training and the
// JSON (run.h).
#include "sparsemap/ml/fusion/run.h"

#include <filesystem>

#include "sparsemap/error.h"
#include "sparsemap/io/util.h"
#include "sparsemap/search/driver.h"

namespace sparsemap::ml::fusion {

namespace {

// "4,16,64" -> {4, 16, 64}; InputError at "<flag FLAG>" for an item not in [1, max] or no item.
std::vector<int64_t> int_list(const std::string& s, const char* flag, int64_t max) {
  std::vector<int64_t> v;
  for (const auto& item : io::split_list(s)) {
    try {
      size_t used = 0;
      const long long x = std::stoll(item, &used);
      if (used != item.size() || x < 1 || x > max) throw std::invalid_argument(item);
      v.push_back(x);
    } catch (const std::exception&) {
      throw InputError(
          {std::string("<flag ") + flag + ">", 0, 0},
          "expected integers from 1 to " + std::to_string(max) + ", got " + quote_input(item));
    }
  }
  if (v.empty()) throw InputError({std::string("<flag ") + flag + ">", 0, 0}, "expected a list");
  return v;
}

// The trainer's options from the command's (check_lists' checks included).
TrainOptions train_options(const Options& a) {
  TrainOptions o;
  o.models = io::split_list(a.models);
  o.batches = int_list(a.batches, "--batches", 4096);
  o.buffers_kb = int_list(a.buffers_kb, "--buffers-kb", int64_t{1} << 30);
  o.hw = a.hw;
  o.objective = dse::fusion::parse_objective(a.objective);
  if (a.expert != "search" && a.expert != "dp")
    throw InputError({"<flag --expert>", 0, 0},
                     "expected search or dp, got " + quote_input(a.expert));
  o.expert = a.expert;
  o.search_budget = a.search_budget;
  o.draws_per_model = a.draws;
  o.epochs = a.epochs;
  o.minibatch = a.minibatch;
  o.lr = a.lr;
  if (!(a.fuse_weight > 0 && a.fuse_weight <= 100))
    throw InputError({"<flag --fuse-weight>", 0, 0}, "expected a weight in (0, 100]");
  o.fuse_weight = a.fuse_weight;
  o.seed = a.seed;
  o.threads = a.threads;
  o.config.d_model = a.d_model;
  o.config.layers = a.layers;
  o.config.heads = a.heads;
  if (a.d_model < 4 || a.d_model > 1024 || a.heads < 1 || a.d_model % a.heads != 0 ||
      a.layers < 1 || a.layers > 16)
    throw InputError({"<flag --d-model>", 0, 0},
                     "expected 4 <= d-model <= 1024 divisible by --heads, 1 to 16 layers");
  o.out = a.out;
  o.checkpoint = a.checkpoint;
  // Training resumes only from the checkpoint directory of an earlier fuse-train run: a model
  // file (the shipped fuser.bin, or the .pt that --out writes) holds neither the optimizer
  // state nor the trajectories.
  if (!a.checkpoint.empty() && std::filesystem::exists(a.checkpoint) &&
      !std::filesystem::is_directory(a.checkpoint))
    throw InputError({a.checkpoint, 0, 0},
                     "not a directory: --checkpoint takes the directory of a fuse-train run "
                     "(trajectories.json, state.pt, optimizer.pt); training does not resume "
                     "from a model file");
  return o;
}

// The counts, each blamed by its flag.
void check_counts(const Options& a) {
  if (a.search_budget < 1 || a.search_budget > search::kMaxBudget)
    throw InputError({"<flag --search-budget>", 0, 0},
                     "expected 1 to " + std::to_string(search::kMaxBudget) + " samples");
  if (a.epochs < 1 || a.epochs > 100000)
    throw InputError({"<flag --epochs>", 0, 0}, "expected 1 to 100000 epochs");
  if (a.draws < 1 || a.draws > 100000)
    throw InputError({"<flag --draws>", 0, 0}, "expected 1 to 100000 draws per model");
  if (a.minibatch < 1 || a.minibatch > 100000)
    throw InputError({"<flag --minibatch>", 0, 0}, "expected 1 to 100000 trajectories per step");
  if (!(a.lr > 0 && a.lr < 10))
    throw InputError({"<flag --lr>", 0, 0}, "expected a learning rate in (0, 10)");
  if (a.threads < 1 || a.threads > 256)
    throw InputError({"<flag --threads>", 0, 0}, "expected 1 to 256 threads");
}

}  // namespace

void check_lists(const Options& o) { train_options(o); }

Result run(const Options& o, search::Observer& observer) {
  const TrainOptions t = train_options(o);
  check_counts(o);
  Result r;
  r.options = o;
  r.report = train(t, observer);
  return r;
}

nlohmann::json to_json(const Result& res) {
  const TrainReport& r = res.report;
  return {{"out", res.options.out},     {"trajectories", r.trajectories},
          {"parameters", r.parameters}, {"epochs", r.epochs},
          {"data_s", r.data_s},         {"train_s", r.train_s},
          {"final_loss", r.final_loss}, {"train_accuracy_pct", r.train_accuracy_pct},
          {"resumed", r.resumed}};
}

}  // namespace sparsemap::ml::fusion
