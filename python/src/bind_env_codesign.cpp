// Gym-style environment over DiGamma's co-design space (CodesignEnv): one step picks the
// hardware (PEs, L1, L2), then one step per distinct layer picks its mapping; the episode's
// return is minus the design's normalised fitness (docs/python.md, "Environments").
#include <pybind11/stl.h>

#include "env_internal.h"
#include "sparsemap/dse/codesign/codesign.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::python {

namespace cd = dse::codesign;
using dse::mapper::Objective;

namespace {

class CodesignEnv {
 public:
  CodesignEnv(const std::vector<workload::Layer>& layers, const arch::Arch& base,
              const cd::CodesignOptions& opt, double cost_cap)
      : cap_(cost_cap) {
    for (const auto& l : layers) check_layer(l);
    check_arch(base);
    if (!(cost_cap > 1 && std::isfinite(cost_cap)))
      throw InputError({"<argument cost_cap>", 0, 0}, "expected a finite cost_cap > 1");
    space_ = std::make_shared<cd::CodesignSpace>(layers, base, opt);
    const size_t U = space_->unique_layers();
    actions_ = std::max(cd::CodesignSpace::kHwGenes, space_->map_dims());
    extents_.resize(U);
    for (size_t u = 0; u < U; ++u) {
      const auto sp = space_->layer_space(u, opt.pe_step);
      for (int s = 0; s < dse::mapper::kSlots; ++s) extents_[u][s] = sp.extent(s);
    }
    bound_ = fitness_bound();
    observation_space = box_space(kObs, 0.0, 1.0);
    action_space = box_space(actions_, 0.0, 1.0);
  }

  static constexpr size_t kObs = 11;  // progress, 3 hardware genes, 6 slot extents, repeats

  py::tuple reset(std::optional<uint64_t> seed) {
    rng_.reseed(seed);
    genome_.assign(space_->dims(), 0.0);
    for (double& g : genome_) g = std::min(rng_.uniform(), std::nextafter(1.0, 0.0));
    t_ = 0;
    started_ = true;
    return py::make_tuple(observation(), py::dict());
  }

  py::tuple step(const py::handle& action) {
    const size_t U = space_->unique_layers();
    if (!started_ || t_ > U)
      throw InputError({"<argument action>", 0, 0}, started_
                                                        ? "the episode is over: call reset() first"
                                                        : "call reset() before step()");
    const std::vector<double> a = genome_from(action, actions_, "<argument action>");
    const size_t at = t_ == 0 ? 0 : space_->offset(t_ - 1);
    const size_t n = t_ == 0 ? cd::CodesignSpace::kHwGenes : space_->map_dims();
    std::copy(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), genome_.begin() + at);
    ++t_;
    const bool done = t_ == U + 1;
    py::dict info;
    info["pes"] = space_->pes_of(genome_[0]);
    double reward = 0;
    if (done) {
      const auto e = space_->evaluate(genome_);
      reward = -(e->feasible ? std::min(cap_, e->fitness / bound_) : cap_);
      info["feasible"] = e->feasible;
      info["fitness"] = e->fitness;
      info["runtime_cycles"] = e->runtime_cycles;
      info["energy_nj"] = e->energy_nj;
      info["area_mm2"] = e->area_mm2;
      info["l1_bytes"] = e->l1_bytes;
      info["l2_bytes"] = e->l2_bytes;
    }
    return py::make_tuple(observation(), reward, done, false, info);
  }

  py::object observation_space, action_space;
  double bound() const { return bound_; }
  py::array_t<double> genome() const {
    return py::array_t<double>(static_cast<py::ssize_t>(genome_.size()), genome_.data());
  }
  size_t unique_layers() const { return space_->unique_layers(); }
  std::vector<workload::Layer> layers() const {
    std::vector<workload::Layer> out;
    for (size_t u = 0; u < space_->unique_layers(); ++u) out.push_back(space_->unique_layer(u));
    return out;
  }
  std::vector<size_t> layer_index() const { return space_->layer_index(); }
  std::vector<int64_t> multiplicity() const {
    std::vector<int64_t> out;
    for (size_t u = 0; u < space_->unique_layers(); ++u) out.push_back(space_->multiplicity(u));
    return out;
  }
  double fitness(const py::handle& g) const {
    return space_->evaluate(genome_from(g, space_->dims(), "<argument genome>"))->fitness;
  }

