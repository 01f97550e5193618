// sparsemap.train, sparsemap.nm_study and sparsemap.fuse_train: ml::train::run,
// ml::nm_study::run and ml::fusion::run called directly with the GIL released; each returns
// to_json(result), the CLI's JSON. In `sparsemap._ml` only (they train in libtorch).
#include <pybind11/stl.h>

#include "../bindings.h"
#include "../keywords.h"
#include "sparsemap/ml/fusion/run.h"
#include "sparsemap/ml/nm_study/run.h"
#include "sparsemap/ml/train/run.h"

namespace sparsemap::python {

namespace py = pybind11;

namespace {

namespace tr = ml::train;
namespace ns = ml::nm_study;
namespace ft = ml::fusion;

// `sparsemap train`'s flags (apps/cmd_train.cpp).
const std::vector<Keyword<tr::Options>>& train_keywords() {
  using O = tr::Options;
  static const std::vector<Keyword<O>> table = {
      SM_KW_TEXT(O, "--model", model),
      SM_KW_TEXT(O, "--data", data),
      SM_KW_TEXT(O, "--data-dir", data_dir),
      SM_KW_TEXT(O, "--recipe", recipe),
      SM_KW_TEXT(O, "--nm", nm),
      SM_KW_TEXT(O, "--nm-attention", nm_attention),
      SM_KW_TEXT(O, "--nm-mlp", nm_mlp),
      SM_KW_TEXT(O, "--sequence", sequence),
      SM_KW_NUM(O, "--dense-fraction", dense_fraction, to_double),
      SM_KW_NUM(O, "--fine-fraction", fine_fraction, to_double),
      SM_KW_NUM(O, "--lambda", lambda, to_double),
      SM_KW_NUM(O, "--alpha", alpha, to_double),
      SM_KW_ON(O, "--quick", quick),
      SM_KW_NUM(O, "--epochs", epochs, to_int64),
      SM_KW_NUM(O, "--steps", steps, to_int64),
      SM_KW_NUM(O, "--batch", batch, to_int64),
      SM_KW_NUM(O, "--lr", lr, to_double),
      SM_KW_NUM(O, "--weight-decay", weight_decay, to_double),
      SM_KW_NUM(O, "--train-limit", train_limit, to_int64),
      SM_KW_NUM(O, "--test-limit", test_limit, to_int64),
      SM_KW_NUM(O, "--eval-every", eval_every, to_int64),
      SM_KW_NUM(O, "--seed", seed, to_seed),
      SM_KW_NUM(O, "--threads", threads, to_int64),
      SM_KW_TEXT(O, "--checkpoint", checkpoint),
      SM_KW_TEXT(O, "--resume", resume),
  };
  return table;
}

// `sparsemap nm-study`'s flags (apps/cmd_nm_study.cpp).
const std::vector<Keyword<ns::Options>>& nm_study_keywords() {
  using O = ns::Options;
  static const std::vector<Keyword<O>> table = {
      SM_KW_TEXT(O, "--models", models),
      SM_KW_TEXT(O, "--recipes", recipes),
      SM_KW_TEXT(O, "--ratios", ratios),
      SM_KW_NUM(O, "--seeds", seeds, to_int64),
      SM_KW_NUM(O, "--seed", seed, to_seed),
      SM_KW_ON(O, "--quick", quick),
      SM_KW_NUM(O, "--vit-epochs", vit_epochs, to_int64),
      SM_KW_NUM(O, "--gpt-steps", gpt_steps, to_int64),
      SM_KW_NUM(O, "--threads", threads, to_int64),
      SM_KW_TEXT(O, "--data-dir", data_dir),
      SM_KW_TEXT(O, "--results", results),
      SM_KW_TEXT(O, "--plot", plot),
  };
  return table;
}

// `sparsemap fuse-train`'s flags (apps/cmd_fuse_train.cpp).
const std::vector<Keyword<ft::Options>>& fuse_train_keywords() {
  using O = ft::Options;
  static const std::vector<Keyword<O>> table = {
      SM_KW_TEXT(O, "--models", models),
      SM_KW_TEXT(O, "--batches", batches),
      SM_KW_TEXT(O, "--buffers-kb", buffers_kb),
      SM_KW_NUM(O, "--draws", draws, to_int64),
      SM_KW_TEXT(O, "--hw", hw),
      SM_KW_TEXT(O, "--objective", objective),
      SM_KW_TEXT(O, "--expert", expert),
      SM_KW_NUM(O, "--search-budget", search_budget, to_int64),
      SM_KW_NUM(O, "--epochs", epochs, to_int64),
      SM_KW_NUM(O, "--minibatch", minibatch, to_int64),
      SM_KW_NUM(O, "--lr", lr, to_double),
      SM_KW_NUM(O, "--fuse-weight", fuse_weight, to_double),
      SM_KW_NUM(O, "--d-model", d_model, to_int64),
      SM_KW_NUM(O, "--layers", layers, to_int64),
      SM_KW_NUM(O, "--heads", heads, to_int64),
      SM_KW_NUM(O, "--seed", seed, to_seed),
      SM_KW_NUM(O, "--threads", threads, to_int64),
      SM_KW_TEXT(O, "--out", out),
      SM_KW_TEXT(O, "--checkpoint", checkpoint),
  };
  return table;
}

// Reads `kw` through `table`, runs `run` with the GIL released and returns its JSON.
template <class Options, class Run, class After>
py::object call(const py::kwargs& kw, const std::vector<Keyword<Options>>& table, Run run,
                After after) {
  Options o;
  read_keywords(kw, table, o, {"progress"});
  const auto r = run_released(progress_argument(kw),
                              [&o, &run](search::Observer& obs) { return run(o, obs); });
  after(r);
  return json_object(to_json(r));
}

const char* const kHow =
    " Keyword arguments are the command's flags (foo_bar=x for --foo-bar x, True for a flag); "
    "defaults are the CLI's. Returns the JSON the CLI writes with --json. progress= (a "
    "callable) is called with a dict (item, items, done, total, best, label) as training goes; "
    "Ctrl-C stops between steps (KeyboardInterrupt).";

}  // namespace

void bind_train(py::module_& m) {
  m.def(
      "train",
      [](py::kwargs kw) { return call(kw, train_keywords(), tr::run, [](const tr::Result&) {}); },
      (std::string("`sparsemap train`: an N:M sparse-training recipe on vit-tiny or char-gpt.") +
       kHow)
          .c_str());
  m.def(
      "nm_study",
      [](py::kwargs kw) {
        return call(kw, nm_study_keywords(), ns::run,
                    [](const ns::Result& r) { ns::write_plot(r); });
      },
      (std::string("`sparsemap nm-study`: every recipe at every N:M ratio on each model; "
                   "results= is rewritten after every cell and resumed from; plot= as --plot.") +
       kHow)
          .c_str());
  m.def(
      "fuse_train",
      [](py::kwargs kw) {
        return call(kw, fuse_train_keywords(), ft::run, [](const ft::Result&) {});
      },
      (std::string("`sparsemap fuse-train`: trains DNNFuser's learned fusion mapper on the "
                   "search mappers' best fusion mappings (out= the model file).") +
       kHow)
          .c_str());
}

}  // namespace sparsemap::python
