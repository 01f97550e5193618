// `sparsemap spmm-bench`: times the sparse kernels against OpenBLAS sgemm on the same matrices,
// in the same process, and prints speedups and the break-even sparsity of each format. The
// work is measure::spmm_bench::run (measure/spmm_bench_run.h); this file is flags -> Options,
// then the tables and the JSON.
//
// Measure with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset: `env -u OPENBLAS_CORETYPE -u
// OPENBLAS_L2_SIZE sparsemap spmm-bench ...`; the command warns when they are set (it never
// changes them itself). On a machine shared with other busy processes, multi-threaded timings
// are unfair (see busy_machine_warning); the numbers in the note were taken under
// `chrt -f 1`.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/measure/spmm_bench_run.h"

namespace sparsemap::cli {

namespace {

namespace sb = measure::spmm_bench;

// The flags of `spmm-bench` that only the CLI has (how to print), beside the run's Options.
struct SpmmBenchArgs {
  sb::Options o;
  bool detail = false;
  std::string json;
};

// Progress: one line redrawn in place and each shape's dense figures, on a terminal only (the
// figures also not when the JSON goes to stdout).
class ProgressLine : public search::Observer {
 public:
  ProgressLine(bool bar, bool notes) : bar_(bar), notes_(notes) {}
  void on_progress(const search::Progress& p) override {
    if (!bar_) return;
    const size_t space = p.label.find(' ');  // label: "MxKxN WHAT"
    std::fprintf(stderr, "\r[%lld/%lld] %s %-24s", static_cast<long long>(p.done),
                 static_cast<long long>(p.total), p.label.substr(0, space).c_str(),
                 p.label.substr(space + 1).c_str());
  }
  void on_search_done() override {
    if (bar_) std::fprintf(stderr, "\r%70s\r", "");
  }
  void on_note(const std::string& text) override {
    if (bar_ && notes_) std::cerr << text << "\n";
  }

 private:
  bool bar_ = false, notes_ = false;
};

// The table's cell: "none" (no tested sparsity beats dense), "<= 50%" (every tested sparsity
// does, so the break-even is at or below the lowest), else the interpolated sparsity.
std::string break_even_text(const sb::FormatSummary& f) {
  if (f.break_even < 0) return "none";
  if (!f.geomean.empty() && f.break_even <= f.geomean.front().sparsity)
    return "<= " + fixed(100 * f.break_even, 0) + "%";
  return fixed(100 * f.break_even, 1) + "%";
}

// Per format: the geomean speedup at each target sparsity ("-" where the format was not run)
// and the break-even sparsity.
Table summary_table(const sb::Result& r) {
  std::vector<std::string> header{"format"};
  for (double s : r.sparsities) header.push_back(fixed(100 * s, 0) + "%");
  header.push_back("break-even");
  Table table(header);
  for (const sb::FormatSummary& f : r.summary) {
    const double own = f.spec.intrinsic_sparsity();
    std::vector<std::string> cells{f.spec.str()};
    for (double s : r.sparsities) {
      const double key = own >= 0 ? own : s;
      const sb::FormatSummary::Point* at = nullptr;
      for (const auto& pt : f.geomean)
        if (pt.sparsity == key) at = &pt;
      cells.push_back(
          at && (own < 0 || std::fabs(s - own) < 1e-9) ? fixed(at->geomean_speedup, 2) + "x" : "-");
    }
    cells.push_back(break_even_text(f));
    table.add(cells);
  }
  return table;
}

// Flags -> Options, check them, warn about the timing environment, run, print, JSON.
void run_spmm_bench_cmd(const SpmmBenchArgs& a) {
  const sb::Plan plan = sb::plan(a.o);
  const bool text = a.json != "-";
  ProgressLine observer(isatty(fileno(stderr)) != 0, text);
  warn_timing_environment("spmm-bench");
  const sb::Result r = sb::run(plan, observer);
  if (text) {
    if (a.detail) {
      Table t({"M", "K", "N", "format", "sparsity", "ms", "dense_ms", "speedup", "max_rel_err"});
      for (const sb::Row& row : r.rows)
        t.add({std::to_string(row.shape.m), std::to_string(row.shape.k),
               std::to_string(row.shape.n), row.spec.str(), fixed(row.sparsity, 3),
               fixed(row.ms, 4), fixed(row.dense_ms, 4), fixed(row.dense_ms / row.ms, 2),
               fixed(row.max_err, 7)});
      std::cout << t.str() << "\n";
    }
    std::cout << "Geomean speedup over OpenBLAS sgemm on " << r.shapes.size() << " shapes, "
              << r.threads << " threads (ISA " << r.isa << ", OpenBLAS core " << r.openblas_core
              << ")\n"
              << summary_table(r).str() << "dense: geomean " << fixed(r.dense_geomean_gflops, 1)
              << " GFLOP/s\n"
              << "break-even: the sparsity where a format starts beating dense (\"<= S\": it wins "
                 "at every tested sparsity; \"none\": at none)\n";
  }
  if (!a.json.empty()) write_json(sb::to_json(r), a.json);
}

}  // namespace

void register_spmm_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "spmm-bench",
      "Time sparse kernels against OpenBLAS sgemm (run with env -u OPENBLAS_CORETYPE -u "
      "OPENBLAS_L2_SIZE)");
  auto a = std::make_shared<SpmmBenchArgs>();
  add_options(cmd, sb::option_table(), a->o, {{"--detail", &a->detail}, {"--json", &a->json}});
  cmd->callback([a] { run_spmm_bench_cmd(*a); });
}

}  // namespace sparsemap::cli
