// The zoo's CNNs, layer for layer as torchvision builds them (inference: no dropout).
#include <string>

#include "zoo_internal.h"

namespace sparsemap::workload::zoo_detail {
namespace {

constexpr int64_t kImageNetClasses = 1000;

// torchvision.models.resnet.BasicBlock (expansion 1).
// The identity (the block's input, layer `x`), or the downsample branch on it when the main
// branch changed the shape: conv 1x1 and BatchNorm, listed after the main branch as torchvision
// runs them. Returns the layer the residual add reads; the main branch stays the tail.
int identity(CnnBuilder& b, const std::string& p, CnnBuilder::Shape in, int x, int64_t c_out,
             int64_t stride) {
  if (stride == 1 && in.c == c_out) return x;
  const CnnBuilder::Shape out = b.shape();
  const int main = b.tail();
  b.set_shape(in);
  b.set_tail(x);
  b.conv(p + ".downsample.0", c_out, 1, stride, 0);
  b.batch_norm(p + ".downsample.1");
  SPARSEMAP_ASSERT(b.shape() == out);
  const int down = b.tail();
  b.set_tail(main);
  return down;
}

void basic_block(CnnBuilder& b, const std::string& p, int64_t planes, int64_t stride) {
  const CnnBuilder::Shape in = b.shape();
  const int x = b.tail();
  b.conv(p + ".conv1", planes, 3, stride, 1);
  b.batch_norm(p + ".bn1");
  b.act(p + ".relu", "relu");
  b.conv(p + ".conv2", planes, 3, 1, 1);
  b.batch_norm(p + ".bn2");
  b.add(p + ".add", identity(b, p, in, x, planes, stride));
  b.act(p + ".relu_1", "relu");
}

// torchvision.models.resnet.Bottleneck (ResNet v1.5: the stride sits on the 3x3 conv2).
void bottleneck(CnnBuilder& b, const std::string& p, int64_t planes, int64_t stride) {
  constexpr int64_t kExpansion = 4;
  const CnnBuilder::Shape in = b.shape();
  const int x = b.tail();
  b.conv(p + ".conv1", planes, 1, 1, 0);
  b.batch_norm(p + ".bn1");
  b.act(p + ".relu", "relu");
  b.conv(p + ".conv2", planes, 3, stride, 1);
  b.batch_norm(p + ".bn2");
  b.act(p + ".relu_1", "relu");
  b.conv(p + ".conv3", planes * kExpansion, 1, 1, 0);
  b.batch_norm(p + ".bn3");
  b.add(p + ".add", identity(b, p, in, x, planes * kExpansion, stride));
  b.act(p + ".relu_2", "relu");
}

// torchvision.models.ResNet: stem, layer1..layer4, avgpool, fc.
Model resnet(const char* name, const Sizes& s, const int (&blocks)[4], bool use_bottleneck) {
  CnnBuilder b(name, s.batch, 3, s.image_size);
  b.conv("conv1", 64, 7, 2, 3);
  b.batch_norm("bn1");
  b.act("relu", "relu");
  b.pool("maxpool", "max_pool", 3, 2, 1);
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = int64_t{64} << stage;
    for (int i = 0; i < blocks[stage]; ++i) {
      const std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(i);
      const int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      if (use_bottleneck)
        bottleneck(b, p, planes, stride);
      else
        basic_block(b, p, planes, stride);
    }
  }
  b.global_avg_pool("avgpool");
  b.linear("fc", kImageNetClasses);
  return b.take();
}

// torchvision.ops.Conv2dNormActivation: conv (no bias), BatchNorm, activation, as p.0/.1/.2.
void conv_bn_act(CnnBuilder& b, const std::string& p, int64_t c_out, int64_t kernel, int64_t stride,
                 int64_t groups, const char* act) {
  b.conv(p + ".0", c_out, kernel, stride, (kernel - 1) / 2, groups);
  b.batch_norm(p + ".1");
  b.act(p + ".2", act);
}

// torchvision.models.mobilenetv2.InvertedResidual.
void inverted_residual(CnnBuilder& b, const std::string& p, int64_t c_out, int64_t stride,
                       int64_t expand) {
  const CnnBuilder::Shape in = b.shape();
  const int x = b.tail();
  const int64_t hidden = in.c * expand;
  int part = 0;
  if (expand != 1) conv_bn_act(b, p + ".conv." + std::to_string(part++), hidden, 1, 1, 1, "relu6");
  conv_bn_act(b, p + ".conv." + std::to_string(part++), hidden, 3, stride, hidden, "relu6");
  b.conv(p + ".conv." + std::to_string(part++), c_out, 1, 1, 0);
  b.batch_norm(p + ".conv." + std::to_string(part));
  if (stride == 1 && in.c == c_out) b.add(p + ".add", x);
}

// torchvision's MNASNet _InvertedResidual: expand 1x1, depthwise kxk, project 1x1.
void mnas_block(CnnBuilder& b, const std::string& p, int64_t c_out, int64_t kernel, int64_t stride,
                int64_t expand) {
  const CnnBuilder::Shape in = b.shape();
  const int x = b.tail();
  const int64_t mid = in.c * expand;
  const std::string q = p + ".layers.";
  b.conv(q + "0", mid, 1, 1, 0);
  b.batch_norm(q + "1");
  b.act(q + "2", "relu");
  b.conv(q + "3", mid, kernel, stride, kernel / 2, mid);
  b.batch_norm(q + "4");
  b.act(q + "5", "relu");
  b.conv(q + "6", c_out, 1, 1, 0);
  b.batch_norm(q + "7");
  if (stride == 1 && in.c == c_out) b.add(p + ".add", x);
}

}  // namespace

