// Job batches, platforms and the job-analysis table (see jobs.h).
#include "sparsemap/dse/schedule/jobs.h"

#include <algorithm>
#include <cctype>

#include "sparsemap/arch/arch.h"
#include "sparsemap/arch/maestro_limits.h"
#include "sparsemap/cost/dataflows.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/zoo.h"

namespace sparsemap::dse::schedule {
namespace {

using workload::Dim;
using workload::Layer;
using workload::OpKind;

constexpr const char* kMagmaSource =
    "MAGMA (Kao & Krishna, HPCA 2022), src/setting.py get_setting_v3; 64-PE clusters";

SubAccel core(const std::string& name, int64_t pes, const std::string& df) {
  return {name, pes, df, 0, 0};
}

// "dla" -> "kcp_ws", "shi" -> "yxp_os"; our names (hyphens accepted) pass; else "".
std::string canonical_dataflow(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
    return c == '-' ? '_' : static_cast<char>(std::tolower(c));
  });
  if (s == "dla") return "kcp_ws";
  if (s == "shi") return "yxp_os";
  for (const auto& t : cost::dataflow_templates())
    if (t.name == s) return s;
  return "";
}

std::string shape_text(const Layer& l) {
  std::string s;
  for (Dim d : workload::kAllDims)
    if (l.dim(d) > 1)
      s += (s.empty() ? "" : " ") + std::string(1, workload::dim_letter(d)) + "=" +
           std::to_string(l.dim(d));
  return s;
}

int magma_type(const Layer& l) {
  switch (l.kind) {
    case OpKind::Fc:
      return 0;
    case OpKind::DsConv:
      return 2;
    case OpKind::Gemm:
    case OpKind::BatchedGemm:
      return 3;
    default:
      return 1;
  }
}

struct Tenant {
  const char* model;
  int64_t batch;
  int64_t seq;
};

const std::vector<Tenant>& batch_tenants(const std::string& name) {
  static const std::vector<std::pair<std::string, std::vector<Tenant>>> kBatches = {
      {"vision", {{"resnet18", 1, 0}, {"mobilenet-v2", 1, 0}, {"vgg16", 1, 0}, {"mnasnet", 1, 0}}},
      {"language", {{"bert-base", 1, 128}, {"gpt2", 1, 128}}},
      {"recommendation",
       {{"dlrm", 1, 0},
        {"dlrm", 4, 0},
        {"dlrm", 16, 0},
        {"dlrm", 64, 0},
        {"dlrm", 128, 0},
        {"dlrm", 256, 0},
        {"ncf", 1, 0},
        {"ncf", 4, 0},
        {"ncf", 16, 0},
        {"ncf", 64, 0},
        {"ncf", 128, 0},
        {"ncf", 256, 0}}},
      {"mix",
       {{"resnet18", 1, 0},
        {"mobilenet-v2", 1, 0},
        {"bert-base", 1, 128},
        {"dlrm", 64, 0},
        {"ncf", 256, 0}}},
  };
  for (const auto& [n, v] : kBatches)
    if (n == name) return v;
  static const std::vector<Tenant> kNone;
  return kNone;
}

}  // namespace

const std::vector<Platform>& platform_presets() {
  static const std::vector<Platform> kPresets = [] {
    std::vector<Platform> v;
    v.push_back({"magma-s2", std::string(kMagmaSource) + ", setting 2", {}});
    for (int i = 0; i < 4; ++i)
      v.back().cores.push_back(core("c" + std::to_string(i), 2048, "kcp_ws"));
    v.push_back({"magma-s3", std::string(kMagmaSource) + ", setting 3 (shi -> yxp_os)", {}});
    for (int i = 0; i < 4; ++i)
      v.back().cores.push_back(core("c" + std::to_string(i), 2048, i == 3 ? "yxp_os" : "kcp_ws"));
    v.push_back({"magma-s5", std::string(kMagmaSource) + ", setting 5 (shi -> yxp_os)", {}});
    for (int i = 0; i < 8; ++i)
      v.back().cores.push_back(
          core("c" + std::to_string(i), i < 4 ? 8192 : 4096, i % 4 == 3 ? "yxp_os" : "kcp_ws"));
    v.push_back({"magma-s7", std::string(kMagmaSource) + ", setting 7 (shi -> yxp_os)", {}});
    const int64_t pes[6] = {2048, 4096, 8192, 2048, 4096, 8192};
    for (int i = 0; i < 6; ++i)
      v.back().cores.push_back(core("c" + std::to_string(i), pes[i], i < 3 ? "kcp_ws" : "yxp_os"));
    return v;
  }();
  return kPresets;
}

