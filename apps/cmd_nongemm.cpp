// `sparsemap nongemm`: NonGEMM Bench. Profiles a model (or the suite) operator by operator with
// libtorch, splits GEMM from NonGEMM time by the taxonomy file, and projects the split onto
// faster GEMMs (--gemm-speedup) or a modelled accelerator (--hw). The work is ml::nongemm::run
// (ml/nongemm/run.h); this file is flags -> Options, then the tables.
#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/error.h"
#include "sparsemap/ml/nongemm/run.h"

namespace sparsemap::cli {

namespace {

// The flags of `nongemm` that only the CLI has (what to write, how to print), beside the run's
// Options (ml/nongemm/run.h, torch-free: `sparsemap`, built without libtorch, reads the flags
// and hands the command over).
struct NongemmArgs {
  ml::nongemm::Options o;
  std::string json;
  bool quiet = false;
};

#ifdef SPARSEMAP_HAVE_TORCH
namespace ng = ml::nongemm;

// "profiling NAME ..." before each model of --all, on stdout (stderr when the JSON goes to
// stdout); the busy-machine warning wrapped as every warning.
class SuiteProgress : public search::Observer {
 public:
  SuiteProgress(bool all, bool quiet, bool to_stdout)
      : all_(all), quiet_(quiet), to_stdout_(to_stdout) {}
  void on_progress(const search::Progress& p) override {
    if (all_) say("profiling " + p.label + " ...\n");
  }
  void on_warning(const std::string& text) override { print_warning(text); }
  void say(const std::string& s) const {
    if (!quiet_) (to_stdout_ ? std::cerr : std::cout) << s << std::flush;
  }

 private:
  bool all_ = false, quiet_ = false, to_stdout_ = false;
};

// Flags -> Options, run, print the table, write the trace, the JSON and the plot.
void run(const NongemmArgs& a) {
  SuiteProgress observer(a.o.all, a.quiet, a.json == "-");
  const ng::Result r = ng::run(a.o, observer);
  if (a.o.all) {
    observer.say("\n" + ng::suite_text(r.profiles, a.o.gemm_speedup, r.horizons));
  } else {
    std::optional<ng::HwHorizon> hw;
    if (!r.horizons.empty()) hw = r.horizons[0];
    observer.say(ng::profile_text(r.profiles[0], a.o.gemm_speedup, hw, a.o.top));
  }
  ng::write_trace(r);
  if (!a.json.empty()) write_json(ng::to_json(r), a.json);
  ng::write_plot(r);
}
#endif

}  // namespace

void register_nongemm(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "nongemm",
      "NonGEMM Bench: GEMM vs NonGEMM operator time of a model (libtorch, seeded random "
      "weights), by taxonomy group, and its horizon on faster GEMMs or an accelerator");
  auto args = std::make_shared<NongemmArgs>();
  add_options(cmd, ml::nongemm::option_table(), args->o,
              {{"--json", &args->json}, {"--quiet", &args->quiet}});
  cmd->callback([args] {
#ifdef SPARSEMAP_HAVE_TORCH
    run(*args);
#else
    hand_over_to_torch_build();  // returns only when there is no sparsemap-ml
    throw InputError({"<command nongemm>", 0, 0},
                     "this sparsemap was built without libtorch (SPARSEMAP_WITH_TORCH=OFF)");
#endif
  });
}

}  // namespace sparsemap::cli
