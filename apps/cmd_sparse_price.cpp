// `sparsemap sparse-price`: a model pruned by our pruner, priced on a Sparseloop-described
// accelerator, per layer and in total (dense vs. sparse cycles and energy), beside the measured
// CPU SpMM of the same pruned layers. The work is dse::sparse_price::run
// (dse/sparse_price/run.h); this file is flags -> Options, then the table.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "option_table.h"
#include "sparsemap/dse/sparse_price/run.h"

namespace sparsemap::cli {
namespace {

namespace sp = dse::sparse_price;

struct SparsePriceArgs {
  sp::Options o;
  std::string json;
  bool quiet = false;
};

// The progress line on stderr: the mapper's per distinct layer, then the pricing's per layer.
class ProgressLine : public search::Observer {
 public:
  explicit ProgressLine(bool bar) : bar_(bar) {}
  void on_progress(const search::Progress& p) override {
    if (!bar_) return;
    if (p.label == "map") return print_search_progress(p.item, p.items, p.done, p.total, p.best);
    std::fprintf(stderr, "\r%s %lld/%lld layers   ", p.label.c_str(),
                 static_cast<long long>(p.done), static_cast<long long>(p.total));
  }
  void on_search_done() override {
    if (bar_) std::fprintf(stderr, "\n");
  }
  void on_warning(const std::string& text) override { print_warning(text); }

 private:
  bool bar_ = false;
};

std::string ratio_text(double x) { return x > 0 ? fixed(x, 3) : "-"; }

void print_table(const sp::Result& r, std::ostream& out) {
  const bool spmm = r.options.spmm;
  std::vector<std::string> head = {"layer",         "density",   "dense cycles", "dense uJ",
                                   "sparse cycles", "sparse uJ", "speedup",      "energy x"};
  if (spmm) head.insert(head.end(), {"cols", "blas ms", "spmm ms", "spmm x"});
  Table t(head);
  for (const sp::LayerRow& l : r.layers) {
    std::vector<std::string> row = {l.name, fixed(l.weight_density, 4)};
    if (l.found)
      row.insert(row.end(), {with_commas(l.dense.cycles), fixed(l.dense.energy_pj * 1e-6, 3),
                             with_commas(l.sparse.cycles), fixed(l.sparse.energy_pj * 1e-6, 3),
                             ratio_text(l.speedup()), ratio_text(l.energy_ratio())});
    else
      row.insert(row.end(), {"-", "-", "-", "-", "-", "-"});
    if (l.spmm)
      row.insert(row.end(), {std::to_string(l.spmm->cols), fixed(l.spmm->dense_ms, 3),
                             fixed(l.spmm->sparse_ms, 3), ratio_text(l.spmm->speedup())});
    t.add(row);
  }
  const sp::Totals& x = r.total;
  std::vector<std::string> total = {"total",
                                    fixed(x.weight_density(), 4),
                                    with_commas(x.dense.cycles),
                                    fixed(x.dense.energy_pj * 1e-6, 3),
                                    with_commas(x.sparse.cycles),
                                    fixed(x.sparse.energy_pj * 1e-6, 3),
                                    ratio_text(x.speedup()),
                                    ratio_text(x.energy_ratio())};
  if (spmm)
    total.insert(total.end(),
                 {"", fixed(x.spmm_dense_ms, 3), fixed(x.spmm_sparse_ms, 3),
                  ratio_text(x.spmm_sparse_ms > 0 ? x.spmm_dense_ms / x.spmm_sparse_ms : 0)});
  t.add(total);
  out << t.str();
  for (const sp::LayerRow& l : r.layers)
    if (!l.found) out << "not priced: " << l.name << ": " << l.reason << "\n";
}

void run_sparse_price(const SparsePriceArgs& a) {
  check_output_file(a.json, "--json");
  ProgressLine observer(!a.quiet && a.json != "-" && isatty(2));
  const sp::Result r = sp::run(a.o, observer);
  std::ostringstream unused;
  std::ostream& out = a.json == "-" ? static_cast<std::ostream&>(unused) : std::cout;
  std::string dens;
  for (const auto& [ds, d] : r.densities) dens += ", " + ds + " " + fixed(d, 3);
  out << r.model_name << " pruned " << r.prune.text << " (seed " << a.o.seed << ") on "
      << r.arch_name << " (" << r.arch_file << ")\nWeights: actual pruned tensors"
      << (dens.empty() ? ", other data spaces dense" : dens + " (uniform)") << "\n"
      << r.total.priced << " of " << r.total.layers << " layers priced; mapper " << a.o.budget
      << " evaluations per distinct layer (" << fixed(r.map_s, 1) << " s), pricing "
      << fixed(r.price_s, 1) << " s\n";
  print_table(r, out);
  out << "speedup: dense cycles / sparse cycles; energy x: sparse energy / dense energy\n"
         "(the same mapping; the dense run has every tensor dense)\n";
  if (a.o.spmm)
    out << "spmm: OpenBLAS sgemm / our " << r.prune.format.str() << " kernel (" << r.isa << ", "
        << a.o.threads << " thread(s))\non the same pruned matrices x cols activation columns\n";
  if (!r.spmm_warning.empty()) print_warning(r.spmm_warning);
  if (!a.json.empty()) write_json(sp::to_json(r), a.json);
}

}  // namespace

void register_sparse_price(CLI::App& app) {
  auto a = std::make_shared<SparsePriceArgs>();
  CLI::App* c = app.add_subcommand(
      "sparse-price",
      "Price a model pruned by our pruner on a Sparseloop accelerator (dense vs. sparse cycles "
      "and energy per layer), beside the measured CPU SpMM");
  add_options(c, sp::option_table(), a->o, {{"--json", &a->json}, {"--quiet", &a->quiet}});
  c->callback([a]() {
    if (a->o.spmm) warn_timing_environment("sparse-price --spmm");
    run_sparse_price(*a);
  });
}

}  // namespace sparsemap::cli
