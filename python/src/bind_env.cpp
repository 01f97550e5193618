// Gym-style environment over one layer's map space (MapEnv); the co-design environment is in
// bind_env_codesign.cpp. The MDPs are defined in docs/python.md ("Environments").
#include <pybind11/stl.h>

#include "bindings.h"
#include "env_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::python {

using dse::mapper::MapSpace;
using dse::mapper::Objective;

namespace {

// The objective's lower bound B on `hw` for `layer` (dense): latency ceil(MACs / PEs) cycles,
// energy MACs x mac_pj / 1000 nJ, edp their product, throughput 1 / PEs cycles per MAC.
double objective_bound(const workload::Layer& layer, const arch::Arch& hw, Objective o) {
  const double macs = static_cast<double>(layer.macs());
  const double lat = std::ceil(macs / static_cast<double>(hw.num_pes));
  const double en = std::max(1e-12, macs * hw.energy.mac_pj / 1000.0);
  switch (o) {
    case Objective::Latency:
      return lat;
    case Objective::Energy:
      return en;
    case Objective::Edp:
      return lat * en;
    case Objective::Throughput:
      return 1.0 / static_cast<double>(hw.num_pes);
  }
  return 1.0;
}

class MapEnv {
 public:
  MapEnv(const workload::Layer& layer, const arch::Arch& hw, const std::string& objective,
         const dse::mapper::MapSpaceOptions& space, int64_t episode_steps,
         const std::string& action, double step_size, const std::string& reward, double cost_cap,
         bool enforce_buffers)
      : space_((check_layer(layer), check_arch(hw), MapSpace(layer, hw, space))),
        objective_(dse::mapper::parse_objective(objective)),
        steps_(episode_steps),
        step_size_(step_size),
        cap_(cost_cap) {
    if (action != "genome" && action != "step")
      throw InputError({"<argument action>", 0, 0},
                       "unknown action mode " + quote_input(action) + ": expected genome or step");
    if (reward != "improvement" && reward != "negative")
      throw InputError({"<argument reward>", 0, 0}, "unknown reward " + quote_input(reward) +
                                                        ": expected improvement or negative");
    if (episode_steps < 1)
      throw InputError({"<argument episode_steps>", 0, 0},
                       "expected a positive step count, found " + std::to_string(episode_steps));
    if (!(step_size > 0 && step_size <= 1) || !(cost_cap > 1 && std::isfinite(cost_cap)))
      throw InputError({"<argument step_size>", 0, 0},
                       "expected step_size in (0, 1] and a finite cost_cap > 1");
    gene_step_ = action == "step";
    negative_ = reward == "negative";
    opt_.enforce_buffers = enforce_buffers;
    bound_ = objective_bound(layer, hw, objective_);
    const size_t D = space_.dims();
    observation_space = box_space(kLayerFeatures + D + 2, 0.0, 1.0);
    action_space = gene_step_ ? discrete_space(2 * D) : box_space(D, 0.0, 1.0);
  }

  static constexpr size_t kLayerFeatures = 7;  // 6 slot extents and the PE count

  py::tuple reset(std::optional<uint64_t> seed) {
    rng_.reseed(seed);
    genome_.resize(space_.dims());
    for (double& g : genome_) g = std::min(rng_.uniform(), std::nextafter(1.0, 0.0));
    t_ = 0;
    started_ = true;
    cost_ = evaluate();
    best_ = cost_;
    return py::make_tuple(observation(), info());
  }

  py::tuple step(const py::handle& action) {
    if (!started_ || t_ >= steps_)
      throw InputError({"<argument action>", 0, 0}, started_
                                                        ? "the episode is over: call reset() first"
                                                        : "call reset() before step()");
    if (gene_step_) {
      const auto a = action.cast<int64_t>();
      if (a < 0 || a >= static_cast<int64_t>(2 * genome_.size()))
        throw InputError({"<argument action>", 0, 0}, "expected an action in [0, " +
                                                          std::to_string(2 * genome_.size() - 1) +
                                                          "], found " + std::to_string(a));
      double& g = genome_[static_cast<size_t>(a / 2)];
      g = std::clamp(g + (a % 2 ? step_size_ : -step_size_), 0.0, std::nextafter(1.0, 0.0));
    } else {
      genome_ = genome_from(action, space_.dims(), "<argument action>");
    }
    const double before = cost_;
    cost_ = evaluate();
    best_ = std::min(best_, cost_);
    ++t_;
    const double reward = negative_ ? -cost_ : before - cost_;
    return py::make_tuple(observation(), reward, false, t_ >= steps_, info());
  }

