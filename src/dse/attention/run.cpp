// `sparsemap attention`'s work (dse/attention/run.h): the model's attention shape, the lengths,
// and per length the mapped GEMMs, the unfused baseline and FLAT's search; the table's cases and
// their summary beside the paper's figures.
#include "sparsemap/dse/attention/run.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/util.h"
#include "sparsemap/numbers.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::dse::attention {
namespace {

// FLAT's workloads (FuseMax's flat_validation.csv columns B, D, E, F, H, S).
struct BuiltinModel {
  const char* name;
  int64_t d_model, heads, e, f, ffn;
};
constexpr BuiltinModel kBuiltin[] = {{"bert", 768, 12, 64, 64, 3072},
                                     {"trxl", 1024, 16, 64, 64, 4096},
                                     {"t5", 512, 8, 64, 64, 2048},
                                     {"xlm", 2048, 16, 128, 128, 8192}};

// The attention shape of a zoo model's first attention block (Q K^T and A V batched GEMMs, the
// widest GEMM / FC after them as the FFN); `name` becomes the model's name.
cost::AttentionShape zoo_shape(const std::string& model, std::string& name) {
  const workload::Model m = workload::zoo_model(model, {1, 0, 0});
  name = m.name;
  const workload::Layer* scores = nullptr;
  const workload::Layer* context = nullptr;
  int64_t ffn = 0;
  for (const auto& l : m.layers) {
    if (l.kind == workload::OpKind::BatchedGemm) {
      if (!scores) {
        scores = &l;
      } else if (!context) {
        context = &l;
      } else {
        break;
      }
    } else if (scores && (l.kind == workload::OpKind::Gemm || l.kind == workload::OpKind::Fc)) {
      ffn = std::max(ffn, l.kind == workload::OpKind::Gemm ? l.dim(workload::Dim::N)
                                                           : l.dim(workload::Dim::K));
    }
  }
  if (!scores || !context)
    throw InputError({"<flag --model>", 0, 0},
                     "model '" + model + "' has no attention (Q K^T and A V batched GEMMs); " +
                         "expected bert, trxl, t5, xlm or a transformer of the zoo");
  cost::AttentionShape s;
  s.heads = scores->dim(workload::Dim::G);  // batch 1
  s.e = scores->dim(workload::Dim::K);
  s.f = context->dim(workload::Dim::N);
  s.d_model = s.heads * s.e;
  s.ffn = ffn;
  return s;
}

// The attention shape of a builtin model or of a zoo model's first attention block, with the
// options' overrides.
cost::AttentionShape model_shape(const Options& o, const std::string& model, std::string& name) {
  cost::AttentionShape s;
  bool found = false;
  for (const auto& m : kBuiltin)
    if (model == m.name) {
      s.heads = m.heads, s.e = m.e, s.f = m.f, s.d_model = m.d_model, s.ffn = m.ffn;
      name = m.name;
      found = true;
    }
  if (!found) s = zoo_shape(model, name);
  s.batch = o.batch;
  constexpr int64_t kUnset = Options::kUnset;
  if (o.heads != kUnset) s.heads = o.heads;
  if (o.head_dim != kUnset) s.e = o.head_dim, s.f = o.head_dim;
  if (o.v_head_dim != kUnset) s.f = o.v_head_dim;
  if (o.d_model != kUnset) s.d_model = o.d_model;
  if (o.ffn != kUnset) s.ffn = o.ffn;
  return s;
}

// One model on one accelerator (`hw_name`: a preset or file, or what names o.hw_object), each
// length in `seqs`; progress as `item` of `items`.
CaseResult run_case(const Options& o, const std::string& hw_name, const std::string& model,
                    const std::vector<int64_t>& seqs, size_t item, size_t items,
                    search::Observer& observer) {
  CaseResult c;
  c.shape = model_shape(o, model, c.model);
  const arch::Arch arch = o.hw_object && !o.table ? *o.hw_object : io::load_arch(hw_name);
  const cost::AttentionHw hw = cost::attention_hw(arch, hw_name);
  c.hw = arch.name.empty() ? hw_name : arch.name;
  SearchOptions so;
  so.objective = parse_objective(o.objective);
  so.algo = o.algo;
  so.budget = o.budget;
  so.seed = o.seed;
  search::Progress p;
  p.item = item;
  p.items = items;
  p.total = static_cast<int64_t>(seqs.size());
  for (int64_t n : seqs) {
    cost::AttentionShape s = c.shape;
    s.queries = s.keys = n;
    cost::validate_attention(s, hw, "<flags>");
    p.label = c.model + " " + c.hw + " N=" + seq_text(n);
    search::report_progress(observer, p);
    SeqResult r;
    r.seq = n;
    r.gemms = map_block(s, arch, o.map_budget, o.seed);
    r.base = best_unfused(s, hw, r.gemms);
    so.flat.qk_compute_s = r.gemms.qk_s;
    so.flat.av_compute_s = r.gemms.av_s;
    r.flat = search_flat(s, hw, so);
    c.rows.push_back(r);
    ++p.done;
  }
  p.label = c.model + " " + c.hw;
  search::report_progress(observer, p);
  observer.on_search_done();
  return c;
}

// The table's summary rows of `cases` on `hw`: each model's, then "all".
void summarise(const std::vector<CaseResult>& cases, const std::string& hw,
               std::vector<SummaryRow>& out) {
  std::vector<double> all_x, all_e;
  for (const auto& c : cases) {
    if (c.hw != hw) continue;
    std::vector<double> x, e, lx;
    SummaryRow row;
    row.hw = hw;
    row.model = c.model;
    for (const auto& r : c.rows) {
      if (r.seq <= 65536) {
        x.push_back(r.speedup());
        e.push_back(r.flat.cost.energy_pj / r.base.energy_pj);
        lx.push_back(r.layer_speedup());
      } else if (r.seq == 256 * 1024) {
        row.speedup_256k = r.speedup();
      } else if (r.seq == 1024 * 1024) {
        row.speedup_1m = r.speedup();
      }
    }
    all_x.insert(all_x.end(), x.begin(), x.end());
    all_e.insert(all_e.end(), e.begin(), e.end());
    row.speedup_geomean = geomean(x);
    row.energy_saving_pct_geomean = 100 * (1 - geomean(e));
    row.layer_speedup_geomean = geomean(lx);
    out.push_back(row);
  }
  SummaryRow all;
  all.hw = hw;
  all.model = "all";
  all.speedup_geomean = geomean(all_x);
  all.energy_saving_pct_geomean = 100 * (1 - geomean(all_e));
  out.push_back(all);
}

// The four models on edge and cloud (512 .. 64K; cloud also 256K and 1M), then the summary.
void run_table(const Options& o, search::Observer& observer, Result& r) {
  const std::vector<int64_t> base_seqs = parse_seqs("512,1K,2K,4K,8K,16K,32K,64K");
  const size_t items = 2 * std::size(kBuiltin);
  for (const char* hw : {"flat-edge", "flat-cloud"})
    for (const auto& m : kBuiltin) {
      std::vector<int64_t> seqs = base_seqs;
      if (std::string(hw) == "flat-cloud") {
        seqs.push_back(256 * 1024);
        seqs.push_back(1024 * 1024);
      }
      r.cases.push_back(run_case(o, hw, m.name, seqs, r.cases.size(), items, observer));
    }
  for (const char* hw : {"flat-edge", "flat-cloud"}) summarise(r.cases, hw, r.summary);
}

}  // namespace