Platform load_platform(const std::string& name_or_path) {
  for (const auto& p : platform_presets())
    if (p.name == name_or_path) return p;
  const bool looks_like_file =
      name_or_path.find('.') != std::string::npos || name_or_path.find('/') != std::string::npos;
  if (!looks_like_file) {
    std::string names;
    for (const auto& p : platform_presets()) names += (names.empty() ? "" : ", ") + p.name;
    throw InputError({"<flag --platform>", 0, 0}, "unknown platform '" + name_or_path +
                                                      "' (expected " + names + " or a .csv file)");
  }
  Platform p{name_or_path, "file " + name_or_path, {}};
  for (const auto& r : io::read_platform_csv(name_or_path)) {
    const std::string df = canonical_dataflow(r.dataflow);
    if (df.empty())
      throw InputError(
          {name_or_path, r.line, r.dataflow_column},
          "unknown dataflow '" + r.dataflow + "' (expected kcp_ws, xp_ws, yxp_os, dla or shi)");
    p.cores.push_back({r.name, r.pes, df, r.l1_bytes, r.l2_bytes});
  }
  return p;
}

const std::vector<std::string>& job_batch_names() {
  static const std::vector<std::string> kNames = {"vision", "language", "recommendation", "mix"};
  return kNames;
}

workload::Layer layer_from_magma(const io::MagmaJob& j) {
  const auto& d = j.dims;
  const std::string name = "t" + std::to_string(j.thread) + "/l" + std::to_string(j.layer);
  switch (j.type) {
    case 0:
      return workload::fc(name, 1, d[1], d[0], false);
    case 3:
      return workload::gemm(name, d[0], d[1], d[2]);
    default: {
      Layer l;
      l.name = name;
      l.kind = j.type == 2 ? OpKind::DsConv : OpKind::Conv;
      l.dim(Dim::K) = j.type == 2 ? 1 : d[0];
      l.dim(Dim::C) = d[1];
      l.dim(Dim::Y) = d[2];
      l.dim(Dim::X) = d[3];
      l.dim(Dim::R) = d[4];
      l.dim(Dim::S) = d[5];
      return l;
    }
  }
}

static std::string too_many_jobs() {
  return "more than " + std::to_string(kMaxScheduleJobs) +
         " jobs (the heuristics' time grows with jobs squared; expected a smaller batch)";
}

std::vector<Job> load_jobs(const std::string& name_or_path) {
  std::vector<Job> jobs;
  const auto& tenants = batch_tenants(name_or_path);
  if (!tenants.empty()) {
    int64_t thread = 0;
    for (const auto& t : tenants) {
      workload::ZooOptions o;
      o.batch = t.batch;
      o.seq_len = t.seq;
      const auto model = workload::zoo_model(t.model, o);
      const std::string tenant =
          std::string(t.model) + (t.batch > 1 ? "@b" + std::to_string(t.batch) : "");
      int64_t layer = 0;
      for (const auto& l : model.layers) {
        if (!workload::is_gemm_class(l.kind) || l.macs() <= 0) continue;
        Job j;
        j.layer = l;
        j.info = {tenant + "/" + l.name, thread, layer++, shape_text(l), magma_type(l)};
        jobs.push_back(std::move(j));
      }
      ++thread;
    }
    return jobs;
  }
  const bool looks_like_file =
      name_or_path.find('.') != std::string::npos || name_or_path.find('/') != std::string::npos;
  if (!looks_like_file) {
    std::string names;
    for (const auto& n : job_batch_names()) names += (names.empty() ? "" : ", ") + n;
    throw InputError({"<flag --jobs>", 0, 0}, "unknown job batch '" + name_or_path +
                                                  "' (expected " + names + " or a MAGMA job file)");
  }
  for (const auto& mj : io::read_magma_jobs(name_or_path)) {
    if (static_cast<int64_t>(jobs.size()) >= kMaxScheduleJobs)
      throw InputError({name_or_path, mj.line, 1}, too_many_jobs());
    Job j;
    j.layer = layer_from_magma(mj);
    if (j.layer.out_y() < 1 || j.layer.out_x() < 1)
      throw InputError({name_or_path, mj.line, 0},
                       "the filter (R, S) is larger than the input (Y, X)");
    j.info = {j.layer.name, mj.thread, mj.layer, shape_text(j.layer), mj.type};
    jobs.push_back(std::move(j));
  }
  return jobs;
}

