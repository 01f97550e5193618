// Presets, validation and the area model.
#include "sparsemap/arch/arch.h"

#include <gtest/gtest.h>

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
              "x.yaml: array_shape multiplies to 512, expected num_pes = 1024");
  }
  // Found by fuzz/arch_yaml_fuzz: the product of a long shape overflowed int64 (UBSan).
  a.array_shape = {16, 6, 429496, 6, 429496729256};
  try {
    validate(a, "x.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "x.yaml: array_shape multiplies to more than num_pes = 1024");
  }
  a.array_shape = {32, 32};
  EXPECT_NO_THROW(validate(a, "x.yaml"));
}

}  // namespace
}  // namespace sparsemap::arch