 private:
  // F_B, the fitness no design can beat: latency compute_bound_cycles; energy the MACs at
  // mac_pj; edp their product; throughput bound cycles per MAC.
  double fitness_bound() const {
    const double lat = static_cast<double>(cd::compute_bound_cycles(*space_));
    double macs = 0;
    for (size_t u = 0; u < space_->unique_layers(); ++u)
      macs += static_cast<double>(space_->multiplicity(u) * space_->unique_layer(u).macs());
    const double en = std::max(1e-12, macs * space_->base().energy.mac_pj / 1000.0);
    switch (space_->options().objective) {
      case Objective::Latency:
        return lat;
      case Objective::Energy:
        return en;
      case Objective::Edp:
        return lat * en;
      case Objective::Throughput:
        return lat / std::max(1.0, macs);
    }
    return 1.0;
  }

  py::array_t<double> observation() const {
    py::array_t<double> o(static_cast<py::ssize_t>(kObs));
    double* p = o.mutable_data();
    const size_t U = space_->unique_layers();
    p[0] = static_cast<double>(t_) / static_cast<double>(U + 1);
    for (size_t i = 0; i < 3; ++i) p[1 + i] = t_ == 0 ? 0.0 : genome_[i];
    const size_t u = t_ == 0 ? 0 : std::min(t_ - 1, U - 1);
    for (int s = 0; s < dse::mapper::kSlots; ++s)
      p[4 + s] = log_feature(static_cast<double>(extents_[u][s]));
    p[10] = log_feature(static_cast<double>(space_->multiplicity(u)) + 1);
    return o;
  }

  std::shared_ptr<cd::CodesignSpace> space_;
  double cap_, bound_ = 1;
  size_t actions_ = 0, t_ = 0;
  bool started_ = false;
  std::vector<std::array<int64_t, dse::mapper::kSlots>> extents_;
  EnvRng rng_;
  std::vector<double> genome_;
};

std::vector<workload::Layer> layers_of(const py::handle& model) {
  if (py::isinstance<workload::Model>(model)) return model.cast<workload::Model>().layers;
  return model.cast<std::vector<workload::Layer>>();
}

}  // namespace

void bind_codesign_env(py::module_& m) {
  py::class_<CodesignEnv>(m, "CodesignEnv",
                          "Gym-style environment over the co-design space (docs/python.md).")
      .def(py::init([](const py::handle& model, const arch::Arch& base, const std::string& platform,
                       double area_budget_mm2, int64_t pe_limit, int64_t pe_step,
                       const std::string& buffers, const std::string& objective, int max_levels,
                       double cost_cap) {
             const cd::Platform p = cd::platform(platform);
             cd::CodesignOptions o;
             o.area_budget_mm2 = area_budget_mm2 > 0 ? area_budget_mm2 : p.area_budget_mm2;
             o.pe_limit = pe_limit > 0 ? pe_limit : p.pe_limit;
             o.pe_step = pe_step;
             o.buffers = cd::parse_buffer_mode(buffers);
             o.objective = dse::mapper::parse_objective(objective);
             o.space = space_options(max_levels, false, "none", false, false);
             return new CodesignEnv(layers_of(model), base, o, cost_cap);
           }),
           py::arg("model"), py::arg("arch"), py::kw_only(), py::arg("platform") = "edge",
           py::arg("area_budget_mm2") = 0.0, py::arg("pe_limit") = 0, py::arg("pe_step") = 8,
           py::arg("buffers") = "genes", py::arg("objective") = "latency",
           py::arg("max_levels") = 2, py::arg("cost_cap") = 1e4)
      .def("reset", &CodesignEnv::reset, py::arg("seed") = py::none())
      .def("step", &CodesignEnv::step, py::arg("action"))
      .def_readonly("observation_space", &CodesignEnv::observation_space)
      .def_readonly("action_space", &CodesignEnv::action_space)
      .def_property_readonly("bound", &CodesignEnv::bound)
      .def_property_readonly("genome", &CodesignEnv::genome)
      .def_property_readonly("unique_layers", &CodesignEnv::unique_layers)
      .def_property_readonly("layers", &CodesignEnv::layers, "The distinct layers, in order")
      .def_property_readonly("layer_index", &CodesignEnv::layer_index,
                             "Distinct-layer index of each GEMM-class layer of the model")
      .def_property_readonly("multiplicity", &CodesignEnv::multiplicity)
      .def("fitness", &CodesignEnv::fitness, py::arg("genome"),
           "CodesignSpace fitness of a whole genome (the cost model's answer)");
}

}  // namespace sparsemap::python