JobTable build_job_table(const std::vector<Job>& jobs, const Platform& p, int64_t* cost_evals) {
  JobTable t;
  t.num_jobs = static_cast<int>(jobs.size());
  t.num_cores = static_cast<int>(p.cores.size());
  if (t.num_jobs == 0 || t.num_cores == 0)
    throw InputError({p.name, 0, 0}, "expected at least one job and one core");
  t.latency_cycles.resize(static_cast<size_t>(t.num_jobs) * t.num_cores);
  t.req_bw.resize(t.latency_cycles.size());
  std::vector<arch::Arch> archs;
  for (const auto& c : p.cores) {
    arch::Arch a;
    a.name = c.name;
    a.num_pes = c.pes;
    a.l1_bytes = c.l1_bytes > 0 ? c.l1_bytes : arch::kMaestroUnboundedBufferBytes;
    a.l2_bytes = c.l2_bytes > 0 ? c.l2_bytes : arch::kMaestroUnboundedBufferBytes;
    a.noc_words_per_cycle = arch::kMaestroUnboundedWordsPerCycle;  // MAGMA's --noc_bw_cstr
    a.offchip_words_per_cycle = arch::kMaestroUnboundedWordsPerCycle;
    archs.push_back(a);
    t.core_names.push_back(c.name + ":" + std::to_string(c.pes) + ":" + c.dataflow);
  }
  int64_t evals = 0;
  for (int j = 0; j < t.num_jobs; ++j) {
    t.jobs.push_back(jobs[j].info);
    for (int c = 0; c < t.num_cores; ++c) {
      const auto m = cost::dataflow_mapping(p.cores[c].dataflow, jobs[j].layer, p.cores[c].pes);
      const auto r = cost::evaluate(jobs[j].layer, archs[c], m);
      ++evals;
      if (!r.ok() || r.runtime_cycles <= 0)
        throw InputError({p.name, 0, 0}, "job " + jobs[j].info.name + " on core " +
                                             p.cores[c].name + ": the cost model says " + r.reason);
      const size_t k = static_cast<size_t>(j) * t.num_cores + c;
      t.latency_cycles[k] = static_cast<double>(r.runtime_cycles);
      t.req_bw[k] = r.offchip_words * archs[c].word_bytes / t.latency_cycles[k];
    }
  }
  if (cost_evals) *cost_evals = evals;
  return t;
}

JobTable job_table_from_magma(const io::MagmaTable& m, const std::string& file) {
  if (m.num_jobs > kMaxScheduleJobs) {
    const auto& r = m.rows[static_cast<size_t>(kMaxScheduleJobs * m.num_cores)];
    throw InputError({file, r.line, 1}, too_many_jobs());
  }
  JobTable t;
  t.num_jobs = static_cast<int>(m.num_jobs);
  t.num_cores = static_cast<int>(m.num_cores);
  t.bw_unit = "MAGMA req_dram_bw units";
  for (int c = 0; c < t.num_cores; ++c) t.core_names.push_back("core" + std::to_string(c));
  t.latency_cycles.resize(m.rows.size());
  t.req_bw.resize(m.rows.size());
  for (size_t k = 0; k < m.rows.size(); ++k) {
    t.latency_cycles[k] = m.rows[k].latency_cycles;
    t.req_bw[k] = m.rows[k].req_dram_bw;
  }
  for (int j = 0; j < t.num_jobs; ++j) {
    const auto& r = m.rows[static_cast<size_t>(j) * t.num_cores];
    io::MagmaJob mj{r.thread, r.layer, r.dims, r.type, r.line};
    const Layer l = layer_from_magma(mj);
    t.jobs.push_back({"j" + std::to_string(j), r.thread, r.layer, shape_text(l), r.type});
  }
  return t;
}

}  // namespace sparsemap::dse::schedule
