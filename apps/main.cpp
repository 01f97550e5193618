// sparsemap CLI entry point: registers every subcommand and maps errors to exit codes.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.h"
#include "sparsemap/error.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::cli {
// sparse-price (a pruned model priced on a Sparseloop design): apps/cmd_sparse_price.cpp.
void register_sparse_price(CLI::App& app);
}  // namespace sparsemap::cli

int main(int argc, char** argv) {
  sparsemap::cli::remember_args(argc, argv);
  // Under mpirun every rank runs the same command; search evaluations are split over the ranks
  // and only the root prints or writes files.
  const sparsemap::search::MpiSession mpi;
  CLI::App app{"sparsemap: hardware-aware DNN sparsity and accelerator co-design"};
  app.set_version_flag("--version", std::string("sparsemap ") + SPARSEMAP_VERSION);
  app.require_subcommand(1);
  sparsemap::cli::configure_cli(app);
  sparsemap::cli::register_models(app);
  sparsemap::cli::register_show(app);
  sparsemap::cli::register_arch(app);
  sparsemap::cli::register_nongemm(app);
  sparsemap::cli::register_eval(app);
  sparsemap::cli::register_spmm_bench(app);
  sparsemap::cli::register_prune_study(app);
  sparsemap::cli::register_prune_train(app);
  sparsemap::cli::register_map(app);
  sparsemap::cli::register_train(app);
  sparsemap::cli::register_nm_study(app);
  sparsemap::cli::register_mse(app);
  sparsemap::cli::register_codesign(app);
  sparsemap::cli::register_attention(app);
  sparsemap::cli::register_schedule(app);
  sparsemap::cli::register_fuse(app);
  sparsemap::cli::register_hwalloc(app);
  sparsemap::cli::register_report(app);
  sparsemap::cli::register_timeloop(app);
  sparsemap::cli::register_sparse_price(app);
  sparsemap::cli::check_seed_options(app);
  if (argc > 1 && argv[1][0] != '-' &&
      app.get_subcommands([&](CLI::App* sub) { return sub->check_name(argv[1]); }).empty()) {
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
