// Random CNNs for training learned fusion mappers (synthetic_models.h).
#include "sparsemap/dse/fusion/synthetic_models.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace sparsemap::dse::fusion {
namespace {

using workload::Layer;
using workload::OpKind;

// Appends layers and their dataflow edges: each layer reads the tail (the layer appended last,
// -1 before the first: the model input); a residual add also reads the layer it is given.
class Net {
 public:
  Net(std::string name, int64_t n, int64_t c, int64_t hw) : n_(n), c_(c), hw_(hw) {
    m_.name = std::move(name);
  }
  void conv(const std::string& name, int64_t c_out, int64_t k, int64_t stride, int64_t groups = 1) {
    Layer l = workload::conv2d(name, n_, c_, hw_, hw_, c_out, k, stride, k / 2, groups);
    c_ = c_out;
    hw_ = l.out_y();
    push(std::move(l));
    push(workload::nongemm(name + "_act", OpKind::Activation, "relu", {n_, c_, hw_, hw_}));
  }
  void pool(const std::string& name) {
    if (hw_ < 4) return;
    Layer l = workload::pool2d(name, "max_pool", n_, c_, hw_, hw_, 2, 2);
    hw_ = l.out_y();
    push(std::move(l));
  }
  // The residual add of the tail's output and `other`'s.
  void add(const std::string& block, int other) {
    push(workload::nongemm(block + ".add", OpKind::Elementwise, "add", {n_, c_, hw_, hw_}, 2),
         other);
  }
  void head(int64_t classes) {
    push(workload::pool2d("gap", "global_avg_pool", n_, c_, hw_, hw_, hw_, 1));
    push(workload::fc("fc", n_, c_, classes));
  }
  int64_t c() const { return c_; }
  int64_t hw() const { return hw_; }
  int tail() const { return tail_; }
  // Rewinds to an earlier activation: its channels, size and the layer that wrote it.
  void set(int64_t c, int64_t hw, int tail) { c_ = c, hw_ = hw, tail_ = tail; }
  workload::Model take() { return std::move(m_); }

 private:
  void push(Layer l, int other = -1) {
    std::vector<int> from;
    if (tail_ >= 0) from.push_back(tail_);
    if (other >= 0 && other != tail_) from.push_back(other);
    m_.layers.push_back(std::move(l));
    m_.producers.push_back(std::move(from));
    tail_ = static_cast<int>(m_.layers.size()) - 1;
  }

  workload::Model m_;
  int64_t n_, c_, hw_;
  int tail_ = -1;
};

}  // namespace

workload::Model synthetic_cnn(uint64_t seed, int64_t batch) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 7);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t image = 32 * pick(2, 7);           // 64 .. 224
  const int style = static_cast<int>(pick(0, 3));  // plain, basic, bottleneck, inverted
  const int64_t width = int64_t{8} << pick(1, 3);  // 16 .. 64 stem channels
  Net net("synth-" + std::to_string(seed), batch, 3, image);
  net.conv("stem", width, pick(0, 1) ? 3 : 7, 2);
  if (style != 3 && pick(0, 1)) net.pool("stem_pool");
  const int stages = static_cast<int>(pick(3, 5));
  int64_t c = width;
  for (int s = 0; s < stages; ++s) {
    const int64_t blocks = pick(1, style == 0 ? 3 : 4);
    const int64_t c_out = std::min<int64_t>(1024, c * (s == 0 ? 1 : pick(1, 2)) + 8 * pick(0, 2));
    for (int64_t b = 0; b < blocks; ++b) {
      const std::string p = "s" + std::to_string(s) + "." + std::to_string(b);
      const int64_t stride = (b == 0 && s > 0 && net.hw() >= 8) ? 2 : 1;
      const int64_t in_c = net.c(), in_hw = net.hw();
      const int x = net.tail();
      if (style == 0) {  // VGG-like
        net.conv(p + ".conv", c_out, 3, 1);
        if (b == blocks - 1) net.pool(p + ".pool");
        continue;
      }
      if (style == 3) {  // inverted residual
        const int64_t expand = pick(0, 2) == 0 ? 1 : 6;
        if (expand != 1) net.conv(p + ".expand", in_c * expand, 1, 1);
        net.conv(p + ".dw", net.c(), pick(0, 1) ? 3 : 5, stride, net.c());
        net.conv(p + ".project", c_out, 1, 1);
        if (stride == 1 && in_c == c_out) net.add(p, x);
        continue;
      }
      const int64_t mid = style == 2 ? std::max<int64_t>(8, c_out / 4) : c_out;
      if (style == 2) net.conv(p + ".conv1", mid, 1, 1);
      net.conv(p + (style == 2 ? ".conv2" : ".conv1"), mid, 3, stride);
      net.conv(p + (style == 2 ? ".conv3" : ".conv2"), c_out, style == 2 ? 1 : 3, 1);
      int identity = x;
      if (stride != 1 || in_c != c_out) {
        const int64_t oc = net.c(), ohw = net.hw();
        const int main = net.tail();
        net.set(in_c, in_hw, x);
        net.conv(p + ".downsample.0", c_out, 1, stride);
        identity = net.tail();
        net.set(oc, ohw, main);
      }
      net.add(p, identity);
    }
    c = c_out;
  }
  if (style == 3) net.conv("last", std::min<int64_t>(1280, c * 4), 1, 1);
  net.head(pick(0, 1) ? 1000 : 100);
  return net.take();
}

}  // namespace sparsemap::dse::fusion
