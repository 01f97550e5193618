// The operator profiler: libtorch RecordFunction callbacks on the inference thread.
//
// Only top-level operators count: an operator (FUNCTION scope) or composite (USER_SCOPE,
// "sparsemap::*") that starts while no other one is open on this thread. While a top-level
// operator runs, RecordFunction is switched off for this thread (at::enableRecordFunction), so
// its nested ATen calls cost nothing; the shape pass keeps them on to see inside composites.
// Time of an operator = steady_clock at its end callback - at its start callback.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <c10/core/InferenceMode.h>
#include <dlfcn.h>
#include <malloc.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <map>
#include <unordered_map>

#include "models/model.h"
#include "region.h"
#include "sparsemap/error.h"
#include "sparsemap/ml/nongemm/profile.h"

namespace sparsemap::ml::nongemm {
namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct OpAccum {
  double calls = 0;
  std::vector<double> run_ns;  // per active run (scaled)
};

// Shapes of one GEMM operator call, keyed for aggregation.
struct ShapeKey {
  std::string op;
  workload::Layer layer;
  bool operator<(const ShapeKey& o) const {
    if (op != o.op) return op < o.op;
    if (layer.kind != o.layer.kind) return layer.kind < o.layer.kind;
    if (layer.dims != o.layer.dims) return layer.dims < o.layer.dims;
    if (layer.stride.y != o.layer.stride.y) return layer.stride.y < o.layer.stride.y;
    return layer.pad.y < o.layer.pad.y;
  }
};

struct Recorder {
  const Taxonomy* taxonomy = nullptr;
  bool recording = false;    // accumulate (active runs); else only keep depth
  bool keep_events = false;  // trace
  bool suppress_nested = true;
  bool shapes = false;  // shape pass: record GEMM shapes
  int depth = 0;
  int64_t top_start_ns = 0;
  int iteration = 0;
  int64_t origin_ns = 0;
  double iteration_ns = 0;  // scaled op time of the current run
  std::unordered_map<std::string, OpAccum> ops;
  std::vector<TraceEvent> events;
  // Shape pass
  bool pending_shape = false;  // a top-level GEMM composite whose first nested GEMM gives it
  std::string pending_op;
  std::map<ShapeKey, double> shape_calls;
};

thread_local Recorder* tl_recorder = nullptr;
thread_local double tl_region_weight = 1.0;
thread_local bool tl_region_open = false;
thread_local double tl_region_extra_ns = 0;  // (weight - 1) x wall time of closed regions

int64_t product(at::IntArrayRef s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

// The layer that a GEMM operator's inputs describe, or nullopt when they are not understood.
std::optional<workload::Layer> gemm_layer(const std::string& op, const at::RecordFunction& fn) {
  const auto inputs = fn.inputs();
  auto tensor = [&](size_t i) -> const at::Tensor* {
    return i < inputs.size() && inputs[i].isTensor() ? &inputs[i].toTensor() : nullptr;
  };
  auto ints = [&](size_t i, int64_t fallback) -> int64_t {
    if (i < inputs.size() && inputs[i].isIntList()) {
      const auto v = inputs[i].toIntVector();
      return v.empty() ? fallback : v[0];
    }
    if (i < inputs.size() && inputs[i].isInt()) return inputs[i].toInt();
    return fallback;
  };
  const at::Tensor* a = tensor(0);
  const at::Tensor* b = tensor(1);
  if (op == "aten::linear" && a && b && a->dim() >= 1 && b->dim() == 2) {
    const size_t r = static_cast<size_t>(a->dim());
    return workload::gemm(op, product(a->sizes(), 0, r - 1), b->size(0), b->size(1),
                          tensor(2) && tensor(2)->defined());
  }
  if (op == "aten::conv2d" && a && b && a->dim() == 4 && b->dim() == 4) {
    const int64_t groups = ints(6, 1);
    return workload::conv2d(op, a->size(0), a->size(1), a->size(2), a->size(3), b->size(0),
                            b->size(2), ints(3, 1), ints(4, 0), groups,
                            tensor(2) && tensor(2)->defined());
  }
  if ((op == "aten::addmm") && tensor(1) && tensor(2) && tensor(1)->dim() == 2) {
    return workload::gemm(op, tensor(1)->size(0), tensor(2)->size(1), tensor(1)->size(1), true);
  }
  if ((op == "aten::mm") && a && b && a->dim() == 2 && b->dim() == 2) {
    return workload::gemm(op, a->size(0), b->size(1), a->size(1));
  }
  if ((op == "aten::matmul" || op == "aten::bmm") && a && b && a->dim() >= 2 && b->dim() >= 2) {
    const size_t ra = static_cast<size_t>(a->dim()), rb = static_cast<size_t>(b->dim());
    const int64_t m = a->size(-2), k = a->size(-1), n = b->size(-1);
    const int64_t g = std::max(product(a->sizes(), 0, ra - 2), product(b->sizes(), 0, rb - 2));
    if (rb == 2) return workload::gemm(op, g * m, n, k);  // activation x weight
    return workload::batched_gemm(op, g, m, n, k);
  }
  return std::nullopt;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  Recorder* r = tl_recorder;
  if (r == nullptr) return nullptr;
  if (r->depth++ == 0) {
    if (r->suppress_nested) at::enableRecordFunction(false);
    if (r->shapes) {
      const std::string name = fn.name();
      const OpClass cls = r->taxonomy->classify(name);
      r->pending_shape = false;
      if (cls.group == kGemmGroup) {
        if (auto layer = gemm_layer(name, fn))
          r->shape_calls[{name, *layer}] += tl_region_weight;
        else
          r->pending_shape = true, r->pending_op = name;
      }
    }
    r->top_start_ns = now_ns();
  } else if (r->shapes && r->pending_shape && r->depth == 2) {
    // First nested GEMM of a composite (sparsemap::depthwise_conv): its shapes.
    if (auto layer = gemm_layer(fn.name(), fn)) {
      layer->name = r->pending_op;
      r->shape_calls[{r->pending_op, *layer}] += tl_region_weight;
      r->pending_shape = false;
    }
  }
  return nullptr;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext*) {
  Recorder* r = tl_recorder;
  if (r == nullptr || r->depth == 0) return;
  if (--r->depth != 0) return;
  const int64_t end = now_ns();
  if (r->suppress_nested) at::enableRecordFunction(true);
  if (!r->recording) return;
  const double ns = static_cast<double>(end - r->top_start_ns);
  OpAccum& a = r->ops[fn.name()];
  a.calls += tl_region_weight;
  if (a.run_ns.size() <= static_cast<size_t>(r->iteration))
    a.run_ns.resize(static_cast<size_t>(r->iteration) + 1, 0.0);
  a.run_ns[static_cast<size_t>(r->iteration)] += ns * tl_region_weight;
  r->iteration_ns += ns * tl_region_weight;
  if (r->keep_events) {
    const std::string name = fn.name();
    r->events.push_back({name, r->taxonomy->classify(name).group, r->iteration,
                         static_cast<double>(r->top_start_ns - r->origin_ns) / 1e3, ns / 1e3});
  }
}

// Registers the callbacks for the calling thread while alive.
class CallbackGuard {
 public:
  CallbackGuard(Recorder* r, bool needs_inputs) {
    at::RecordFunctionCallback cb(on_start, on_end);
    cb.scopes({at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE});
    cb.needsInputs(needs_inputs);
    tl_recorder = r;
    handle_ = at::addThreadLocalCallback(cb);
  }
  ~CallbackGuard() {
    at::removeCallback(handle_);
    tl_recorder = nullptr;
  }
  CallbackGuard(const CallbackGuard&) = delete;
  CallbackGuard& operator=(const CallbackGuard&) = delete;

 private:
  at::CallbackHandle handle_;
};

// One inference; returns its wall time in ns, scaled for ScaledRegions.
double timed_forward(Model& model) {
  tl_region_extra_ns = 0;
  const int64_t t0 = now_ns();
  {
    const at::Tensor out = model.forward();
    (void)out;
  }
  return static_cast<double>(now_ns() - t0) + tl_region_extra_ns;
}

void check_schedule(const ProfileSchedule& s) {
  if (s.skip < 0 || s.wait < 0 || s.warmup < 0 || s.active < 1)
    throw InputError({"<flag --schedule>", 0, 0},
                     "skip, wait and warm-up runs must be >= 0 and active runs >= 1");
}

}  // namespace

ScaledRegion::ScaledRegion(double weight) : weight_(weight), start_ns_(now_ns()) {
  SPARSEMAP_ASSERT(!tl_region_open);
  tl_region_open = true;
  tl_region_weight = weight;
}

ScaledRegion::~ScaledRegion() {
  tl_region_extra_ns += (weight_ - 1.0) * static_cast<double>(now_ns() - start_ns_);
  tl_region_weight = 1.0;
  tl_region_open = false;
}

std::unique_ptr<Model> make_model(const ResolvedOptions& o) {
  const std::string& n = o.model;
  if (n == "resnet50") return make_resnet50(o);
  if (n.rfind("vit-", 0) == 0) return make_vit(o);
  if (n.rfind("swin-", 0) == 0) return make_swin(o);
  if (n == "detr-r50") return make_detr(o);
  if (n == "faster-rcnn-r50-fpn") return make_faster_rcnn(o);
  if (n == "segformer-b0") return make_segformer(o);
  if (n == "bert-base") return make_bert(o);
  if (n.rfind("gpt2", 0) == 0) return make_gpt2(o);
  if (n == "llama2-7b" || n == "mixtral-8x7b") return make_llama(o);
  SPARSEMAP_ASSERT(false && "a registered model without a factory");
  return nullptr;
}

void keep_freed_memory() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
}