  py::object observation_space, action_space;

  const MapSpace& space() const { return space_; }
  double bound() const { return bound_; }
  py::array_t<double> genome() const {
    return py::array_t<double>(static_cast<py::ssize_t>(genome_.size()), genome_.data());
  }
  mapping::Mapping mapping() const { return space_.decode(genome_); }

 private:
  // Normalised cost of the current genome: min(J / B, cap), cap when not Ok.
  double evaluate() {
    last_ = cost::evaluate(space_.layer(), space_.arch(), space_.decode(genome_), opt_);
    if (!last_.ok()) return cap_;
    return std::min(cap_, dse::mapper::objective_value(last_, objective_) / bound_);
  }

  py::array_t<double> observation() const {
    const size_t D = genome_.size();
    py::array_t<double> o(static_cast<py::ssize_t>(kLayerFeatures + D + 2));
    double* p = o.mutable_data();
    for (int s = 0; s < dse::mapper::kSlots; ++s)
      p[s] = log_feature(static_cast<double>(space_.extent(s)));
    p[6] = log_feature(static_cast<double>(space_.arch().num_pes));
    std::copy(genome_.begin(), genome_.end(), p + kLayerFeatures);
    p[kLayerFeatures + D] = static_cast<double>(t_) / static_cast<double>(steps_);
    p[kLayerFeatures + D + 1] = std::clamp(std::log2(cost_) / std::log2(cap_), 0.0, 1.0);
    return o;
  }

  py::dict info() const {
    py::dict d;
    d["status"] = std::string(cost::status_name(last_.status));
    d["runtime_cycles"] = last_.runtime_cycles;
    d["energy_nj"] = last_.energy_nj;
    d["cost"] = cost_;
    d["best_cost"] = best_;
    d["step"] = t_;
    return d;
  }

  MapSpace space_;
  Objective objective_;
  int64_t steps_;
  double step_size_, cap_, bound_ = 1;
  bool gene_step_ = false, negative_ = false, started_ = false;
  cost::EvalOptions opt_;
  EnvRng rng_;
  std::vector<double> genome_;
  int64_t t_ = 0;
  double cost_ = 0, best_ = 0;
  cost::Cost last_;
};

}  // namespace

void bind_env(pybind11::module_& m) {
  py::class_<MapEnv>(m, "MapEnv",
                     "Gym-style environment over one layer's map space (docs/python.md).")
      .def(py::init([](const workload::Layer& layer, const arch::Arch& hw,
                       const std::string& objective, int64_t episode_steps,
                       const std::string& action, double step_size, const std::string& reward,
                       double cost_cap, bool enforce_buffers, int max_levels, bool divisors_only,
                       const std::string& constraint, bool fixed_order, bool maestro_compatible) {
             return new MapEnv(layer, hw, objective,
                               space_options(max_levels, divisors_only, constraint, fixed_order,
                                             maestro_compatible),
                               episode_steps, action, step_size, reward, cost_cap, enforce_buffers);
           }),
           py::arg("layer"), py::arg("arch"), py::kw_only(), py::arg("objective") = "latency",
           py::arg("episode_steps") = 64, py::arg("action") = "genome", py::arg("step_size") = 0.1,
           py::arg("reward") = "improvement", py::arg("cost_cap") = 1e4,
           py::arg("enforce_buffers") = true, py::arg("max_levels") = 2,
           py::arg("divisors_only") = false, py::arg("constraint") = "none",
           py::arg("fixed_order") = false, py::arg("maestro_compatible") = false)
      .def("reset", &MapEnv::reset, py::arg("seed") = py::none(), "-> (observation, info)")
      .def("step", &MapEnv::step, py::arg("action"),
           "-> (observation, reward, terminated, truncated, info)")
      .def_readonly("observation_space", &MapEnv::observation_space)
      .def_readonly("action_space", &MapEnv::action_space)
      .def_property_readonly("space", &MapEnv::space, py::return_value_policy::copy)
      .def_property_readonly("bound", &MapEnv::bound, "B: the objective's lower bound")
      .def_property_readonly("genome", &MapEnv::genome)
      .def_property_readonly("mapping", &MapEnv::mapping);
  bind_codesign_env(m);
}

}  // namespace sparsemap::python
