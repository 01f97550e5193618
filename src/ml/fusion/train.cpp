// fuse-train: expert trajectories from the fusion search mapper, then teacher-forced training of
// the decision transformer, with checkpoints and resume (dnnfuser.h).
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "dnnfuser_net.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/dse/fusion/synthetic_models.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/util.h"
#include "sparsemap/ml/fusion/dnnfuser.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::ml::fusion {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

workload::Model build_model(const std::string& name, int64_t batch) {
  if (name.rfind("synth-", 0) == 0)
    return dse::fusion::synthetic_cnn(std::stoull(name.substr(6)), batch);
  workload::ZooOptions zo;
  zo.batch = batch;
  return workload::zoo_model(name, zo);
}

json trajectory_json(const Trajectory& t) {
  return {{"model", t.model},
          {"batch", t.batch},
          {"buffer_bytes", t.buffer_bytes},
          {"conditions", t.conditions},
          {"states", t.states},
          {"actions", t.actions},
          {"expert_objective", t.expert_objective}};
}

Trajectory trajectory_from(const json& j) {
  Trajectory t;
  t.model = j.at("model").get<std::string>();
  t.batch = j.at("batch").get<int64_t>();
  t.buffer_bytes = j.at("buffer_bytes").get<int64_t>();
  t.conditions = j.at("conditions").get<std::vector<std::vector<float>>>();
  t.states = j.at("states").get<std::vector<std::vector<float>>>();
  t.actions = j.at("actions").get<std::vector<int>>();
  t.expert_objective = j.at("expert_objective").get<double>();
  const size_t n = t.actions.size();
  bool ok = n > 0 && t.conditions.size() == n && t.states.size() == n;
  for (size_t i = 0; ok && i < n; ++i)
    ok = t.conditions[i].size() == static_cast<size_t>(kConditionDims) &&
         t.states[i].size() == static_cast<size_t>(kStateDims) && t.actions[i] >= 0 &&
         t.actions[i] < kActions;
  if (!ok) throw std::invalid_argument("a trajectory of the wrong shape");
  return t;
}

// The expert trajectories, resumed from `file` when it holds some.
std::vector<Trajectory> make_data(const TrainOptions& o, const std::string& file,
                                  search::Observer& observer) {
  std::vector<Trajectory> data;
  if (!file.empty() && std::filesystem::exists(file)) {
    const json all = io::read_json(file, "fuse-train trajectories");
    try {
      if (!all.is_array()) throw std::invalid_argument("not an array");
      for (const json& j : all) data.push_back(trajectory_from(j));
    } catch (const std::exception&) {
      throw InputError({file, 0, 0},
                       "not fuse-train trajectories (expected an array of model, batch, "
                       "buffer_bytes, conditions, states, actions, expert_objective)");
    }
  }
  const arch::Arch hw = io::load_arch(o.hw);
  const std::vector<std::string> models = expand_models(o.models);
  const size_t total = models.size() * static_cast<size_t>(o.draws_per_model);
  size_t k = 0;
  for (size_t mi = 0; mi < models.size(); ++mi) {
    std::mt19937_64 rng(o.seed * 1000003 + mi);
    for (int d = 0; d < o.draws_per_model; ++d, ++k) {
      const int64_t batch = o.batches[rng() % o.batches.size()];
      const int64_t buf_kb = o.buffers_kb[rng() % o.buffers_kb.size()];
      if (k < data.size()) continue;  // resumed
      cost::FusionOptions fo;
      fo.dataflow = o.dataflow;
      fo.buffer_bytes = buf_kb * 1024;
      const cost::FusionCostModel m(cost::fusion_graph(build_model(models[mi], batch), batch), hw,
                                    fo);
      dse::fusion::SearchOptions so;
      so.budget = o.search_budget;
      so.seed = o.seed + k;
      const dse::fusion::FusionResult r = o.expert == "dp"
                                              ? dse::fusion::dp(m, o.objective)
                                              : dse::fusion::search(m, o.objective, so);
      data.push_back(
          trajectory_of(m, r.mapping, dse::fusion::objective_value(r.cost, o.objective)));
      if (!file.empty() && (k + 1) % 10 == 0) {
        json all = json::array();
        for (const auto& t : data) all.push_back(trajectory_json(t));
        search::write_json_atomic(all, file);
      }
      search::Progress p;
      p.item = 0;
      p.items = 2;
      p.done = static_cast<int64_t>(k + 1);
      p.total = static_cast<int64_t>(total);
      p.label = models[mi] + " batch " + std::to_string(batch) + " buffer " +
                std::to_string(buf_kb) + " KiB";
      search::report_progress(observer, p);
    }
  }
  if (!file.empty()) {
    json all = json::array();
    for (const auto& t : data) all.push_back(trajectory_json(t));
    search::write_json_atomic(all, file);
  }
  return data;
}

