// Rendering a plot with gnuplot: the script goes through a pipe, file names are quoted for
// gnuplot's own string syntax, and no shell is ever involved.
#pragma once

#include <string>

namespace sparsemap::plot {

// `s` as a gnuplot single-quoted string literal: inside '...' gnuplot interprets nothing but
// a doubled quote, so it's here -> 'it''s here'. Any path or title can go into a script this way.
std::string gnuplot_quote(const std::string& s);

// True when `path` ends in ".png" or ".svg", the two formats every plot offers.
bool is_plot_path(const std::string& path);

// The gnuplot `set terminal ...` and `set output ...` lines for `plot_path` (.svg gives an SVG,
// anything else pngcairo) at width x height pixels.
std::string gnuplot_header(const std::string& plot_path, int width = 800, int height = 500);

// Writes `script` to `script_path` (so the user can edit and rerun it), then runs gnuplot with the
// script on its standard input. `data_path` names the data the script reads, for the message.
// Throws InputError (located at `script_path`) when gnuplot is not on PATH ("Debian
// gnuplot-nox") or fails (with the first line of its error output); the data stays either way.
void render_gnuplot(const std::string& script, const std::string& script_path,
                    const std::string& data_path);

}  // namespace sparsemap::plot
