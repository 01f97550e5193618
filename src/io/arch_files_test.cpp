// Tests of the accelerator readers: MAESTRO hardware files, YAML, and load_arch (--hw).
#include "sparsemap/io/arch_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sparsemap/arch/presets.h"
#include "sparsemap/error.h"
#include "support/error_of.h"
#include "support/test_data.h"

namespace sparsemap::io {
namespace {

namespace fs = std::filesystem;

using testing::error_of;

std::string hw_error(const std::string& text) {
  return error_of([&] { parse_maestro_hw(text, "hw.m"); });
}
std::string yaml_error(const std::string& text) {
  return error_of([&] { parse_arch_yaml(text, "a.yaml"); });
}

// A scratch file under the temp directory, removed at the end of the test.
struct TempFile {
  explicit TempFile(const std::string& name, const std::string& text)
      : path((fs::temp_directory_path() / ("sparsemap_arch_test_" + name)).string()) {
    std::ofstream(path) << text;
  }
  ~TempFile() { fs::remove(path); }
  std::string path;
};

TEST(MaestroHw, ReadsAccelerator1) {
  SPARSEMAP_TEST_DATA(ref, "maestro");
  const std::string path = ref + "/accelerator_1.m";
  const arch::Arch a = read_maestro_hw(path);
  EXPECT_EQ(a.num_pes, 256);
  EXPECT_EQ(a.l1_bytes, 100);
  EXPECT_EQ(a.l2_bytes, 3000);
  EXPECT_EQ(a.noc_words_per_cycle, 1000);
  EXPECT_EQ(a.offchip_words_per_cycle, 50);
  EXPECT_EQ(a.name, "accelerator_1");
  EXPECT_EQ(a.source, "MAESTRO hardware file " + path);
  // Everything else is the maestro-example preset's.
  const arch::Arch p = arch::preset("maestro-example");
  EXPECT_EQ(a.energy, p.energy);
  EXPECT_EQ(a.word_bytes, p.word_bytes);
  EXPECT_EQ(load_arch(path), a);
}

TEST(MaestroHw, ReadsEveryReferenceHardwareFile) {
  SPARSEMAP_TEST_DATA(ref, "maestro");
  int n = 0;
  for (const char* dir : {"random", "uneven", "invalid", "defects"})
    for (const auto& e : fs::directory_iterator(ref + "/" + dir)) {
      const std::string p = e.path().string();
      if (p.size() < 5 || p.substr(p.size() - 5) != ".hw.m") continue;
      const arch::Arch a = read_maestro_hw(p);
      EXPECT_GT(a.num_pes, 0) << p;
      ++n;
    }
  EXPECT_EQ(n, 240 + 120 + 8 + 1);
  const arch::Arch g = read_maestro_hw(ref + "/defects/gamma_edge.hw.m");
  EXPECT_EQ(g.num_pes, 168);
  EXPECT_EQ(g.l1_bytes, 512);
  EXPECT_EQ(g.l2_bytes, 108000);
  EXPECT_EQ(g.noc_words_per_cycle, 81920000);
  EXPECT_EQ(g.name, "gamma_edge.hw");
}

TEST(MaestroHw, MissingKeysKeepMaestroDefaultsAndCommentsAreIgnored) {
  const arch::Arch a = parse_maestro_hw(
      "// a comment\n  num_pes: 64 // trailing\r\n\nnoc_bw_cstr : 12.5;\n", "x/y.m");
  const arch::Arch p = arch::preset("maestro-example");
  EXPECT_EQ(a.num_pes, 64);
  EXPECT_EQ(a.noc_words_per_cycle, 12.5);
  EXPECT_EQ(a.l1_bytes, p.l1_bytes);
  EXPECT_EQ(a.l2_bytes, p.l2_bytes);
  EXPECT_EQ(a.offchip_words_per_cycle, p.offchip_words_per_cycle);
  EXPECT_EQ(a.name, "y");
  // A UTF-8 byte order mark (Windows editors) is not part of the first key.
  EXPECT_EQ(parse_maestro_hw("\xEF\xBB\xBFnum_pes: 8\n", "bom.m").num_pes, 8);
}

TEST(MaestroHw, BadFilesGiveLocatedErrors) {
  const std::string keys = "num_pes, l1_size_cstr, l2_size_cstr, noc_bw_cstr or offchip_bw_cstr";
  EXPECT_EQ(hw_error("num_pes: 4\nnum_pe: 3\n"),
            "hw.m:2:1: unknown key 'num_pe': expected " + keys);
  EXPECT_EQ(hw_error("num_pes: abc"),
            "hw.m:1:10: expected a positive integer for num_pes, found 'abc'");
  EXPECT_EQ(hw_error("num_pes: 0"),
            "hw.m:1:10: expected a positive integer for num_pes, found '0'");
  EXPECT_EQ(hw_error("l1_size_cstr: 1.5"),
            "hw.m:1:15: expected a positive integer for l1_size_cstr, found '1.5'");
  EXPECT_EQ(hw_error("l2_size_cstr: 99999999999999999999"),
            "hw.m:1:15: expected a positive integer for l2_size_cstr, found "
            "'99999999999999999999'");
  EXPECT_EQ(hw_error("noc_bw_cstr: -3"),
            "hw.m:1:14: expected a positive number for noc_bw_cstr, found '-3'");
  EXPECT_EQ(hw_error("offchip_bw_cstr:"),
            "hw.m:1:17: expected a positive number for offchip_bw_cstr, found nothing");
  EXPECT_EQ(hw_error("num_pes 4"), "hw.m:1:9: expected ':' after num_pes");
  EXPECT_EQ(hw_error("num_pes: 4 5"), "hw.m:1:12: unexpected '5' after the value of num_pes");
  EXPECT_EQ(hw_error("\n  num_pes: 4\nnum_pes: 5"),
            "hw.m:3:1: num_pes given twice (first on line 2)");
  EXPECT_EQ(hw_error("{ num_pes: 4 }"), "hw.m:1:1: expected a key (" + keys + "), found '{'");
  // An empty file is not silently the default accelerator.
  const std::string none = "hw.m: no hardware keys; expected " +
                           std::string("num_pes, l1_size_cstr, l2_size_cstr, noc_bw_cstr or ") +
                           "offchip_bw_cstr (an empty file is not an accelerator)";
  EXPECT_EQ(hw_error(""), none);
  EXPECT_EQ(hw_error("// just a comment\n\n"), none);
}

// Physical ranges at the value's line:column (issue 19: 1e-12 words per cycle gave a negative
// runtime, 1e-300 a runtime of INT64_MIN, 2^32 PEs a total of 0 cycles).
TEST(MaestroHw, ValuesOutsideTheirPhysicalRangeAreLocated) {
  EXPECT_EQ(hw_error("num_pes: 256\noffchip_bw_cstr: 1e-12\n"),
            "hw.m:2:18: expected offchip_bw_cstr in [0.001, 1e+12], found 1e-12");
  EXPECT_EQ(hw_error("noc_bw_cstr: 1e-300"),
            "hw.m:1:14: expected noc_bw_cstr in [0.001, 1e+12], found 1e-300");
  EXPECT_EQ(hw_error("num_pes: 4294967296"),
            "hw.m:1:10: expected num_pes in [1, 16777216], found 4294967296");
  EXPECT_EQ(hw_error("l1_size_cstr: 2147483648"),
            "hw.m:1:15: expected l1_size_cstr in [1, 1073741824], found 2147483648");
}

TEST(ArchYaml, RoundTripsEveryPresetAndACustomArch) {
  for (arch::Arch a : arch::presets()) {
    a.name = "copy";
    const std::string text = write_arch_yaml(a);
    EXPECT_EQ(parse_arch_yaml(text, "copy.yaml"), a) << text;
  }
  arch::Arch c = arch::preset("flat-edge");
  c.name = "custom";
  c.source = "tests: a source with: colons, commas and 'quotes'";
  c.array_shape = {4, 8, 32};
  c.num_pes = 4 * 8 * 32;
  c.noc_words_per_cycle = 0.1 + 0.2;  // not exactly representable in short decimal
  c.energy.noc_pj = 1.0 / 3.0;
  c.clock_mhz = 1234.5678;
  EXPECT_EQ(parse_arch_yaml(write_arch_yaml(c), "c.yaml"), c);
}

TEST(ArchYaml, BaseNameAndOverrides) {
  const arch::Arch a = parse_arch_yaml(
      "base: gamma_edge\nnum_pes: 64\narray_shape: [8, 8]\nenergy: {mac_pj: 2.5}\n"
      "area:\n  pe_um2: 100\n",
      "dir/my-acc.yaml");
  arch::Arch want = arch::preset("gamma-edge");
  want.name = "my-acc";
  want.source = "YAML file dir/my-acc.yaml (base gamma-edge)";
  want.num_pes = 64;
  want.array_shape = {8, 8};
  want.energy.mac_pj = 2.5;
  want.area.pe_um2 = 100;
  EXPECT_EQ(a, want);
  // Without base: the default preset.
  const arch::Arch d = parse_arch_yaml("name: small\nl1_bytes: 64\n", "s.yml");
  EXPECT_EQ(d.name, "small");
  EXPECT_EQ(d.num_pes, arch::preset(arch::kDefaultPreset).num_pes);
  EXPECT_EQ(d.l1_bytes, 64);
}

TEST(ArchYaml, BadFilesGiveLocatedErrors) {
  EXPECT_EQ(yaml_error("num_pes: 4\nnum_pez: 3\n"),
            "a.yaml:2:1: unknown key 'num_pez': expected base, name, source, num_pes, array_shape, "
            "l1_bytes, l2_bytes, noc_words_per_cycle, offchip_words_per_cycle, word_bytes, "
            "clock_mhz, energy or area");
  EXPECT_EQ(yaml_error("num_pes: many\n"),
            "a.yaml:1:10: expected an integer for num_pes, found 'many'");
  EXPECT_EQ(yaml_error("clock_mhz: [1, 2]\n"),
            "a.yaml:1:12: expected a single value for clock_mhz");
  EXPECT_EQ(yaml_error("energy:\n  mac_pj: 1\n  foo_pj: 2\n"),
            "a.yaml:3:3: unknown key 'energy.foo_pj': expected mac_pj, l1_read_pj, l1_write_pj, "
            "l2_read_pj, l2_write_pj, noc_pj or offchip_pj");
  EXPECT_EQ(yaml_error("energy: 3\n"), "a.yaml:1:9: expected a mapping of energies");
  EXPECT_EQ(yaml_error("base: tpu\n"), "a.yaml:1:7: unknown preset 'tpu' for base");
  EXPECT_EQ(yaml_error("num_pes: 4\nnum_pes: 5\n"), "a.yaml:2:1: duplicate key 'num_pes'");
  EXPECT_EQ(yaml_error("num_pes: [4\n"),
            "a.yaml:2:1: invalid YAML: end of sequence flow not found");
  EXPECT_EQ(yaml_error(""), "a.yaml: expected a mapping of accelerator fields (num_pes: 256, ...)");
  EXPECT_EQ(yaml_error("- 1\n"),
            "a.yaml:1:1: expected a mapping of accelerator fields (num_pes: 256, ...)");
  // Range errors at the value (they had no line:column).
  EXPECT_EQ(yaml_error("num_pes: 0\n"), "a.yaml:1:10: expected num_pes in [1, 16777216], found 0");
  EXPECT_EQ(yaml_error("array_shape: [3, 5]\n"),
            "a.yaml:1:14: expected array_shape to multiply to num_pes = 256, found [3, 5] "
            "(product 15)");
  EXPECT_EQ(yaml_error("name: x\nenergy:\n  mac_pj: -1\n"),
            "a.yaml:3:11: expected energy.mac_pj in [0, 1000000000], found -1");
  EXPECT_EQ(yaml_error("clock_mhz: 1e-9\n"),
            "a.yaml:1:12: expected clock_mhz in [0.001, 1000000], found 1e-09");
}

TEST(LoadArch, PresetsFilesAndErrors) {
  EXPECT_EQ(load_arch("gamma_edge"), arch::preset("gamma-edge"));
  const TempFile hw("hw.m", "num_pes: 32\n");
  EXPECT_EQ(load_arch(hw.path).num_pes, 32);
  const TempFile y("a.yaml", "num_pes: 16\n");
  EXPECT_EQ(load_arch(y.path).num_pes, 16);
  const TempFile yml("b.yml", "base: flat-edge\n");
  EXPECT_EQ(load_arch(yml.path).num_pes, 1024);
  EXPECT_EQ(error_of([] { load_arch("tpu-v9"); }),
            "<flag --hw>: unknown accelerator 'tpu-v9': expected a preset name (see `sparsemap "
            "arch --list`) or a .m/.yaml file");
  EXPECT_EQ(error_of([] { load_arch("/nonexistent/hw.m"); }),
            "/nonexistent/hw.m: cannot read: No such file or directory");
  // The flag that named it (`arch` takes a positional argument, not --hw).
  EXPECT_EQ(error_of([] { load_arch("tpu-v9", "<argument hw>"); }).substr(0, 37),
            "<argument hw>: unknown accelerator 't");
  // A directory says so.
  const std::string dir = (fs::temp_directory_path() / "sparsemap_arch_test_dir.yaml").string();
  fs::create_directories(dir);
  EXPECT_EQ(error_of([&] { load_arch(dir); }),
            dir + ": cannot read: is a directory, expected a file");
  fs::remove(dir);
}

// A link to an endless device (/dev/zero) stops at the bounded read, for .m and .yaml alike.
TEST(LoadArch, EndlessDevicesStopAtTheBoundedRead) {
  for (const char* name : {"sparsemap_arch_test_zero.m", "sparsemap_arch_test_zero.yaml"}) {
    const fs::path link = fs::temp_directory_path() / name;
    fs::remove(link);
    fs::create_symlink("/dev/zero", link);
    EXPECT_EQ(error_of([&] { load_arch(link.string()); }),
              link.string() + ": more than 256 MiB; expected an input file of sensible size");
    fs::remove(link);
  }
}

}  // namespace
}  // namespace sparsemap::io
