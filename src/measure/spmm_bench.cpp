// dl shapes, shape parsing and the median timer.
#include "sparsemap/measure/spmm_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <thread>

#include "sparsemap/error.h"

namespace sparsemap::measure {

std::vector<GemmShape> dl_shapes(int64_t n) {
  // ResNet-50 v1.5 (torchvision): the 3x3 conv of each stage and the 1x1 reduce/expand convs
  // of stages 2-4 (im2col weights: M = out channels, K = in channels * 3 * 3 or in channels).
  // BERT-base / GPT-2 small (hidden 768, FFN 3072): attention projection, GPT-2's fused QKV
  // (c_attn), FFN up and FFN down (M = out features, K = in features).
  return {
      {64, 576, n, "resnet50 layer1 3x3 (64x64x3x3)"},
      {128, 1152, n, "resnet50 layer2 3x3 (128x128x3x3)"},
      {256, 2304, n, "resnet50 layer3 3x3 (256x256x3x3)"},
      {512, 4608, n, "resnet50 layer4 3x3 (512x512x3x3)"},
      {128, 512, n, "resnet50 layer2 1x1 reduce"},
      {512, 128, n, "resnet50 layer2 1x1 expand"},
      {256, 1024, n, "resnet50 layer3 1x1 reduce"},
      {1024, 256, n, "resnet50 layer3 1x1 expand"},
      {512, 2048, n, "resnet50 layer4 1x1 reduce"},
      {2048, 512, n, "resnet50 layer4 1x1 expand"},
      {768, 768, n, "bert-base/gpt2 attention projection"},
      {2304, 768, n, "gpt2 c_attn (fused QKV)"},
      {3072, 768, n, "bert-base/gpt2 FFN up"},
      {768, 3072, n, "bert-base/gpt2 FFN down"},
  };
}

std::vector<GemmShape> parse_shapes(const std::string& text) {
  const SourceLocation where{"<flag --shapes>", 0, 0};
  if (text == "dl") return dl_shapes();
  if (text.rfind("dl:", 0) == 0) {
    const std::string n = text.substr(3);
    if (n.empty() || n.size() > 7 || n.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(n) < 1)
      throw InputError(where, "'" + text + "': expected dl:N with N a positive integer");
    return dl_shapes(std::stoll(n));
  }
  std::vector<GemmShape> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    std::vector<std::string> f(1);
    for (char ch : item) {
      if (ch == ',')
        f.emplace_back();
      else
        f.back() += ch;
    }
    int64_t v[3] = {0, 0, 0};
    bool ok = f.size() == 3;
    for (size_t i = 0; ok && i < 3; ++i) {
      ok = !f[i].empty() && f[i].size() <= 7 &&
           f[i].find_first_not_of("0123456789") == std::string::npos;
      if (ok) v[i] = std::stoll(f[i]);
      ok = ok && v[i] >= 1;
    }
    if (!ok) throw InputError(where, "'" + item + "': expected M,K,N with integers in [1, 10^7)");
    out.push_back({v[0], v[1], v[2], item});
  }
  if (out.empty()) throw InputError(where, "no shapes given; expected dl or M,K,N;...");
  return out;
}

Timing time_ms(const std::function<void()>& f, int min_reps, double min_total_ms, int max_reps) {
  using Clock = std::chrono::steady_clock;
  f();  // warm-up: caches, page faults, thread pools
  Timing t;
  const auto start = Clock::now();
  while (t.reps < max_reps) {
    const auto t0 = Clock::now();
    f();
    const auto t1 = Clock::now();
    t.samples_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    ++t.reps;
    const double total = std::chrono::duration<double, std::milli>(t1 - start).count();
    if (t.reps >= min_reps && total >= min_total_ms) break;
  }
  t.median_ms = median(t.samples_ms);
  t.min_ms = *std::min_element(t.samples_ms.begin(), t.samples_ms.end());
  return t;
}

std::string busy_machine_warning() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  if (!(in >> load)) return "";
  const unsigned cpus = std::thread::hardware_concurrency();
  if (cpus == 0 || load <= static_cast<double>(cpus)) return "";
  return "busy machine (load " + std::to_string(load).substr(0, 4) + ", " + std::to_string(cpus) +
         " CPUs): noisy timings; measure when it is quiet or under `chrt -f 1`";
}

std::vector<std::string> timing_environment_warnings(const std::string& command) {
  std::vector<std::string> warnings;
  for (const char* var : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"})
    if (const char* v = std::getenv(var))
      warnings.push_back(std::string(var) + "=" + v +
                         " is set; OpenBLAS may pick a kernel up to 2x slower than its best. "
                         "Measure with `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE sparsemap " +
                         command + " ...`");
  if (std::string w = busy_machine_warning(); !w.empty()) warnings.push_back(std::move(w));
  return warnings;
}

DenseMatrix random_normal(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  DenseMatrix m(rows, cols);
  for (auto& x : m.values) x = d(rng);
  return m;
}

void quiesce(double ms) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

}  // namespace sparsemap::measure
