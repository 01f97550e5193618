// The cost model from Python: evaluate() returns a Cost whose attributes are the CLI's JSON keys
// (`sparsemap eval --json`), evaluate_batch() evaluates many mappings or genomes on threads
// without the GIL and returns NumPy arrays.
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "core_internal.h"
#include "sparsemap/cost/sparsity.h"
#include "sparsemap/error.h"

namespace sparsemap::python {

using mapping::Mapping;
using workload::Layer;

namespace {

// One evaluated layer as the CLI writes it (apps/cmd_eval.cpp, cost_json).
struct CostRecord {
  cost::Cost c;
  std::string name;
  bool loop_edges = false;
  bool clamped = false;
};

py::dict delays(const cost::DelayStats& d) {
  py::dict j;
  j["min"] = d.min;
  j["max"] = d.max;
  j["avg"] = d.avg;
  return j;
}

py::dict breakdown(const cost::EnergyBreakdown& e) {
  py::dict j;
  j["mac"] = e.mac_nj;
  j["l1"] = e.l1_nj;
  j["l2"] = e.l2_nj;
  j["noc"] = e.noc_nj;
  j["offchip"] = e.offchip_nj;
  return j;
}

py::dict access(const cost::Cost& c) {
  py::dict j;
  for (int t = 0; t < cost::kNumTensors; ++t) {
    py::dict a;
    a["l1_reads"] = c.access[t].l1_reads;
    a["l1_writes"] = c.access[t].l1_writes;
    a["l2_reads"] = c.access[t].l2_reads;
    a["l2_writes"] = c.access[t].l2_writes;
    j[py::str(std::string(cost::tensor_name(t)))] = a;
  }
  return j;
}

py::dict to_dict(const CostRecord& r) {
  const cost::Cost& c = r.c;
  py::dict j;
  j["name"] = r.name;
  j["status"] = std::string(cost::status_name(c.status));
  j["reason"] = c.reason;
  j["runtime_cycles"] = c.runtime_cycles;
  j["energy_nj"] = c.energy_nj;
  j["l1_bytes"] = c.l1_bytes;
  j["l2_bytes"] = c.l2_bytes;
  j["macs"] = c.macs;
  j["pes_used"] = c.pes_used;
  j["noc_words_per_cycle"] = c.noc_words_per_cycle;
  j["offchip_words_per_cycle"] = c.offchip_words_per_cycle;
  j["mapped_macs"] = c.mapped_macs;
  j["effectual_macs"] = c.effectual_macs;
  j["compute_cycles"] = c.compute_cycles;
  j["avg_pes_utilized"] = c.avg_pes_utilized;
  j["area_mm2"] = c.area_mm2;
  j["power_mw"] = c.power_mw;
  j["loop_edges"] = r.loop_edges;
  j["clamped"] = r.clamped;
  j["energy_breakdown_nj"] = breakdown(c.energy);
  py::dict steps;
  steps["ingress"] = delays(c.ingress);
  steps["egress"] = delays(c.egress);
  steps["compute"] = delays(c.compute);
  j["step_delays_cycles"] = steps;
  j["access_words"] = access(c);
  return j;
}

template <class T>
void def_field(py::class_<CostRecord>& c, const char* name, T cost::Cost::*f) {
  c.def_property_readonly(name, [f](const CostRecord& r) { return r.c.*f; });
}

void bind_cost_class(py::module_& m) {
  py::class_<CostRecord> c(m, "Cost",
                           "One evaluation; attributes named as `sparsemap eval --json` keys.");
  c.def_readonly("name", &CostRecord::name)
      .def_property_readonly(
          "status", [](const CostRecord& r) { return std::string(cost::status_name(r.c.status)); })
      .def_property_readonly("ok", [](const CostRecord& r) { return r.c.ok(); });
  def_field(c, "reason", &cost::Cost::reason);
  def_field(c, "runtime_cycles", &cost::Cost::runtime_cycles);
  def_field(c, "energy_nj", &cost::Cost::energy_nj);
  def_field(c, "l1_bytes", &cost::Cost::l1_bytes);
  def_field(c, "l2_bytes", &cost::Cost::l2_bytes);
  def_field(c, "macs", &cost::Cost::macs);
  def_field(c, "pes_used", &cost::Cost::pes_used);
  def_field(c, "noc_words_per_cycle", &cost::Cost::noc_words_per_cycle);
  def_field(c, "offchip_words_per_cycle", &cost::Cost::offchip_words_per_cycle);
  def_field(c, "mapped_macs", &cost::Cost::mapped_macs);
  def_field(c, "effectual_macs", &cost::Cost::effectual_macs);
  def_field(c, "compute_cycles", &cost::Cost::compute_cycles);
  def_field(c, "avg_pes_utilized", &cost::Cost::avg_pes_utilized);
  def_field(c, "area_mm2", &cost::Cost::area_mm2);
  def_field(c, "power_mw", &cost::Cost::power_mw);
  c.def_readonly("loop_edges", &CostRecord::loop_edges)
      .def_readonly("clamped", &CostRecord::clamped)
      .def_property_readonly("energy_breakdown_nj",
                             [](const CostRecord& r) { return breakdown(r.c.energy); })
      .def_property_readonly("step_delays_cycles",
                             [](const CostRecord& r) { return to_dict(r)["step_delays_cycles"]; })
      .def_property_readonly("access_words", [](const CostRecord& r) { return access(r.c); })
      .def("to_dict", &to_dict, "The record as `sparsemap eval --json` writes one layer")
      .def("__repr__", [](const CostRecord& r) {
        return "Cost('" + r.name + "', " + std::string(cost::status_name(r.c.status)) + ", " +
               std::to_string(r.c.runtime_cycles) + " cycles, " + std::to_string(r.c.energy_nj) +
               " nJ)";
      });
}

}  // namespace

cost::EvalOptions eval_options(bool enforce_buffers, const std::string& density,
                               const std::string& structure, const std::string& sparse_mode) {
  cost::EvalOptions o;
  o.enforce_buffers = enforce_buffers;
  if (!density.empty()) cost::parse_density_flag(density, o.sparsity);
  if (!structure.empty()) cost::parse_structure_flag(structure, o.sparsity);
  o.sparsity.mode = cost::parse_sparse_mode(sparse_mode);
  return o;
}

namespace {

// Output columns of evaluate_batch, one NumPy array per field (named as the JSON keys).
struct BatchColumns {
  static constexpr const char* kInt[] = {"runtime_cycles", "l1_bytes", "l2_bytes", "pes_used",
                                         "macs"};
  static constexpr const char* kReal[] = {"energy_nj",
                                          "compute_cycles",
                                          "mapped_macs",
                                          "effectual_macs",
                                          "avg_pes_utilized",
                                          "noc_words_per_cycle",
                                          "offchip_words_per_cycle",
                                          "area_mm2",
                                          "power_mw"};
  py::array_t<int8_t> status;
  std::vector<py::array_t<int64_t>> ints;
  std::vector<py::array_t<double>> reals;
  int8_t* st = nullptr;
  std::vector<int64_t*> ip;
  std::vector<double*> rp;

