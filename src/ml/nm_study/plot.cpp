// `sparsemap nm-study --plot`: the table's means and spreads against the ratio, one panel per
// model, rendered with gnuplot (run.h's write_plot).
#include <fstream>
#include <sstream>

#include "sparsemap/error.h"
#include "sparsemap/ml/nm_study/run.h"
#include "sparsemap/plot/gnuplot.h"

namespace sparsemap::ml::nm_study {

// Writes the plot data (one block per model and recipe: ratio index, mean, spread) and renders
// it; throws InputError after writing the data when gnuplot is missing or fails.
void write_plot(const Result& r) {
  const std::string& out = r.options.plot;
  if (out.empty()) return;
  const auto& table = r.table;
  const std::vector<std::string>& ratios = r.ratios;
  const std::string data = out + ".dat";
  std::ofstream d(data);
  std::ostringstream g;
  g << plot::gnuplot_header(out, 1200, 500) << "set multiplot layout 1," << table.size() << "\n"
    << "set key bottom left font ',8'\nset xtics (";
  for (size_t i = 0; i < ratios.size(); ++i)
    g << (i ? ", " : "") << plot::gnuplot_quote(ratios[i]) << " " << i;
  g << ")\n";
  int block = 0;
  for (const auto& [model, recipes] : table) {
    g << "set title " << plot::gnuplot_quote(model) << "\nset ylabel '"
      << (model == "char-gpt" ? "validation nats/char" : "test accuracy %") << "'\nplot ";
    bool first = true;
    for (const auto& [recipe, cells] : recipes) {
      d << "# " << model << " " << recipe << "\n";
      for (size_t i = 0; i < ratios.size(); ++i) {
        auto it = cells.find(recipe == "dense" ? "-" : ratios[i]);
        if (it != cells.end()) d << i << " " << it->second.mean << " " << it->second.spread << "\n";
      }
      d << "\n\n";
      g << (first ? "" : ", ") << plot::gnuplot_quote(data) << " index " << block
        << " using 1:2:3 with yerrorlines title " << plot::gnuplot_quote(recipe);
      first = false;
      ++block;
    }
    g << "\n";
  }
  g << "unset multiplot\n";
  d.close();
  if (!d) throw InputError({data, 0, 0}, "cannot write the plot data");
  plot::render_gnuplot(g.str(), out + ".gp", data);
}

}  // namespace sparsemap::ml::nm_study
