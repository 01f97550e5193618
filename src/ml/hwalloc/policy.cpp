// ConfuciuX's LSTM policy and its REINFORCE / actor-critic updates (the only hwalloc file that
// includes libtorch).
#include "sparsemap/ml/hwalloc/policy.h"

#include <torch/torch.h>

#include <cmath>
#include <sstream>

#include "sparsemap/error.h"

namespace sparsemap::ml::hwalloc {

namespace {

struct NetImpl : torch::nn::Module {
  NetImpl(int state_size, int actions, int hidden, bool critic)
      : dims(7), actions_(actions), hidden_(hidden) {
    enc_dims = register_module("enc_dims", torch::nn::Linear(7, 10));
    enc_status = register_module("enc_status", torch::nn::Linear(1, 10));
    enc_actions = register_module("enc_actions", torch::nn::Linear(actions, 10));
    fc1 = register_module("fc1", torch::nn::Linear(30, hidden));
    fc2 = register_module("fc2", torch::nn::Linear(hidden, hidden));
    fc3 = register_module("fc3", torch::nn::Linear(hidden, hidden));
    lstm = register_module("lstm", torch::nn::LSTMCell(hidden, hidden));
    for (int a = 0; a < actions; ++a) {
      const int n = levels_of(a);
      heads1.push_back(
          register_module("head" + std::to_string(a) + "a", torch::nn::Linear(hidden, n)));
      heads2.push_back(register_module("head" + std::to_string(a) + "b", torch::nn::Linear(n, n)));
    }
    if (critic) value = register_module("value", torch::nn::Linear(hidden, 1));
    (void)state_size;
  }
  // state: [7 dims, position, actions..., step]; returns per-head probabilities (1 x n each),
  // the value (or undefined) and the new LSTM state.
  std::vector<torch::Tensor> forward(const torch::Tensor& s,
                                     std::tuple<torch::Tensor, torch::Tensor>& hc,
                                     torch::Tensor& v) {
    auto x1 = enc_dims->forward(s.slice(0, 0, 7)).unsqueeze(0);
    auto x2 = enc_actions->forward(s.slice(0, 8, 8 + actions_)).unsqueeze(0);
    auto x3 = enc_status->forward(s.slice(0, 7, 8)).unsqueeze(0);
    auto x = torch::cat({x1, x2, x3}, 1);
    x = torch::relu(fc1->forward(x));
    x = torch::relu(fc2->forward(x));
    x = torch::relu(fc3->forward(x));
    hc = lstm->forward(x, hc);
    const auto h = std::get<0>(hc);
    std::vector<torch::Tensor> probs;
    for (size_t a = 0; a < heads1.size(); ++a)
      probs.push_back(torch::softmax(heads2[a]->forward(torch::relu(heads1[a]->forward(h))), 1));
    if (value) v = value->forward(h).squeeze();
    return probs;
  }
  int dims;
  int actions_, hidden_;
  torch::nn::Linear enc_dims{nullptr}, enc_status{nullptr}, enc_actions{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr}, value{nullptr};
  torch::nn::LSTMCell lstm{nullptr};
  std::vector<torch::nn::Linear> heads1, heads2;
};
TORCH_MODULE(Net);

// (x - mean) / (std + 2^-12), population std (numpy's default, as upstream).
std::vector<double> standardise(const std::vector<double>& x) {
  if (x.empty()) return x;
  double m = 0;
  for (double v : x) m += v;
  m /= double(x.size());
  double var = 0;
  for (double v : x) var += (v - m) * (v - m);
  const double sd = std::sqrt(var / double(x.size()));
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = (x[i] - m) / (sd + std::ldexp(1.0, -12));
  return out;
}

}  // namespace

struct Agent::Impl {
  Impl(int state_size, int actions, const PolicyOptions& o, uint64_t seed)
      : opts(o),
        actions(actions),
        net((torch::manual_seed(seed), Net(state_size, actions, o.hidden, o.algorithm == "a2c"))),
        adam(net->parameters(), torch::optim::AdamOptions(o.lr)) {}
  PolicyOptions opts;
  int actions;
  Net net;
  torch::optim::Adam adam;
  int64_t episodes = 0;
  bool succeeded_once = false;
  double lr = 0;
};

Agent::Agent(int state_size, int actions, const PolicyOptions& options, uint64_t seed) {
  if (options.algorithm != "reinforce" && options.algorithm != "a2c")
    throw InputError({"<policy>", 0, 0}, "expected reinforce|a2c");
  if (state_size != 7 + 1 + actions + 1) throw InputError({"<policy>", 0, 0}, "bad state size");
  impl_ = std::make_unique<Impl>(state_size, actions, options, seed);
  impl_->lr = options.lr;
}

Agent::~Agent() = default;

int64_t Agent::episodes() const { return impl_->episodes; }

bool Agent::episode(dse::hwalloc::RlEnv& env, dse::hwalloc::Rng& rng) {
  Impl& m = *impl_;
  std::vector<float> s = env.reset(rng, m.opts.shuffle);
  std::tuple<torch::Tensor, torch::Tensor> hc = {torch::zeros({1, m.opts.hidden}),
                                                 torch::zeros({1, m.opts.hidden})};
  std::vector<torch::Tensor> logps, values, entropies;
  std::vector<double> rewards;
  bool succeeded = false, valid = true;
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  while (true) {
    const torch::Tensor st = torch::from_blob(s.data(), {int64_t(s.size())}, torch::kFloat).clone();
    torch::Tensor v;
    const auto probs = m.net->forward(st, hc, v);
    std::vector<int> levels;
    torch::Tensor lp = torch::zeros({});
    torch::Tensor ent = torch::zeros({});
    for (const torch::Tensor& p : probs) {
      const auto acc = p.accessor<float, 2>();
      const double u = unif(rng);
      double c = 0;
      int a = int(p.size(1)) - 1;
      for (int k = 0; k < p.size(1); ++k) {
        c += acc[0][k];
        if (u < c) {
          a = k;
          break;
        }
      }
      levels.push_back(a);
      lp = lp + torch::log(p[0][a] + 1e-12);
      ent = ent - (p * torch::log(p + 1e-12)).sum();
    }
    const auto step = env.step(levels);
    logps.push_back(lp);
    entropies.push_back(ent);
    if (v.defined()) values.push_back(v);
    rewards.push_back(step.reward);
    if (step.refused) valid = false;
    s = step.state;
    if (step.done) {
      succeeded = step.succeeded;
      break;
    }
  }
  ++m.episodes;
  if (succeeded) m.succeeded_once = true;
  if (valid) {
    // Returns: standardise the rewards, discount, standardise again (upstream's learn()).
    const std::vector<double> r = standardise(rewards);
    std::vector<double> g(r.size());
    double acc = 0;
    for (size_t i = r.size(); i-- > 0;) g[i] = acc = r[i] + m.opts.gamma * acc;
    g = standardise(g);
    torch::Tensor loss = torch::zeros({});
    for (size_t t = 0; t < logps.size(); ++t) {
      if (m.opts.algorithm == "a2c") {
        const torch::Tensor adv = (torch::tensor(float(g[t])) - values[t]).detach();
        loss = loss - logps[t] * adv + 0.5 * (torch::tensor(float(g[t])) - values[t]).pow(2) -
               m.opts.entropy * entropies[t];
      } else {
        loss = loss - logps[t] * float(g[t]);
      }
    }
    m.adam.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(m.net->parameters(), 100.0);
    torch::nn::utils::clip_grad_norm_(m.net->lstm->parameters(), 10.0);
    m.adam.step();
  }
  if ((m.episodes + 1) % 100 == 0 && m.succeeded_once) {
    m.lr = std::max(1e-6, m.lr * 0.8);
    for (auto& group : m.adam.param_groups())
      static_cast<torch::optim::AdamOptions&>(group.options()).lr(m.lr);
  }
  return succeeded;
}

std::string Agent::save() const {
  torch::serialize::OutputArchive ar;
  impl_->net->save(ar);
  torch::serialize::OutputArchive optim;
  impl_->adam.save(optim);
  ar.write("optimizer", optim);
  ar.write("episodes", c10::IValue(impl_->episodes));
  ar.write("succeeded_once", c10::IValue(impl_->succeeded_once));
  ar.write("lr", c10::IValue(impl_->lr));
  std::ostringstream out;
  ar.save_to(out);
  return out.str();
}

void Agent::load(const std::string& bytes) {
  torch::serialize::InputArchive ar;
  std::istringstream in(bytes);
  try {
    ar.load_from(in);
    impl_->net->load(ar);
    torch::serialize::InputArchive optim;
    ar.read("optimizer", optim);
    impl_->adam.load(optim);
    c10::IValue e, s, lr;
    ar.read("episodes", e);
    ar.read("succeeded_once", s);
    ar.read("lr", lr);
    impl_->episodes = e.toInt();
    impl_->succeeded_once = s.toBool();
    impl_->lr = lr.toDouble();
    for (auto& group : impl_->adam.param_groups())  // the decayed rate, whatever the archive held
      static_cast<torch::optim::AdamOptions&>(group.options()).lr(impl_->lr);
  } catch (const c10::Error&) {
    throw InputError({"<checkpoint>", 0, 0}, "the policy state does not load (another run?)");
  }
}

dse::hwalloc::RlMethod rl_method() {
  return [](int state_size, int actions, const std::string& algorithm,
            uint64_t seed) -> std::unique_ptr<dse::hwalloc::RlAgent> {
    PolicyOptions o;
    o.algorithm = algorithm;
    return std::make_unique<Agent>(state_size, actions, o, seed);
  };
}

}  // namespace sparsemap::ml::hwalloc
