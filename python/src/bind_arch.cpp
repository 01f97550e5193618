// Accelerators from Python: Arch with every field readable and editable (each write checked
// against its physical range, arch::check_fields), presets and files (the CLI's --hw resolver).
#include <pybind11/stl.h>

#include "bindings.h"
#include "core_internal.h"
#include "sparsemap/arch/describe.h"
#include "sparsemap/arch/presets.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"

namespace sparsemap::python {

using arch::Arch;

namespace {

// Throws InputError at "<argument arch>" when `probe` (a valid default accelerator with one
// field changed) fails the range check of that field.
void check_probe(const Arch& probe) {
  if (const auto e = arch::check_fields(probe))
    throw InputError({"<argument arch>", 0, 0}, e->message());
}

// A field of Arch (or of one of its sub-structs, reached by `part`) as a checked property.
template <class Owner, class T, class Part>
void def_checked(py::class_<Owner>& c, const char* name, T Owner::*field, Part part) {
  c.def_property(
      name, [field](const Owner& o) { return o.*field; },
      [field, part](Owner& o, T v) {
        Arch probe;
        part(probe).*field = v;
        check_probe(probe);
        o.*field = v;
      });
}

void bind_parts(py::module_& m) {
  using arch::AreaModel;
  using arch::WordEnergy;
  py::class_<WordEnergy> e(m, "EnergyTable",
                           "Energy per access (pJ per word; per MAC for mac_pj).");
  auto energy = [](Arch& a) -> WordEnergy& { return a.energy; };
  def_checked(e, "mac_pj", &WordEnergy::mac_pj, energy);
  def_checked(e, "l1_read_pj", &WordEnergy::l1_read_pj, energy);
  def_checked(e, "l1_write_pj", &WordEnergy::l1_write_pj, energy);
  def_checked(e, "l2_read_pj", &WordEnergy::l2_read_pj, energy);
  def_checked(e, "l2_write_pj", &WordEnergy::l2_write_pj, energy);
  def_checked(e, "noc_pj", &WordEnergy::noc_pj, energy);
  def_checked(e, "offchip_pj", &WordEnergy::offchip_pj, energy);
  e.def(
      "__eq__", [](const WordEnergy& a, const WordEnergy& b) { return a == b; }, py::is_operator());
  py::class_<AreaModel> a(m, "AreaModel", "Area constants: um^2 per PE and per SRAM bit.");
  auto area = [](Arch& x) -> AreaModel& { return x.area; };
  def_checked(a, "pe_um2", &AreaModel::pe_um2, area);
  def_checked(a, "sram_um2_per_bit", &AreaModel::sram_um2_per_bit, area);
  a.def(
      "__eq__", [](const AreaModel& x, const AreaModel& y) { return x == y; }, py::is_operator());
}

Arch load_arch(const std::string& spec) {
  Arch a = io::load_arch(spec, "<argument hw>");
  return a;
}

// Pickling (multiprocessing): every field, validated again on the way back.
py::tuple arch_state(const Arch& a) {
  const auto& e = a.energy;
  return py::make_tuple(a.name, a.source, a.num_pes, a.array_shape, a.l1_bytes, a.l2_bytes,
                        a.noc_words_per_cycle, a.offchip_words_per_cycle, a.word_bytes, a.clock_mhz,
                        std::vector<double>{e.mac_pj, e.l1_read_pj, e.l1_write_pj, e.l2_read_pj,
                                            e.l2_write_pj, e.noc_pj, e.offchip_pj},
                        std::make_pair(a.area.pe_um2, a.area.sram_um2_per_bit));
}

Arch arch_from_state(const py::tuple& t) {
  Arch a;
  a.name = t[0].cast<std::string>();
  a.source = t[1].cast<std::string>();
  a.num_pes = t[2].cast<int64_t>();
  a.array_shape = t[3].cast<std::vector<int64_t>>();
  a.l1_bytes = t[4].cast<int64_t>();
  a.l2_bytes = t[5].cast<int64_t>();
  a.noc_words_per_cycle = t[6].cast<double>();
  a.offchip_words_per_cycle = t[7].cast<double>();
  a.word_bytes = t[8].cast<int64_t>();
  a.clock_mhz = t[9].cast<double>();
  const auto e = t[10].cast<std::array<double, 7>>();
  a.energy = {e[0], e[1], e[2], e[3], e[4], e[5], e[6]};
  const auto ar = t[11].cast<std::pair<double, double>>();
  a.area = {ar.first, ar.second};
  check_arch(a);
  return a;
}

void bind_arch_class(py::module_& m) {
  py::class_<Arch> c(m, "Arch",
                     "A spatial accelerator (arch::Arch). Every field is editable; each write is "
                     "checked against its physical range, and evaluate() checks the whole.");
  c.def(py::init([](const std::string& base, const py::kwargs& fields) {
          Arch a = base.empty() ? Arch{} : load_arch(base);
          py::object self = py::cast(a);
          for (auto [k, v] : fields) py::setattr(self, k, v);
          Arch out = self.cast<Arch>();
          check_arch(out);
          return out;
        }),
        py::arg("base") = "",
        "Arch(base='', **fields): a preset or file (or the struct's defaults) with fields "
        "overridden, e.g. Arch('gamma-edge', num_pes=64, l2_bytes=65536).");
  auto self = [](Arch& a) -> Arch& { return a; };
  c.def_readwrite("name", &Arch::name).def_readwrite("source", &Arch::source);
  def_checked(c, "num_pes", &Arch::num_pes, self);
  def_checked(c, "l1_bytes", &Arch::l1_bytes, self);
  def_checked(c, "l2_bytes", &Arch::l2_bytes, self);
  def_checked(c, "noc_words_per_cycle", &Arch::noc_words_per_cycle, self);
  def_checked(c, "offchip_words_per_cycle", &Arch::offchip_words_per_cycle, self);
  def_checked(c, "word_bytes", &Arch::word_bytes, self);
  def_checked(c, "clock_mhz", &Arch::clock_mhz, self);
  c.def_property(
      "array_shape", [](const Arch& a) { return a.array_shape; },
      [](Arch& a, const std::vector<int64_t>& shape) {
        Arch probe;
        probe.array_shape = shape;
        int64_t prod = 1;
        for (int64_t d : shape)  // entries out of range are check_fields' to name
          if (d >= 1 && d <= arch::kMaxPes) prod = std::min(prod * d, arch::kMaxPes + 1);
        probe.num_pes = std::min(prod, arch::kMaxPes);
        check_probe(probe);
        a.array_shape = shape;
      },
      "Physical PE array shape, outermost first ([] = flat); must multiply to num_pes");
  c.def_readwrite("energy", &Arch::energy).def_readwrite("area", &Arch::area);
  c.def_property_readonly("area_mm2", &arch::area_mm2, "PEs and all SRAM, mm^2")
      .def("validate", &check_arch, "Raises ValueError naming the first field out of range.")
      .def("to_yaml", &io::write_arch_yaml, "The YAML that load_arch reads back")
      .def(
          "to_dict",
          [](const Arch& a, bool hierarchy) {
            nlohmann::json j = arch::arch_json(a);
            if (hierarchy) j["hierarchy"] = arch::hierarchy_json(arch::to_hierarchy(a));
            return json_object(j);
          },
          py::arg("hierarchy") = false,
          "The JSON of `sparsemap arch HW --json` (hierarchy=True: of --hierarchy) as a dict")
      .def(py::pickle(&arch_state, &arch_from_state))
      .def("copy", [](const Arch& a) { return a; })
      .def("__copy__", [](const Arch& a) { return a; })
      .def("__deepcopy__", [](const Arch& a, py::dict) { return a; })
      .def(
          "__eq__", [](const Arch& a, const Arch& b) { return a == b; }, py::is_operator())
      .def("__repr__", [](const Arch& a) {
        return "Arch('" + a.name + "', " + std::to_string(a.num_pes) + " PEs, L1 " +
               std::to_string(a.l1_bytes) + " B/PE, L2 " + std::to_string(a.l2_bytes) + " B)";
      });
}

}  // namespace

void check_arch(const Arch& a) { arch::validate(a, "<argument arch>"); }

void bind_arch(py::module_& m) {
  bind_parts(m);
  bind_arch_class(m);
  m.def("arch", &load_arch, py::arg("hw"),
        "An accelerator as the CLI's --hw takes it: a preset name, a MAESTRO .m hardware file "
        "or a YAML file.");
  m.def("load_arch", &load_arch, py::arg("path"), "Same as arch(): a preset name or a file.");
  m.def("parse_arch_yaml", &io::parse_arch_yaml, py::arg("text"), py::arg("file") = "<yaml>",
        "An accelerator from YAML text (the keys of Arch; `base: PRESET`).");
  m.def(
      "arch_presets",
      [] {
        std::vector<std::string> names;
        for (const Arch& a : arch::presets()) names.push_back(a.name);
        return names;
      },
      "Names of the accelerator presets.");
  m.def(
      "presets", [] { return json_object(arch::presets_json()["presets"]); },
      "Every preset as Arch.to_dict() gives it: the list of `sparsemap arch --list --json`.");
}

}  // namespace sparsemap::python
