// `sparsemap prune-study`'s JSON and plot (prune_study.h).
#include <fstream>
#include <sstream>

#include "sparsemap/error.h"
#include "sparsemap/measure/prune_study.h"
#include "sparsemap/plot/gnuplot.h"

namespace sparsemap::measure::prune_study {

nlohmann::json to_json(const Result& r) {
  nlohmann::json per_sparsity = nlohmann::json::array();
  for (const SparsitySummary& s : r.summary) {
    nlohmann::json adaptive = nlohmann::json::array();
    for (const AdaptivePick& a : s.adaptive)
      adaptive.push_back({{"shape", r.shapes[a.shape].name},
                          {"v", a.v},
                          {"ms", a.ms},
                          {"rel_error", a.rel_error},
                          {"speedup_vs_unstructured", a.speedup_vs_unstructured}});
    nlohmann::json geo = nlohmann::json::object();
    geo["unstructured"] = s.geomean_speedup.at(1);
    for (int v : r.vs) geo["v" + std::to_string(v)] = s.geomean_speedup.at(v);
    per_sparsity.push_back({{"sparsity", s.sparsity},
                            {"geomean_speedup_vs_dense", geo},
                            {"best_v", s.best_v},
                            {"gain_vs_unstructured", s.gain_vs_unstructured},
                            {"adaptive_budget", r.options.budget},
                            {"adaptive_gain_vs_unstructured", s.adaptive_gain_vs_unstructured},
                            {"adaptive_error_ratio_geomean", s.adaptive_error_ratio_geomean},
                            {"adaptive", adaptive}});
  }
  nlohmann::json results = nlohmann::json::array();
  for (const Point& p : r.points) {
    const GemmShape& sh = r.shapes[p.shape];
    results.push_back({{"M", sh.m},
                       {"K", sh.k},
                       {"N", sh.n},
                       {"shape", sh.name},
                       {"sparsity", p.sparsity},
                       {"pruning", p.v == 1 ? "unstructured" : "column_vector"},
                       {"format", p.v == 1 ? "csr" : "cvse"},
                       {"v", p.v},
                       {"ms", p.ms},
                       {"dense_ms", p.dense_ms},
                       {"speedup", p.dense_ms / p.ms},
                       {"speedup_vs_unstructured", r.find(p.shape, p.sparsity, 1).ms / p.ms},
                       {"rel_error", p.rel_error}});
  }
  return {{"threads", r.threads},
          {"isa", r.isa},
          {"openblas_core", r.openblas_core},
          {"budget", r.options.budget},
          {"summary", per_sparsity},
          {"results", results}};
}

void write_plot(const Result& r) {
  const std::string& path = r.options.plot;
  if (path.empty()) return;
  const std::string data = path + ".dat";
  {
    std::ofstream out(data);
    out << "# sparsity unstructured";
    for (int v : r.vs) out << " V=" << v;
    out << "\n";
    for (const SparsitySummary& s : r.summary) {
      out << s.sparsity;
      out << " " << s.geomean_speedup.at(1);
      for (int v : r.vs) out << " " << s.geomean_speedup.at(v);
      out << "\n";
    }
    if (!out) throw InputError({data, 0, 0}, "cannot write the plot data");
  }
  if (!plot::is_plot_path(path))
    throw InputError({"<flag --plot>", 0, 0}, "expected a .png or .svg file name");
  std::ostringstream gp;
  gp << plot::gnuplot_header(path)
     << "set title 'SpMM speedup over OpenBLAS sgemm (geomean over shapes)'\n"
     << "set xlabel 'sparsity'\nset ylabel 'speedup'\nset logscale y\nset key left top\n"
     << "set grid\nplot 1 title 'dense' dt 2 lc rgb 'gray', " << plot::gnuplot_quote(data)
     << " using 1:2 with linespoints title 'unstructured (CSR)'";
  for (size_t i = 0; i < r.vs.size(); ++i)
    gp << ", '' using 1:" << i + 3 << " with linespoints title 'column vectors V=" << r.vs[i]
       << "'";
  gp << "\n";
  plot::render_gnuplot(gp.str(), path + ".gp", data);
}

}  // namespace sparsemap::measure::prune_study
