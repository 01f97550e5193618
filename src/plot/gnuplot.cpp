// Rendering plots with gnuplot through a pipe (no shell).
#include "sparsemap/plot/gnuplot.h"

#include <fstream>

#include "sparsemap/error.h"
#include "sparsemap/plot/subprocess.h"

namespace sparsemap::plot {

std::string gnuplot_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\n' || c == '\r') c = ' ';  // a newline would end the command
    q += c;
    if (c == '\'') q += '\'';
  }
  return q + "'";
}

namespace {

// True when `path` is longer than, and ends in, the 4-character `ext` (".png", ".svg").
bool ends_in(const std::string& path, const char* ext) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ext) == 0;
}

}  // namespace

bool is_plot_path(const std::string& path) {
  return ends_in(path, ".png") || ends_in(path, ".svg");
}

std::string gnuplot_header(const std::string& plot_path, int width, int height) {
  const bool svg = ends_in(plot_path, ".svg");
  return std::string("set terminal ") + (svg ? "svg" : "pngcairo") + " size " +
         std::to_string(width) + "," + std::to_string(height) + "\nset output " +
         gnuplot_quote(plot_path) + "\n";
}

void render_gnuplot(const std::string& script, const std::string& script_path,
                    const std::string& data_path) {
  {
    std::ofstream out(script_path);
    out << script;
    if (!out) throw InputError({script_path, 0, 0}, "cannot write the gnuplot script");
  }
  if (find_program("gnuplot").empty())
    throw InputError({script_path, 0, 0},
                     "gnuplot is not installed (Debian gnuplot-nox); the data is in " + data_path);
  const ProcessResult r = run_program({"gnuplot"}, script);
  if (r.exit_status != 0) {
    // gnuplot echoes the offending line and a caret first; its message is the last line.
    std::string first = r.err.substr(0, r.err.find_last_not_of("\n \t") + 1);
    first = first.substr(first.find_last_of('\n') + 1);
    for (char& c : first)
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    if (first.size() > 200) first = first.substr(0, 200) + "...";
    throw InputError({script_path, 0, 0}, "gnuplot failed" + (first.empty() ? "" : ": " + first) +
                                              "; the data is in " + data_path);
  }
}

}  // namespace sparsemap::plot