struct Batch {
  torch::Tensor cond, state, act, target, valid;
};

Batch make_batch(const std::vector<Trajectory>& data, const std::vector<size_t>& idx) {
  int64_t n = 0;
  for (size_t i : idx) n = std::max<int64_t>(n, static_cast<int64_t>(data[i].actions.size()));
  const int64_t b = static_cast<int64_t>(idx.size());
  Batch x;
  x.cond = torch::zeros({b, n, kConditionDims});
  x.state = torch::zeros({b, n, kStateDims});
  x.act = torch::full({b, n}, kActions, torch::kLong);
  x.target = torch::zeros({b, n}, torch::kLong);
  x.valid = torch::zeros({b, n});
  auto c = x.cond.accessor<float, 3>();
  auto s = x.state.accessor<float, 3>();
  auto a = x.act.accessor<int64_t, 2>();
  auto t = x.target.accessor<int64_t, 2>();
  auto v = x.valid.accessor<float, 2>();
  for (int64_t r = 0; r < b; ++r) {
    const Trajectory& tr = data[idx[r]];
    for (size_t i = 0; i < tr.actions.size(); ++i) {
      for (int f = 0; f < kConditionDims; ++f) c[r][i][f] = tr.conditions[i][f];
      for (int f = 0; f < kStateDims; ++f) s[r][i][f] = tr.states[i][f];
      a[r][i] = tr.actions[i];
      t[r][i] = tr.actions[i];
      v[r][i] = 1;
    }
  }
  return x;
}

// Fails before any work when the model files cannot be written: --out empty, a directory, in
// a folder that does not exist or is not writable, or ending in .bin (the plain weights' name).
void check_outputs(const TrainOptions& o) {
  if (o.out.empty()) throw InputError({"<flag --out>", 0, 0}, "expected --out FILE");
  namespace fs = std::filesystem;
  const fs::path out(o.out);
  if (out.extension() == ".bin")
    throw InputError({"<flag --out>", 0, 0},
                     "expected a torch archive name such as model.pt (the plain weights are "
                     "written beside it as .bin)");
  std::error_code ec;
  if (fs::is_directory(out, ec))
    throw InputError({o.out, 0, 0}, "is a directory (expected a model file name)");
  const fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0)
    throw InputError({o.out, 0, 0}, "cannot write here: folder '" + dir.string() +
                                        "' does not exist or is not writable");
}

}  // namespace

std::vector<std::string> expand_models(const std::vector<std::string>& models) {
  std::vector<std::string> out;
  for (const auto& m : models) {
    if (m.rfind("synth:", 0) == 0) {
      const std::string k = m.substr(6);
      if (k.empty() || k.size() > 5 || k.find_first_not_of("0123456789") != std::string::npos)
        throw InputError({"<flag --models>", 0, 0}, "expected synth:K with K a number, got " + m);
      for (int i = 1; i <= std::stoi(k); ++i) out.push_back("synth-" + std::to_string(i));
    } else {
      const std::string c = workload::zoo_canonical_name(m);
      if (c.empty()) throw InputError({"<flag --models>", 0, 0}, "unknown model '" + m + "'");
      out.push_back(c);
    }
  }
  if (out.empty()) throw InputError({"<flag --models>", 0, 0}, "expected at least one model");
  return out;
}

TrainReport train(const TrainOptions& o) {
  search::Observer quiet;
  return train(o, quiet);
}

