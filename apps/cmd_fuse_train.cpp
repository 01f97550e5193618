// `sparsemap fuse-train`: trains the DNNFuser-style learned fusion mapper on the search
// mapper's trajectories (ml/fusion), with progress on a terminal and checkpoint/resume.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/search/driver.h"

#ifdef SPARSEMAP_HAVE_TORCH
#include "sparsemap/ml/fusion/dnnfuser.h"
#endif

namespace sparsemap::cli {

namespace {

struct FuseTrainArgs {
  std::string models = "synth:160,resnet50", batches = "4,16,64",
              buffers_kb = "128,256,512,1024,2048";
  std::string hw = "flat-edge", objective = "latency", expert = "dp", out, checkpoint, json;
  int64_t search_budget = 2000, minibatch = 16;
  int draws = 6, epochs = 16, d_model = 32, layers = 2, heads = 4, threads = 1;
  double lr = 1e-3, fuse_weight = 4.0;
  uint64_t seed = 1;
  bool quiet = false;
};

[[maybe_unused]] std::vector<int64_t> int_list(const std::string& s, const char* flag,
                                               int64_t max) {
  std::vector<int64_t> v;
  for (const auto& item : split_list(s)) {
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

void run(const FuseTrainArgs& a) {
#ifdef SPARSEMAP_HAVE_TORCH
  ml::fusion::TrainOptions o;
  o.models = split_list(a.models);
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
  check_output_file(a.json, "--json");
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
  const bool tty = !a.quiet && isatty(2);
  if (tty)
    o.progress = [](const std::string& line, bool) {
      std::fprintf(stderr, "\r%-100s", line.c_str());
      std::fflush(stderr);
    };
  const ml::fusion::TrainReport r = ml::fusion::train(o);
  if (tty) std::fprintf(stderr, "\n");
  Table t({"trajectories", "parameters", "epochs", "data s", "train s", "loss", "accuracy %"});
  t.add({std::to_string(r.trajectories), with_commas(r.parameters), std::to_string(r.epochs),
         fixed(r.data_s, 1), fixed(r.train_s, 1), fixed(r.final_loss, 4),
         fixed(r.train_accuracy_pct, 1)});
  std::cout << "fuse-train -> " << a.out << (r.resumed ? " (resumed)" : "") << "\n" << t.str();
  if (!a.json.empty())
    write_json({{"out", a.out},
                {"trajectories", r.trajectories},
                {"parameters", r.parameters},
                {"epochs", r.epochs},
                {"data_s", r.data_s},
                {"train_s", r.train_s},
                {"final_loss", r.final_loss},
                {"train_accuracy_pct", r.train_accuracy_pct},
                {"resumed", r.resumed}},
               a.json);
#else
  (void)a;
  hand_over_to_torch_build();  // returns only when there is no sparsemap-ml
  throw InputError({"<fuse-train>", 0, 0},
                   "this sparsemap was built without libtorch (SPARSEMAP_WITH_TORCH=OFF)");
#endif
}

}  // namespace

void register_fuse_train(CLI::App& app) {
  auto a = std::make_shared<FuseTrainArgs>();
  CLI::App* c = app.add_subcommand(
      "fuse-train", "Train the learned fusion mapper (DNNFuser) on search trajectories");
  c->add_option("--models", a->models, "zoo CNNs and synth:K (K synthetic CNNs)")
      ->capture_default_str();
  c->add_option("--batches", a->batches, "batch sizes drawn from")->capture_default_str();
  c->add_option("--buffers-kb", a->buffers_kb, "buffer budgets drawn from, KiB")
      ->capture_default_str();
  c->add_option("--draws", a->draws, "(batch, buffer) draws per model")->capture_default_str();
  c->add_option("--hw", a->hw, "accelerator preset or file")->capture_default_str();
  c->add_option("--objective", a->objective, "latency|energy|edp")->capture_default_str();
  c->add_option("--expert", a->expert, "the mapper whose mappings are learned: search|dp")
      ->capture_default_str();
  c->add_option("--search-budget", a->search_budget, "GA samples per trajectory")
      ->capture_default_str();
  c->add_option("--epochs", a->epochs, "training epochs")->capture_default_str();
  c->add_option("--minibatch", a->minibatch, "trajectories per step")->capture_default_str();
  c->add_option("--lr", a->lr, "AdamW learning rate")->capture_default_str();
  c->add_option("--fuse-weight", a->fuse_weight, "loss weight of the expert's fuse actions")
      ->capture_default_str();
  c->add_option("--d-model", a->d_model, "transformer width")->capture_default_str();
  c->add_option("--layers", a->layers, "transformer blocks")->capture_default_str();
  c->add_option("--heads", a->heads, "attention heads")->capture_default_str();
  c->add_option("--seed", a->seed, "seed")->capture_default_str();
  c->add_option("--threads", a->threads, "libtorch threads")->capture_default_str();
  c->add_option("--out", a->out, "the trained model, FILE.pt (the plain weights go to FILE.bin)")
      ->required();
  c->add_option("--checkpoint", a->checkpoint,
                "directory for trajectories and training state (trajectories.json, state.pt, "
                "optimizer.pt); a directory from an earlier run is resumed. Training resumes "
                "from this directory only, never from a model (.pt or the shipped .bin)");
  c->add_option("--json", a->json, "write JSON to FILE or - (stdout)");
  c->add_flag("--quiet", a->quiet, "no progress");
  c->callback([a]() { run(*a); });
}

}  // namespace sparsemap::cli
