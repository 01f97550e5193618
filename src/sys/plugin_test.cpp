#include "sparsemap/sys/plugin.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace sparsemap::sys {
namespace {

// A plugin that is nowhere: one error naming the file and the loader's answer.
TEST(Plugin, MissingPluginIsAnErrorNamingIt) {
  try {
    open_plugin("no_such_thing");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("plugin 'no_such_thing' not found"), std::string::npos) << what;
    EXPECT_NE(what.find("libsparsemap_no_such_thing.so"), std::string::npos) << what;
  }
}

#ifdef SPARSEMAP_HAVE_MPI
// The MPI plugin is built into the build tree and opens from there, once; its entry points are
// there, and a missing symbol is an error.
TEST(Plugin, MpiPluginOpensOnceWithItsEntryPoints) {
  void* h = open_plugin("mpi");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(open_plugin("mpi"), h);
  EXPECT_NE(plugin_symbol(h, "mpi", "sparsemap_mpi_allgatherv"), nullptr);
  EXPECT_THROW(plugin_symbol(h, "mpi", "sparsemap_mpi_nothing"), std::runtime_error);
}
#endif

}  // namespace
}  // namespace sparsemap::sys