std::string blas_description() {
  using Fn = char* (*)();
  auto config = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  auto core = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (config == nullptr) return "unknown (not OpenBLAS)";
  std::string s = config();
  if (core != nullptr) s += std::string(" core=") + core();
  return s;
}

namespace {

double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  return (in >> load) ? load : -1;
}

std::string blas_environment() {
  std::string s;
  for (const char* var : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}) {
    const char* v = std::getenv(var);
    if (v != nullptr) s += (s.empty() ? "" : " ") + std::string(var) + "=" + v;
  }
  return s.empty() ? "unset" : s;
}

}  // namespace

std::string statistic_name(Statistic s) {
  switch (s) {
    case Statistic::Mean:
      return "mean";
    case Statistic::Median:
      return "median";
    case Statistic::Min:
      return "min";
  }
  return "?";
}

Statistic parse_statistic(const std::string& name) {
  for (Statistic s : {Statistic::Mean, Statistic::Median, Statistic::Min})
    if (statistic_name(s) == name) return s;
  throw InputError({"<flag --stat>", 0, 0},
                   "expected mean, median or min (got '" + name.substr(0, 32) + "')");
}

double combine(Statistic s, std::vector<double> v) {
  if (v.empty()) return 0;
  if (s == Statistic::Mean) {
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  }
  std::sort(v.begin(), v.end());
  if (s == Statistic::Min) return v.front();
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double Profile::typical_wall_ms() const { return combine(statistic, wall_ms); }
double Profile::typical_ops_ms() const { return combine(statistic, ops_ms); }

double Profile::coverage_pct() const {
  const double w = typical_wall_ms();
  return w > 0 ? 100.0 * typical_ops_ms() / w : 0;
}

double Profile::unknown_pct() const {
  double total = 0, unknown = 0;
  for (const OpStat& o : ops) {
    total += o.ms;
    if (!o.cls.known) unknown += o.ms;
  }
  return total > 0 ? 100.0 * unknown / total : 0;
}

Profile profile_model(std::string_view name, const ModelOptions& model_options,
                      const ProfileOptions& options) {
  check_schedule(options.schedule);
  const ResolvedOptions run = resolve_options(name, model_options);
  const Taxonomy& taxonomy = options.taxonomy ? *options.taxonomy : Taxonomy::builtin();
  if (options.threads > 0) at::set_num_threads(options.threads);
  if (options.reuse_memory) keep_freed_memory();
  c10::InferenceMode inference;
  std::unique_ptr<Model> model = make_model(run);

  Profile p;
  p.reuse_memory = options.reuse_memory;
  p.statistic = options.statistic;
  p.load_avg_1min = load_average();
  p.run = run;
  p.threads = at::get_num_threads();
  p.schedule = options.schedule;
  p.torch_version = TORCH_VERSION;
  p.blas = blas_description();
  p.blas_env = blas_environment();

  const ProfileSchedule& s = options.schedule;
  for (int i = 0; i < s.skip + s.wait; ++i) timed_forward(*model);
  Recorder rec;
  rec.taxonomy = &taxonomy;
  {
    CallbackGuard guard(&rec, /*needs_inputs=*/false);
    for (int i = 0; i < s.warmup; ++i) timed_forward(*model);
    rec.recording = true;
    rec.keep_events = options.trace;
    for (int i = 0; i < s.active; ++i) {
      rec.iteration = i;
      rec.iteration_ns = 0;
      const int64_t start = now_ns();
      if (i == 0) rec.origin_ns = start;
      const double wall_ns = timed_forward(*model);
      p.wall_ms.push_back(wall_ns / 1e6);
      p.ops_ms.push_back(rec.iteration_ns / 1e6);
      if (options.trace)
        p.trace.push_back({"inference", "", -1, static_cast<double>(start - rec.origin_ns) / 1e3,
                           static_cast<double>(now_ns() - start) / 1e3});
    }
  }
  const double active = static_cast<double>(s.active);
  for (auto& [op, acc] : rec.ops) {
    acc.run_ns.resize(static_cast<size_t>(s.active), 0.0);  // runs where it did not occur
    p.ops.push_back({op, taxonomy.classify(op), acc.calls / active,
                     combine(options.statistic, acc.run_ns) / 1e6});
  }
  std::sort(p.ops.begin(), p.ops.end(), [](const OpStat& a, const OpStat& b) {
    return a.ms != b.ms ? a.ms > b.ms : a.name < b.name;
  });
  for (TraceEvent& e : rec.events) p.trace.push_back(std::move(e));

  if (options.gemm_shapes) {
    Recorder shapes;
    shapes.taxonomy = &taxonomy;
    shapes.shapes = true;
    shapes.suppress_nested = false;
    {
      CallbackGuard guard(&shapes, /*needs_inputs=*/true);
      timed_forward(*model);
    }
    // Each op's measured time goes to its shapes in proportion to calls x MACs.
    std::map<std::string, double> op_macs;
    for (const auto& [key, calls] : shapes.shape_calls)
      op_macs[key.op] += calls * static_cast<double>(key.layer.macs());
    for (const auto& [key, calls] : shapes.shape_calls) {
      double op_ms = 0;
      for (const OpStat& o : p.ops)
        if (o.name == key.op) op_ms = o.ms;
      const double total = op_macs[key.op];
      const double share = total > 0 ? calls * static_cast<double>(key.layer.macs()) / total : 0;
      p.gemm_calls.push_back({key.op, key.layer, calls, op_ms * share});
    }
  }
  return p;
}

Overhead measure_overhead(std::string_view name, const ModelOptions& model_options, int threads,
                          int rounds, bool reuse_memory) {
  if (rounds < 1) throw InputError({"<flag --rounds>", 0, 0}, "rounds must be >= 1");
  const ResolvedOptions run = resolve_options(name, model_options);
  if (threads > 0) at::set_num_threads(threads);
  if (reuse_memory) keep_freed_memory();
  c10::InferenceMode inference;
  std::unique_ptr<Model> model = make_model(run);
  Recorder rec;
  rec.taxonomy = &Taxonomy::builtin();
  auto profiled = [&] {
    CallbackGuard guard(&rec, false);
    rec.recording = true;
    rec.iteration_ns = 0;
    return timed_forward(*model) / 1e6;
  };
  auto plain = [&] { return timed_forward(*model) / 1e6; };
  for (int i = 0; i < 2; ++i) plain(), profiled();
  Overhead o;
  o.model = run.model;
  o.rounds = rounds;
  for (int i = 0; i < rounds; ++i) {
    // Alternate the order (ABBA) so that drift and cache state favour neither side.
    if (i % 2 == 0) {
      o.plain_runs_ms.push_back(plain());
      o.profiled_runs_ms.push_back(profiled());
    } else {
      o.profiled_runs_ms.push_back(profiled());
      o.plain_runs_ms.push_back(plain());
    }
  }
  o.plain_ms = combine(Statistic::Median, o.plain_runs_ms);
  o.profiled_ms = combine(Statistic::Median, o.profiled_runs_ms);
  o.overhead_pct = o.plain_ms > 0 ? 100.0 * (o.profiled_ms - o.plain_ms) / o.plain_ms : 0;
  return o;
}

}  // namespace sparsemap::ml::nongemm