  explicit BatchColumns(py::ssize_t n) : status(n) {
    st = status.mutable_data();
    for (size_t i = 0; i < std::size(kInt); ++i) {
      ints.emplace_back(n);
      ip.push_back(ints.back().mutable_data());
    }
    for (size_t i = 0; i < std::size(kReal); ++i) {
      reals.emplace_back(n);
      rp.push_back(reals.back().mutable_data());
    }
  }
  void put(size_t i, const cost::Cost& c) {
    st[i] = static_cast<int8_t>(c.status);
    const int64_t iv[] = {c.runtime_cycles, c.l1_bytes, c.l2_bytes, c.pes_used, c.macs};
    const double rv[] = {c.energy_nj,
                         c.compute_cycles,
                         c.mapped_macs,
                         c.effectual_macs,
                         c.avg_pes_utilized,
                         c.noc_words_per_cycle,
                         c.offchip_words_per_cycle,
                         c.area_mm2,
                         c.power_mw};
    for (size_t k = 0; k < ip.size(); ++k) ip[k][i] = iv[k];
    for (size_t k = 0; k < rp.size(); ++k) rp[k][i] = rv[k];
  }
  py::dict dict() const {
    py::dict d;
    d["status"] = status;
    for (size_t k = 0; k < ints.size(); ++k) d[kInt[k]] = ints[k];
    for (size_t k = 0; k < reals.size(); ++k) d[kReal[k]] = reals[k];
    return d;
  }
};

int thread_count(int threads) {
  if (threads < 0)
    throw InputError(
        {"<argument threads>", 0, 0},
        "expected 0 (all cores) or a positive thread count, found " + std::to_string(threads));
  return threads == 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                      : threads;
}

// Genomes (n x dims, checked) decoded and evaluated; or a list of Mapping objects evaluated.
// `layer` and `hw` are copies: other Python threads may edit the originals while the GIL is
// released.
py::dict evaluate_batch(const Layer layer, const arch::Arch hw, const py::object& mappings,
                        int threads, const dse::mapper::MapSpace* space,
                        const cost::EvalOptions& opt) {
  check_layer(layer);
  check_arch(hw);
  const int nt = thread_count(threads);
  const bool genomes = py::isinstance<py::array>(mappings) && py::array(mappings).ndim() == 2;
  std::vector<const Mapping*> list;
  py::list items;
  std::vector<double> genes;
  size_t n = 0, dims = 0;
  std::optional<dse::mapper::MapSpace> own;
  if (genomes) {
    if (!space) space = &own.emplace(layer, hw, dse::mapper::MapSpaceOptions{});
    if (space->layer() != layer || !(space->arch() == hw))
      throw InputError({"<argument space>", 0, 0},
                       "expected the map space of this layer and accelerator (MapSpace(layer, "
                       "arch, ...)), found one of layer '" +
                           space->layer().name + "' on '" + space->arch().name + "'");
    const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(mappings);
    n = static_cast<size_t>(a.shape(0));
    dims = space->dims();
    if (static_cast<size_t>(a.shape(1)) != dims)
      throw InputError({"<argument genomes>", 0, 0},
                       "expected genomes of " + std::to_string(dims) + " genes (shape (n, " +
                           std::to_string(dims) + ")), found " + std::to_string(a.shape(1)));
    genes.assign(a.data(), a.data() + n * dims);
    for (size_t i = 0; i < n; ++i)
      check_genes(genes.data() + i * dims, dims, "<argument genomes>", static_cast<long>(i));
  } else {
    items = py::list(mappings);  // holds every Mapping while the threads read them
    for (const py::handle h : items) {
      if (!py::isinstance<Mapping>(h))
        throw py::type_error(
            "evaluate_batch: expected a list of Mapping or an (n, dims) array "
            "of genomes, found an item of type " +
            std::string(py::str(h.get_type().attr("__name__"))));
      list.push_back(&h.cast<const Mapping&>());
    }
    n = list.size();
  }
  BatchColumns out(static_cast<py::ssize_t>(n));
  auto one = [&](size_t i) {
    if (genomes) {
      const std::vector<double> g(genes.begin() + i * dims, genes.begin() + (i + 1) * dims);
      out.put(i, cost::evaluate(layer, hw, space->decode(g), opt));
    } else {
      out.put(i, cost::evaluate(layer, hw, *list[i], opt));
    }
  };
  {
    py::gil_scoped_release release;
    // std::thread workers take chunks of kChunk mappings from a shared counter (no spinning
    // barrier, unlike an OpenMP region on a loaded machine); a thread is only started where it
    // gets at least two chunks.
    constexpr size_t kChunk = 64;
    const size_t used = std::min<size_t>(static_cast<size_t>(nt), n / (2 * kChunk));
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t b; (b = next.fetch_add(kChunk)) < n;)
        for (size_t i = b; i < std::min(n, b + kChunk); ++i) one(i);
    };
    std::vector<std::thread> workers;
    for (size_t t = 1; t < used; ++t) workers.emplace_back(work);
    work();
    for (auto& t : workers) t.join();
  }
  return out.dict();
}

}  // namespace