TrainReport train(const TrainOptions& o, search::Observer& observer) {
  if (o.batches.empty() || o.buffers_kb.empty() || o.epochs < 1 || o.minibatch < 1 ||
      o.draws_per_model < 1 || o.search_budget < 1 || (o.expert != "search" && o.expert != "dp"))
    throw InputError({"<fuse-train>", 0, 0}, "expected batches, buffers, and positive counts");
  check_outputs(o);
  if (o.threads > 0) torch::set_num_threads(o.threads);
  TrainReport rep;
  std::string traj_file, state_file, opt_file;
  if (!o.checkpoint.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.checkpoint, ec);
    if (ec || !std::filesystem::is_directory(o.checkpoint))
      throw InputError({o.checkpoint, 0, 0}, "cannot create the checkpoint directory");
    traj_file = o.checkpoint + "/trajectories.json";
    state_file = o.checkpoint + "/state.pt";
    opt_file = o.checkpoint + "/optimizer.pt";
  }
  auto t0 = Clock::now();
  const std::vector<Trajectory> data = make_data(o, traj_file, observer);
  rep.data_s = since(t0);
  rep.trajectories = static_cast<int64_t>(data.size());
  for (const auto& t : data)
    if (static_cast<int>(t.actions.size()) > o.config.max_nodes)
      throw InputError({"<fuse-train>", 0, 0}, t.model + " has more layers than --max-nodes");

  torch::manual_seed(static_cast<uint64_t>(o.seed));
  FuserConfig cfg = o.config;
  DtNet net(cfg);
  int64_t start_epoch = 0;
  if (!state_file.empty() && std::filesystem::exists(state_file)) {
    FuserConfig c2;
    net = load_net(state_file, &c2, &start_epoch);
    cfg = c2;
    rep.resumed = true;
  }
  torch::optim::AdamW opt(net->parameters(), torch::optim::AdamWOptions(o.lr).weight_decay(1e-4));
  if (rep.resumed && std::filesystem::exists(opt_file)) {
    try {
      torch::load(opt, opt_file);
    } catch (const c10::Error&) {
      throw InputError({opt_file, 0, 0}, "not this training's optimizer state (torch archive)");
    }
  }
  rep.parameters = 0;
  for (const auto& p : net->parameters()) rep.parameters += p.numel();

  t0 = Clock::now();
  std::mt19937_64 rng(o.seed);
  std::vector<size_t> order(data.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (int64_t e = 0; e < start_epoch; ++e) std::shuffle(order.begin(), order.end(), rng);
  double loss_sum = 0;
  for (int64_t epoch = start_epoch; epoch < o.epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    net->train();
    loss_sum = 0;
    int64_t steps = 0;
    for (size_t at = 0; at < order.size(); at += static_cast<size_t>(o.minibatch)) {
      if (observer.cancelled()) throw search::Cancelled();
      const std::vector<size_t> idx(
          order.begin() + static_cast<long>(at),
          order.begin() + static_cast<long>(std::min(order.size(), at + o.minibatch)));
      const Batch b = make_batch(data, idx);
      const torch::Tensor logits = net->forward(b.cond, b.state, b.act);
      const torch::Tensor ce = torch::nn::functional::cross_entropy(
          logits.reshape({-1, kActions}), b.target.reshape({-1}),
          torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
      // Weights: 0 on padding, fuse_weight on the expert's fuse actions (even), 1 on cuts.
      const torch::Tensor fuse = (b.target.remainder(2) == 0).to(torch::kFloat);
      const torch::Tensor wt = (b.valid * (1.0 + (o.fuse_weight - 1.0) * fuse)).reshape({-1});
      const torch::Tensor loss = (ce * wt).sum() / wt.sum();
      opt.zero_grad();
      loss.backward();
      torch::nn::utils::clip_grad_norm_(net->parameters(), 1.0);
      opt.step();
      loss_sum += loss.item<double>();
      ++steps;
    }
    rep.final_loss = loss_sum / static_cast<double>(std::max<int64_t>(1, steps));
    rep.epochs = static_cast<int>(epoch + 1);
    if (!state_file.empty()) {
      save_net(net, cfg, state_file + ".tmp", epoch + 1);
      torch::save(opt, opt_file + ".tmp");
      std::filesystem::rename(state_file + ".tmp", state_file);
      std::filesystem::rename(opt_file + ".tmp", opt_file);
    }
    search::Progress p;
    p.item = 1;
    p.items = 2;
    p.done = epoch + 1;
    p.total = o.epochs;
    p.best = rep.final_loss;
    p.label = "training";
    search::report_progress(observer, p);
  }
  rep.train_s = since(t0);
  // Per-action accuracy on the training set (teacher forcing).
  net->eval();
  {
    torch::NoGradGuard ng;
    double right = 0, all = 0;
    for (size_t at = 0; at < order.size(); at += 64) {
      std::vector<size_t> idx;
      for (size_t i = at; i < std::min(order.size(), at + 64); ++i) idx.push_back(i);
      const Batch b = make_batch(data, idx);
      const torch::Tensor pred = net->forward(b.cond, b.state, b.act).argmax(-1);
      right += ((pred == b.target).to(torch::kFloat) * b.valid).sum().item<double>();
      all += b.valid.sum().item<double>();
    }
    rep.train_accuracy_pct = all > 0 ? 100.0 * right / all : 0;
  }
  save_net(net, cfg, o.out, rep.epochs);
  dse::fusion::write_fuser_weights(extract_weights(net, cfg),
                                   dse::fusion::fuser_weights_path(o.out));
  return rep;
}

}  // namespace sparsemap::ml::fusion
