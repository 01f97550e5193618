// Presets, validation and the area model.
#include "sparsemap/arch/arch.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sparsemap/arch/presets.h"
#include "sparsemap/error.h"

namespace sparsemap::arch {
namespace {

TEST(Presets, MaestroExampleMatchesAccelerator1) {
  const Arch a = preset("maestro-example");
  EXPECT_EQ(a.num_pes, 256);
  EXPECT_EQ(a.l1_bytes, 100);
  EXPECT_EQ(a.l2_bytes, 3000);
  EXPECT_EQ(a.noc_words_per_cycle, 1000);
  EXPECT_EQ(a.offchip_words_per_cycle, 50);
}

TEST(Presets, GammaAndFlat) {
  const Arch g = preset("gamma_edge");  // underscore alias
  EXPECT_EQ(g.num_pes, 168);
  EXPECT_EQ(g.l1_bytes, 512);
  EXPECT_EQ(g.l2_bytes, 108000);
  EXPECT_EQ(g.noc_words_per_cycle, 81920000);
  const Arch e = preset("flat-edge");
  EXPECT_EQ(e.num_pes, 1024);
  EXPECT_EQ(e.l2_bytes, 512 * 1024);
  EXPECT_EQ(e.word_bytes, 2);
  EXPECT_EQ(e.clock_mhz, 940);
  // 50 GiB/s at 940 MHz with 2-byte words = 28.56 words per cycle.
  EXPECT_NEAR(e.offchip_words_per_cycle, 50.0 * 1073741824 / 940e6 / 2, 1e-9);
  const Arch c = preset("flat-cloud");
  EXPECT_EQ(c.num_pes, 65536);
  EXPECT_EQ(c.l2_bytes, 32 * 1024 * 1024);
  for (const auto& p : presets()) {
    EXPECT_FALSE(p.source.empty()) << p.name;
    EXPECT_NO_THROW(validate(p, p.name));
  }
}

TEST(Presets, UnknownNameListsChoices) {
  try {
    preset("tpu-v9");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "<flag --hw>: unknown accelerator preset 'tpu-v9'; expected one of: "
              "maestro-example, gamma-edge, flat-edge, flat-cloud, or a .m/.yaml file");
  }
}

TEST(Area, DiGammaConstants) {
  Arch a;
  a.num_pes = 168;
  a.l1_bytes = 512;
  a.l2_bytes = 108000;
  // 168 * 282 um^2 + 8 * (168 * 512 + 108000) bits * 0.086 um^2 = 47,376 + 133,483.008 um^2.
  EXPECT_NEAR(area_mm2(a), (168 * 282.0 + 8.0 * (168 * 512 + 108000) * 0.086) / 1e6, 1e-12);
  EXPECT_NEAR(area_mm2(a), 0.180859008, 1e-9);
}

TEST(Validate, RejectsBadFields) {
  Arch a = preset("maestro-example");
  a.num_pes = 0;
  EXPECT_THROW(validate(a, "x.yaml"), InputError);
  a = preset("flat-edge");
  a.array_shape = {32, 16};
  try {
    validate(a, "x.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "x.yaml: expected array_shape to multiply to num_pes = 1024, found [32, 16] "
              "(product 512)");
  }
  // Found by fuzz/arch_yaml_fuzz: the product of a long shape overflowed int64 (UBSan).
  a.array_shape = {16, 6, 429496, 6, 429496729256};
  EXPECT_THROW(validate(a, "x.yaml"), InputError);
  a.array_shape = {32, 32};
  EXPECT_NO_THROW(validate(a, "x.yaml"));
}

// Physical ranges (issue 19): a bandwidth of 1e-12 words per cycle gave a negative runtime and
// 4294967296 PEs every layer invalid; both are refused, with the range, at read time.
TEST(Validate, RejectsFieldsOutsideTheirPhysicalRange) {
  auto problem = [](Arch a) {
    const auto e = check_fields(a);
    return e ? e->message() : std::string("ok");
  };
  const Arch p = preset("maestro-example");
  EXPECT_EQ(problem(p), "ok");
  for (const Arch& q : presets()) EXPECT_EQ(problem(q), "ok") << q.name;
  Arch a = p;
  a.num_pes = int64_t{1} << 32;
  EXPECT_EQ(problem(a), "expected num_pes in [1, 16777216], found 4294967296");
  a = p;
  a.offchip_words_per_cycle = 1e-12;
  EXPECT_EQ(problem(a), "expected offchip_words_per_cycle in [0.001, 1e+12], found 1e-12");
  a = p;
  a.noc_words_per_cycle = 1e-300;
  EXPECT_EQ(problem(a), "expected noc_words_per_cycle in [0.001, 1e+12], found 1e-300");
  a = p;
  a.l2_bytes = int64_t{1} << 41;
  EXPECT_EQ(problem(a), "expected l2_bytes in [1, 1099511627776], found 2199023255552");
  a = p;
  a.energy.noc_pj = std::nan("");
  EXPECT_EQ(problem(a), "expected energy.noc_pj in [0, 1000000000], found nan");
  a = p;
  a.area.pe_um2 = 0;
  EXPECT_EQ(problem(a), "expected area.pe_um2 in (0, 1000000000], found 0");
  a = p;  // a product that would overflow int64 is caught, not wrapped
  a.array_shape = {int64_t{1} << 24, int64_t{1} << 24, int64_t{1} << 24};
  EXPECT_EQ(problem(a),
            "expected array_shape to multiply to num_pes = 256, found [16777216, 16777216, "
            "16777216] (product over 16777216)");
}

}  // namespace
}  // namespace sparsemap::arch
