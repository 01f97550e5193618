// sparsemap CLI entry point: registers the subcommand asked for (every one for the top-level
// help) and maps errors to exit codes.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::cli {
// sparse-price (a pruned model priced on a Sparseloop design): apps/cmd_sparse_price.cpp.
void register_sparse_price(CLI::App& app);
}  // namespace sparsemap::cli

namespace {

// Every subcommand, by the registration that adds it. A command line naming a subcommand
// registers that one alone: registering all of them (thousands of CLI11 options) is a quarter
// of the start-up of a short command.
struct Registration {
  std::vector<const char*> names;  // the subcommands it adds
  void (*add)(CLI::App&);
};
const std::vector<Registration>& registrations() {
  using namespace sparsemap::cli;
  static const std::vector<Registration> all = {
      {{"models"}, register_models},
      {{"show"}, register_show},
      {{"arch"}, register_arch},
      {{"nongemm"}, register_nongemm},
      {{"eval"}, register_eval},
      {{"spmm-bench"}, register_spmm_bench},
      {{"prune-study"}, register_prune_study},
      {{"prune-train", "prune-compare", "prune-overhead"}, register_prune_train},
      {{"map"}, register_map},
      {{"train"}, register_train},
      {{"nm-study"}, register_nm_study},
      {{"mse"}, register_mse},
      {{"codesign"}, register_codesign},
      {{"attention"}, register_attention},
      {{"schedule"}, register_schedule},
      {{"fuse-train", "fuse"}, register_fuse},
      {{"hwalloc"}, register_hwalloc},
      {{"report"}, register_report},
      {{"timeloop"}, register_timeloop},
      {{"sparse-price"}, register_sparse_price}};
  return all;
}

// Registers the subcommand `name` names (true), or every subcommand when it names none.
bool register_commands(CLI::App& app, const char* name) {
  for (const Registration& r : registrations())
    for (const char* n : r.names)
      if (name && std::strcmp(n, name) == 0) {
        r.add(app);
        return true;
      }
  for (const Registration& r : registrations()) r.add(app);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  sparsemap::cli::remember_args(argc, argv);
  // Under mpirun every rank runs the same command; search evaluations are split over the ranks
  // and only the root prints or writes files.
  const sparsemap::search::MpiSession mpi;
  CLI::App app{"sparsemap: hardware-aware DNN sparsity and accelerator co-design"};
  app.set_version_flag("--version", std::string("sparsemap ") + SPARSEMAP_VERSION);
  app.require_subcommand(1);
  sparsemap::cli::configure_cli(app);
  const bool one = register_commands(app, argc > 1 ? argv[1] : nullptr);
  sparsemap::cli::check_seed_options(app);
  if (!one && argc > 1 && argv[1][0] != '-') {
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({}))
      names += (names.empty() ? "" : ", ") + sub->get_name();
    std::fprintf(stderr, "sparsemap: unknown command '%s'; expected one of: %s\n", argv[1],
                 names.c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const sparsemap::InputError& e) {
    std::fprintf(stderr, "sparsemap: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sparsemap: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}