// ResNet-18: BasicBlock x [2, 2, 2, 2] (He et al. 2016; torchvision resnet18).
Model build_resnet18(const Sizes& s) {
  static const int kBlocks[4] = {2, 2, 2, 2};
  return resnet("resnet18", s, kBlocks, false);
}

// ResNet-50: Bottleneck x [3, 4, 6, 3] (torchvision resnet50, v1.5).
Model build_resnet50(const Sizes& s) {
  static const int kBlocks[4] = {3, 4, 6, 3};
  return resnet("resnet50", s, kBlocks, true);
}

// MobileNetV2, width 1.0 (Sandler et al. 2018; torchvision mobilenet_v2).
Model build_mobilenet_v2(const Sizes& s) {
  struct Stage {
    int64_t expand, channels, repeats, stride;  // t, c, n, s of the paper's Table 2
  };
  static const Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                  {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  CnnBuilder b("mobilenet-v2", s.batch, 3, s.image_size);
  conv_bn_act(b, "features.0", 32, 3, 2, 1, "relu6");
  int feature = 1;
  for (const Stage& st : kStages) {
    for (int64_t i = 0; i < st.repeats; ++i) {
      inverted_residual(b, "features." + std::to_string(feature++), st.channels,
                        i == 0 ? st.stride : 1, st.expand);
    }
  }
  conv_bn_act(b, "features." + std::to_string(feature), 1280, 1, 1, 1, "relu6");
  b.global_avg_pool("adaptive_avg_pool2d");  // functional call in MobileNetV2._forward_impl
  b.linear("classifier.1", kImageNetClasses);
  return b.take();
}

// VGG-16, configuration D without BatchNorm (Simonyan & Zisserman 2015; torchvision vgg16).
Model build_vgg16(const Sizes& s) {
  constexpr int64_t kPool = 0;
  static const int64_t kCfg[] = {64,    64,  kPool, 128, 128,   kPool, 256, 256, 256,
                                 kPool, 512, 512,   512, kPool, 512,   512, 512, kPool};
  CnnBuilder b("vgg16", s.batch, 3, s.image_size);
  int idx = 0;
  for (int64_t c : kCfg) {
    if (c == kPool) {
      b.pool("features." + std::to_string(idx++), "max_pool", 2, 2);
    } else {
      b.conv("features." + std::to_string(idx++), c, 3, 1, 1, 1, /*bias=*/true);
      b.act("features." + std::to_string(idx++), "relu");
    }
  }
  b.adaptive_avg_pool("avgpool", 7);
  b.linear("classifier.0", 4096);
  b.act("classifier.1", "relu");
  b.linear("classifier.3", 4096);
  b.act("classifier.4", "relu");
  b.linear("classifier.6", kImageNetClasses);
  return b.take();
}

// MNASNet-A, depth multiplier 1.0 (Tan et al. 2019; torchvision mnasnet1_0).
Model build_mnasnet(const Sizes& s) {
  struct Stack {
    int64_t channels, kernel, stride, expand, repeats;
  };
  static const Stack kStacks[] = {{24, 3, 2, 3, 3}, {40, 5, 2, 3, 3},  {80, 5, 2, 6, 3},
                                  {96, 3, 1, 6, 2}, {192, 5, 2, 6, 4}, {320, 3, 1, 6, 1}};
  CnnBuilder b("mnasnet", s.batch, 3, s.image_size);
  b.conv("layers.0", 32, 3, 2, 1);
  b.batch_norm("layers.1");
  b.act("layers.2", "relu");
  b.conv("layers.3", 32, 3, 1, 1, 32);  // depthwise separable, no skip
  b.batch_norm("layers.4");
  b.act("layers.5", "relu");
  b.conv("layers.6", 16, 1, 1, 0);
  b.batch_norm("layers.7");
  int idx = 8;
  for (const Stack& st : kStacks) {
    for (int64_t i = 0; i < st.repeats; ++i) {
      mnas_block(b, "layers." + std::to_string(idx) + "." + std::to_string(i), st.channels,
                 st.kernel, i == 0 ? st.stride : 1, st.expand);
    }
    ++idx;
  }
  b.conv("layers.14", 1280, 1, 1, 0);
  b.batch_norm("layers.15");
  b.act("layers.16", "relu");
  b.global_avg_pool("mean");  // x.mean([2, 3]) in MNASNet.forward
  b.linear("classifier.1", kImageNetClasses);
  return b.take();
}

}  // namespace sparsemap::workload::zoo_detail
