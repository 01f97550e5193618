// Fashion-MNIST (Xiao et al., 2017) from Debian's `dataset-fashion-mnist` package: the IDX
// files (gzipped or not) read into plain arrays. Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sparsemap::ml::data {

// Where the Debian package installs the files.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// The ten class names, by label.
extern const char* const kFashionMnistClasses[10];

// Images with their labels: image i is pixels[i * rows * cols .. (i + 1) * rows * cols),
// row-major, 0 (background) to 255; labels[i] in [0, 10).
struct ImageSet {
  int64_t count = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<uint8_t> pixels;
  std::vector<uint8_t> labels;
};

struct FashionMnist {
  ImageSet train;  // 60,000
  ImageSet test;   // 10,000
};

// Reads an IDX image file (magic 0x00000803) and its label file (0x00000801), each either
// gzipped (as the package ships them) or plain. Keeps the first `limit` items (0: all).
// Throws InputError (with the path) on a missing file, a bad magic number, sizes that do not
// match, truncated data or labels outside [0, 10).
ImageSet read_idx(const std::string& images_path, const std::string& labels_path,
                  int64_t limit = 0);

// Reads {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz] from `dir` (default: the package's
// folder). A missing folder or file throws InputError naming the Debian package to install.
FashionMnist load_fashion_mnist(const std::string& dir = kFashionMnistDir, int64_t train_limit = 0,
                                int64_t test_limit = 0);

// Ten noisy 28x28 prototypes, for tests and runs without the package: image i has label i % 10
// and is prototype label (uniform in [0, 255], from `seed`) plus uniform noise in [-60, 60]
// (from seed and `stream`), clamped. Deterministic.
ImageSet synthetic_images(int64_t count, uint64_t seed, uint64_t stream);

}  // namespace sparsemap::ml::data
