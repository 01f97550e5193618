// `sparsemap schedule --plot`: the first run's Gantt chart with the bandwidth in use (run.h).
#include <cmath>
#include <filesystem>
#include <fstream>

#include "sparsemap/dse/schedule/run.h"
#include "sparsemap/error.h"
#include "sparsemap/numbers.h"
#include "sparsemap/plot/gnuplot.h"

namespace sparsemap::dse::schedule {

namespace {

// The first line of each file written beside a plot: an existing file there is replaced only
// when it starts with it (an earlier run's), never a file of the user's.
constexpr const char* kPlotMarker = "# sparsemap schedule plot";

void check_plot_side_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  if (std::filesystem::is_directory(path, ec))
    throw InputError({path, 0, 0}, "is a directory; expected a file name for the plot data");
  std::ifstream f(path);
  std::string first;
  std::getline(f, first);
  if (first.rfind(kPlotMarker, 0) != 0)
    throw InputError({path, 0, 0},
                     "exists and was not written by sparsemap schedule; remove it or choose "
                     "another --plot name");
}

// Gantt chart (one row per core, one box per job, coloured by tenant) above the DRAM bandwidth
// in use over time, with the available bandwidth as a line. Data: PLOT.jobs.dat and
// PLOT.bw.dat; script: PLOT.gp (rerun with `gnuplot PLOT.gp`).
void write_gantt(const std::string& path, const JobTable& t, const SimResult& r, double bw,
                 const std::string& title) {
  if (!plot::is_plot_path(path))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file name");
  const std::string jobs_path = path + ".jobs.dat", bw_path = path + ".bw.dat";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError({path, 0, 0}, "is a directory; expected a .png or .svg file name");
  for (const auto& p : {jobs_path, bw_path, path + ".gp"}) check_plot_side_file(p);
  {
    std::ofstream f(jobs_path);
    if (!f) throw InputError({jobs_path, 0, 0}, "cannot write the plot data");
    f << kPlotMarker << ": core start_cycles end_cycles tenant job\n";
    for (const auto& j : r.jobs)
      f << j.core << " " << j.start_cycles << " " << j.end_cycles << " " << t.jobs[j.job].thread
        << " " << j.job << "\n";
  }
  {
    std::ofstream f(bw_path);
    if (!f) throw InputError({bw_path, 0, 0}, "cannot write the plot data");
    f << kPlotMarker << ": time_cycles bw_in_use (step starting at time)\n";
    for (const auto& s : r.bw_trace) {
      double total = 0;
      for (double v : s.bw_by_core) total += v;
      f << s.start_cycles << " " << total << "\n";
    }
    f << r.makespan_cycles << " 0\n";
  }
  std::string ytics;
  for (int c = 0; c < t.num_cores; ++c)
    ytics += (c ? ", " : "") + plot::gnuplot_quote(t.core_names[c]) + " " + std::to_string(c);
  std::string g =
      std::string(kPlotMarker) + ": Gantt chart\n" + plot::gnuplot_header(path, 1000, 650);
  g += "set termoption noenhanced\n";  // core names hold underscores
  g += "set multiplot layout 2,1 title " + plot::gnuplot_quote(title) + "\n";
  g += "set lmargin 22\nset xrange [0:" + std::to_string(r.makespan_cycles) + "]\n";
  g += "set ytics (" + ytics + ")\nset yrange [-0.6:" + std::to_string(t.num_cores - 0.4) + "]\n";
  g += "unset key\nset ylabel 'core'\nset style fill solid 0.8 border lc rgb 'black'\n";
  g += "plot " + plot::gnuplot_quote(jobs_path) +
       " using (($2+$3)/2):1:(($3-$2)/2):(0.38):4 with boxxyerror lc variable\n";
  g += "set ytics auto\nset yrange [0:*]\nset xlabel 'time (cycles)'\n";
  g += "set ylabel 'DRAM bandwidth in use'\nset key top right\n";
  g += "plot " + plot::gnuplot_quote(bw_path) +
       " using 1:2 with fillsteps lc rgb '#4477aa' title " + "'in use', " + std::to_string(bw) +
       " with lines lw 2 lc rgb '#cc3311' title 'available'\n";
  g += "unset multiplot\n";
  plot::render_gnuplot(g, path + ".gp", jobs_path);
}

}  // namespace

void write_plot(const Result& r) {
  if (r.options.plot.empty()) return;
  const std::string& main = r.runs.front().name;
  write_gantt(r.options.plot, r.table, r.detail, r.options.bw,
              main + ": makespan " + with_commas(std::llround(r.detail.makespan_cycles)) +
                  " cycles, lower bound " + with_commas(std::llround(r.lower_bound_cycles)));
}

}  // namespace sparsemap::dse::schedule