void bind_cost(py::module_& m) {
  bind_cost_class(m);
  m.def(
      "evaluate",
      [](const Layer& layer, const arch::Arch& hw, const Mapping& mp, bool enforce_buffers,
         const std::string& density, const std::string& structure, const std::string& mode) {
        check_layer(layer);
        check_arch(hw);
        const cost::EvalOptions opt = eval_options(enforce_buffers, density, structure, mode);
        CostRecord r{cost::evaluate(layer, hw, mp, opt), layer.name, false, false};
        r.loop_edges = !mp.empty() && cost::has_loop_edges(layer, mp);
        return r;
      },
      py::arg("layer"), py::arg("arch"), py::arg("mapping"), py::kw_only(),
      py::arg("enforce_buffers") = false, py::arg("density") = "", py::arg("structure") = "",
      py::arg("sparse_mode") = "gate",
      "The cost model on one layer; density/structure/sparse_mode take the CLI's flag texts "
      "(e.g. density='W=0.25', structure='W=nm:2:4').");
  m.def(
      "evaluate_batch",
      [](const Layer& layer, const arch::Arch& hw, const py::object& mappings, int threads,
         const dse::mapper::MapSpace* space, bool enforce_buffers, const std::string& density,
         const std::string& structure, const std::string& mode) {
        return evaluate_batch(layer, hw, mappings, threads, space,
                              eval_options(enforce_buffers, density, structure, mode));
      },
      py::arg("layer"), py::arg("arch"), py::arg("mappings"), py::kw_only(), py::arg("threads") = 1,
      py::arg("space") = nullptr, py::arg("enforce_buffers") = false, py::arg("density") = "",
      py::arg("structure") = "", py::arg("sparse_mode") = "gate",
      "Evaluates a list of Mapping, or an (n, dims) array of genomes of `space` (default "
      "MapSpace(layer, arch)), on `threads` threads (0: all) without the GIL. Returns a dict of "
      "NumPy arrays named as the JSON keys; status is 0 ok, 1 infeasible, 2 invalid.");
  m.attr("STATUS_NAMES") = py::make_tuple("ok", "infeasible", "invalid");
}

}  // namespace sparsemap::python