double paper_speedup(const std::string& hw) { return hw == "flat-edge" ? 1.94 : 1.76; }
int paper_energy_saving_pct(const std::string& hw) { return hw == "flat-edge" ? 49 : 42; }

std::vector<int64_t> parse_seqs(const std::string& text) {
  std::vector<int64_t> out;
  for (const auto& item : io::split_list(text)) {
    int64_t mult = 1;
    std::string digits = item;
    const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(item.back())));
    if (last == 'K' || last == 'M') {
      mult = last == 'K' ? 1024 : 1024 * 1024;
      digits.pop_back();
    }
    const bool ok =
        !digits.empty() && digits.size() <= 9 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!ok)
      throw InputError({"<flag --seq>", 0, 0},
                       "expected sequence lengths like 512,1K,64K,1M (got '" + item + "')");
    out.push_back(std::stoll(digits) * mult);
    if (out.back() < 1 || out.back() > (int64_t{1} << 24))
      throw InputError({"<flag --seq>", 0, 0},
                       "expected sequence lengths of 1 to 16M tokens (got '" + item + "')");
  }
  if (out.empty()) throw InputError({"<flag --seq>", 0, 0}, "expected at least one length");
  return out;
}

std::string seq_text(int64_t n) {
  if (n >= 1048576 && n % 1048576 == 0) return std::to_string(n / 1048576) + "M";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n / 1024) + "K";
  return std::to_string(n);
}

void check_sizes(const Options& o) {
  constexpr int64_t kMaxSize = int64_t{1} << 24;  // validate_attention's bound
  const std::string most = "16,777,216";
  auto in_range = [&](const char* flag, int64_t v, int64_t lo) {
    if (v == Options::kUnset) return;
    if (v < lo || v > kMaxSize)
      throw InputError({flag, 0, 0}, "expected " + std::to_string(lo) + " to " + most + ", found " +
                                         std::to_string(v));
  };
  in_range("<flag --batch>", o.batch, 1);
  in_range("<flag --heads>", o.heads, 1);
  in_range("<flag --head-dim>", o.head_dim, 1);
  in_range("<flag --v-head-dim>", o.v_head_dim, 1);
  in_range("<flag --d-model>", o.d_model, 1);
  in_range("<flag --ffn>", o.ffn, 1);
  if (o.budget < 1 || o.budget > search::kMaxBudget)
    throw InputError({"<flag --budget>", 0, 0}, "expected 1 to " + with_commas(search::kMaxBudget) +
                                                    " samples, found " + std::to_string(o.budget));
  if (o.map_budget < 1 || o.map_budget > search::kMaxBudget)
    throw InputError({"<flag --map-budget>", 0, 0},
                     "expected 1 to " + with_commas(search::kMaxBudget) + " samples, found " +
                         std::to_string(o.map_budget));
}

Result run(const Options& o, search::Observer& observer) {
  check_sizes(o);
  parse_objective(o.objective);
  Result r;
  r.options = o;
  r.options.hw_object.reset();
  if (o.table) {
    run_table(o, observer, r);
    return r;
  }
  const std::vector<int64_t> seqs = parse_seqs(o.seq);
  // An accelerator object is named by its name, or "hw" (the keyword that gave it).
  const std::string hw_name =
      o.hw_object ? (o.hw_object->name.empty() ? std::string("hw") : o.hw_object->name) : o.hw;
  r.cases.push_back(run_case(o, hw_name, o.model, seqs, 0, 1, observer));
  return r;
}

}  // namespace sparsemap::dse::attention
