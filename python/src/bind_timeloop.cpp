// Timeloop v0.4 / Accelergy inputs from Python: load_timeloop(*paths) returns the parsed parts
// (TimeloopInputs) and evaluates them with the loop-nest model (TimeloopResult, whose to_dict()
// is `sparsemap timeloop --json`). Bindings over io/timeloop.h and cost/loopnest.h only.
#include <pybind11/stl.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bindings.h"
#include "sparsemap/cost/loopnest.h"
#include "sparsemap/error.h"
#include "sparsemap/io/timeloop.h"

namespace sparsemap::python {

namespace py = pybind11;

namespace {

// nlohmann::json as Python objects (through the json module: numbers keep their exact value).
py::object to_python(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

const char* kind_name(mapping::LoopNestDirectiveKind k) {
  switch (k) {
    case mapping::LoopNestDirectiveKind::kTemporal:
      return "temporal";
    case mapping::LoopNestDirectiveKind::kSpatial:
      return "spatial";
    case mapping::LoopNestDirectiveKind::kDataspace:
      break;
  }
  return "datatype";
}

void bind_parts(py::module_& m) {
  py::class_<workload::Einsum>(m, "TimeloopProblem", "A Timeloop problem (shape and instance).")
      .def_readonly("name", &workload::Einsum::name)
      .def_readonly("dims", &workload::Einsum::dims, "Loop dimensions, as the shape lists them")
      .def_readonly("bounds", &workload::Einsum::bounds, "Dimension -> bound (the instance)")
      .def_property_readonly("data_spaces",
                             [](const workload::Einsum& p) {
                               std::vector<std::string> out;
                               for (const auto& d : p.data_spaces) out.push_back(d.name);
                               return out;
                             })
      .def_property_readonly("operations", &workload::Einsum::operations,
                             "Product of the bounds (multiply-accumulates)")
      .def("__repr__", [](const workload::Einsum& p) {
        return "TimeloopProblem('" + p.name + "', " + std::to_string(p.operations()) +
               " operations)";
      });

  py::class_<arch::StorageLevel>(m, "TimeloopStorageLevel", "One storage level")
      .def_readonly("name", &arch::StorageLevel::name)
      .def_readonly("component_class", &arch::StorageLevel::component_class)
      .def_readonly("instances", &arch::StorageLevel::instances)
      .def_readonly("depth", &arch::StorageLevel::depth, "Rows per instance; 0: unbounded")
      .def_readonly("block_size", &arch::StorageLevel::block_size, "Words per row")
      .def_readonly("datawidth_bits", &arch::StorageLevel::datawidth_bits)
      .def_readonly("dummy", &arch::StorageLevel::dummy, "A fan-out placeholder")
      .def_property_readonly("capacity_words", &arch::StorageLevel::capacity_words);
  py::class_<arch::Hierarchy>(m, "TimeloopArch", "A Timeloop architecture, outermost level first")
      .def_readonly("name", &arch::Hierarchy::name)
      .def_readonly("technology", &arch::Hierarchy::technology)
      .def_readonly("levels", &arch::Hierarchy::storage)
      .def_property_readonly("compute_name",
                             [](const arch::Hierarchy& h) { return h.compute.name; })
      .def_property_readonly("compute_instances",
                             [](const arch::Hierarchy& h) { return h.compute.instances; });

  py::class_<mapping::LoopNestDirective>(m, "TimeloopDirective", "One entry of `mapping:`")
      .def_readonly("target", &mapping::LoopNestDirective::target)
      .def_property_readonly("type",
                             [](const mapping::LoopNestDirective& d) { return kind_name(d.kind); })
      .def_property_readonly("factors",
                             [](const mapping::LoopNestDirective& d) {
                               std::vector<std::pair<std::string, int64_t>> out;
                               for (const auto& f : d.factors) out.emplace_back(f.dim, f.value);
                               return out;
                             })
      .def_readonly("permutation", &mapping::LoopNestDirective::permutation)
      .def_property_readonly("split",
                             [](const mapping::LoopNestDirective& d) -> py::object {
                               if (d.split < 0) return py::none();
                               return py::int_(d.split);
                             })
      .def_readonly("keep", &mapping::LoopNestDirective::keep)
      .def_readonly("bypass", &mapping::LoopNestDirective::bypass);
  py::class_<mapping::LoopNest>(m, "TimeloopMapping", "A Timeloop mapping (its directives)")
      .def_readonly("directives", &mapping::LoopNest::directives)
      .def("to_yaml", &io::write_timeloop_mapping,
           "The mapping as Timeloop's map.yaml text (io::write_timeloop_mapping)");
}

void bind_result(py::module_& m) {
  py::class_<cost::LoopNestDataspace>(m, "TimeloopDataspace",
                                      "Counts of one data space at one level, per instance")
      .def_readonly("name", &cost::LoopNestDataspace::name)
      .def_readonly("reads", &cost::LoopNestDataspace::reads)
      .def_readonly("fills", &cost::LoopNestDataspace::fills)
      .def_readonly("updates", &cost::LoopNestDataspace::updates)
      .def_readonly("tile_words", &cost::LoopNestDataspace::tile_words)
      .def_readonly("energy_pj", &cost::LoopNestDataspace::energy_pj);
  py::class_<cost::LoopNestLevel>(m, "TimeloopLevel", "One storage level of a TimeloopResult")
      .def_readonly("name", &cost::LoopNestLevel::name)
      .def_readonly("instances", &cost::LoopNestLevel::instances)
      .def_readonly("utilized_instances", &cost::LoopNestLevel::utilized_instances)
      .def_readonly("energy_pj", &cost::LoopNestLevel::energy_pj)
      .def_readonly("leak_energy_pj", &cost::LoopNestLevel::leak_energy_pj)
      .def_property_readonly("dataspaces",
                             [](const cost::LoopNestLevel& l) {
                               py::dict d;
                               for (const auto& ds : l.dataspaces) d[py::str(ds.name)] = ds;
                               return d;
                             })
      .def("__repr__", [](const cost::LoopNestLevel& l) {
        return "TimeloopLevel('" + l.name + "', " + std::to_string(l.instances) + " instances)";
      });
  py::class_<cost::LoopNestResult>(
      m, "TimeloopResult",
      "The loop-nest model's result; attributes named as `sparsemap timeloop --json` keys")
      .def_property_readonly("ok", &cost::LoopNestResult::ok)
      .def_readonly("reason", &cost::LoopNestResult::reason, "Why it is not ok")
      .def_readonly("macs", &cost::LoopNestResult::macs)
      .def_readonly("cycles", &cost::LoopNestResult::cycles)
      .def_readonly("utilization", &cost::LoopNestResult::utilization, "0..1")
      .def_readonly("energy_pj", &cost::LoopNestResult::energy_pj)
      .def_readonly("compute_name", &cost::LoopNestResult::compute_name)
      .def_readonly("compute_instances", &cost::LoopNestResult::compute_instances)
      .def_readonly("compute_energy_pj", &cost::LoopNestResult::compute_energy_pj)
      .def_property_readonly(
          "levels",
          [](const cost::LoopNestResult& r) {
            std::vector<cost::LoopNestLevel> out;
            for (const auto& l : r.levels)
              if (!l.dummy) out.push_back(l);
            return out;
          },
          "Outermost first, without the fan-out placeholders (as --json)")
      .def("fj_per_compute", &cost::LoopNestResult::fj_per_compute, py::arg("component"),
           "A component's (or \"Total\") energy per operation in fJ")
      .def(
          "to_dict", [](const cost::LoopNestResult& r) { return to_python(r.to_json()); },
          "The result as `sparsemap timeloop --json` writes it")
      .def("__repr__", [](const cost::LoopNestResult& r) {
        return "TimeloopResult(" + std::to_string(r.cycles) + " cycles, " +
               std::to_string(r.energy_pj) + " pJ)";
      });
}

// `sparsemap timeloop`'s evaluation: the parts it needs, the model without the GIL, and an
// infeasible mapping as the CLI's InputError (ValueError) unless check is false.
cost::LoopNestResult evaluate(const io::TimeloopInputs& in, bool check) {
  in.require_evaluable();
  cost::LoopNestResult r;
  {
    py::gil_scoped_release nogil;
    r = cost::evaluate_loopnest(*in.problem, *in.arch, *in.mapping, in.ert ? &*in.ert : nullptr);
  }
  if (check && !r.ok()) throw InputError({in.sources.at("mapping")}, r.reason);
  return r;
}

}  // namespace

void bind_timeloop(py::module_& m) {
  bind_parts(m);
  bind_result(m);
  py::class_<io::TimeloopInputs>(
      m, "TimeloopInputs",
      "Timeloop/Accelergy files merged by their top-level keys; absent parts are None")
      .def_property_readonly("problem",
                             [](const io::TimeloopInputs& in) -> py::object {
                               return in.problem ? py::cast(*in.problem) : py::none();
                             })
      .def_property_readonly("arch",
                             [](const io::TimeloopInputs& in) -> py::object {
                               return in.arch ? py::cast(*in.arch) : py::none();
                             })
      .def_property_readonly("mapping",
                             [](const io::TimeloopInputs& in) -> py::object {
                               return in.mapping ? py::cast(*in.mapping) : py::none();
                             })
      .def_property_readonly(
          "ert",
          [](const io::TimeloopInputs& in) -> py::object {
            if (!in.ert) return py::none();
            py::dict out;
            for (const auto& c : in.ert->components) {
              py::list actions;
              for (const auto& a : c.actions) {
                py::dict d;
                d["name"] = a.name;
                d["arguments"] = a.arguments;
                d["energy_pj"] = a.energy_pj;
                actions.append(d);
              }
              out[py::str(c.name)] = actions;
            }
            return out;
          },
          "Component -> its actions [{name, arguments, energy_pj}], or None")
      .def_property_readonly(
          "art",
          [](const io::TimeloopInputs& in) -> py::object {
            if (!in.art) return py::none();
            py::dict out;
            for (const auto& c : in.art->components) out[py::str(c.name)] = c.area_um2;
            return out;
          },
          "Component -> area in um^2, or None")
      .def_readonly("sources", &io::TimeloopInputs::sources, "Part -> the file it came from")
      .def("evaluate", &evaluate, py::arg("check") = true,
           "The loop-nest model on the problem, architecture and mapping, priced with the ERT "
           "(energies 0 without one); the GIL is released meanwhile. Raises ValueError when a "
           "part is missing, or, with check=True, when the mapping is infeasible (as "
           "`sparsemap timeloop` exits 2); with check=False an infeasible result comes back "
           "with ok False and its reason.");
  m.def(
      "load_timeloop",
      [](const py::args& paths) {
        std::vector<std::string> files;
        for (const auto& p : paths) files.push_back(py::str(p));
        if (files.empty())
          throw InputError({"<arguments>", 0, 0}, "expected at least one Timeloop file");
        py::gil_scoped_release nogil;
        return io::read_timeloop_files(files);
      },
      "Reads Timeloop v0.4 / Accelergy YAML files (problem, architecture, mapping, ERT, ART in "
      "any order, or one parsed-processed-input.yaml) as `sparsemap timeloop` does; returns a "
      "TimeloopInputs. Bad input raises ValueError (FileNotFoundError for a missing file) with "
      "the CLI's file:line:column message.");
}

}  // namespace sparsemap::python
