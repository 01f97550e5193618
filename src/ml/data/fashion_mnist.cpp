// IDX reader for Fashion-MNIST (zlib reads the gzipped files and the plain ones alike).
#include "sparsemap/ml/data/fashion_mnist.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>

#include "sparsemap/error.h"
#include "sparsemap/io/util.h"

namespace sparsemap::ml::data {

const char* const kFashionMnistClasses[10] = {"T-shirt/top", "Trouser",   "Pullover", "Dress",
                                              "Coat",        "Sandal",    "Shirt",    "Sneaker",
                                              "Bag",         "Ankle boot"};

namespace {

constexpr const char* kPackageHint =
    "Fashion-MNIST is not installed: install the Debian package dataset-fashion-mnist "
    "(apt-get install dataset-fashion-mnist) or pass the folder with the IDX files";

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

struct GzCloser {
  void operator()(gzFile_s* f) const {
    if (f) gzclose(f);
  }
};

// A whole IDX file: its magic, dimensions and payload.
struct Idx {
  uint32_t magic = 0;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

uint32_t big_endian(const unsigned char* b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

// Reads exactly n bytes; false on a short read.
bool read_exact(gzFile f, void* buf, size_t n) {
  auto* p = static_cast<unsigned char*>(buf);
  while (n > 0) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
    const int got = gzread(f, p, chunk);
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

Idx read_idx_file(const std::string& path, uint32_t expected_magic, int64_t limit) {
  const SourceLocation where{path, 0, 0};
  if (!exists(path)) throw InputError(where, std::string("no such file; ") + kPackageHint);
  std::unique_ptr<gzFile_s, GzCloser> f(gzopen(path.c_str(), "rb"));
  if (!f) throw InputError(where, "cannot open the file");
  unsigned char head[4];
  if (!read_exact(f.get(), head, 4)) throw InputError(where, "truncated IDX header");
  Idx idx;
  idx.magic = big_endian(head);
  if (idx.magic != expected_magic) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "bad IDX magic number 0x%08x (expected 0x%08x)", idx.magic,
                  expected_magic);
    throw InputError(where, buf);
  }
  const int ndims = static_cast<int>(expected_magic & 0xff);
  int64_t item = 1;
  for (int d = 0; d < ndims; ++d) {
    if (!read_exact(f.get(), head, 4)) throw InputError(where, "truncated IDX header");
    const uint32_t v = big_endian(head);
    if (v == 0 || v > (1u << 24)) throw InputError(where, "IDX dimension out of range");
    idx.dims.push_back(v);
    if (d > 0) item *= v;
  }
  if (limit > 0 && limit < idx.dims[0]) idx.dims[0] = limit;
  // The declared size, checked before allocating it (dims up to 2^24 each could declare 2^72).
  int64_t bytes = 0;
  if (__builtin_mul_overflow(idx.dims[0], item, &bytes) ||
      bytes > static_cast<int64_t>(io::kMaxInputBytes))
    throw InputError(where, "the IDX header declares more than " +
                                std::to_string(io::kMaxInputBytes >> 20) +
                                " MiB of data; expected a Fashion-MNIST file");
  idx.data.resize(static_cast<size_t>(bytes));
  if (!read_exact(f.get(), idx.data.data(), idx.data.size()))
    throw InputError(where, "truncated IDX data: expected " + std::to_string(idx.dims[0]) +
                                " items of " + std::to_string(item) + " bytes");
  return idx;
}

// path or path.gz, whichever exists (path.gz when neither does, for the error message).
std::string pick(const std::string& dir, const std::string& name) {
  const std::string plain = dir + "/" + name;
  return exists(plain + ".gz") || !exists(plain) ? plain + ".gz" : plain;
}

}  // namespace

ImageSet read_idx(const std::string& images_path, const std::string& labels_path, int64_t limit) {
  Idx img = read_idx_file(images_path, 0x00000803, limit);
  Idx lab = read_idx_file(labels_path, 0x00000801, limit);
  if (img.dims[0] != lab.dims[0])
    throw InputError({labels_path, 0, 0}, std::to_string(lab.dims[0]) + " labels for " +
                                              std::to_string(img.dims[0]) + " images");
  for (uint8_t l : lab.data)
    if (l >= 10) throw InputError({labels_path, 0, 0}, "label outside [0, 10)");
  ImageSet s;
  s.count = img.dims[0];
  s.rows = img.dims[1];
  s.cols = img.dims[2];
  s.pixels = std::move(img.data);
  s.labels = std::move(lab.data);
  return s;
}

FashionMnist load_fashion_mnist(const std::string& dir, int64_t train_limit, int64_t test_limit) {
  if (!exists(dir)) throw InputError({dir, 0, 0}, std::string("no such folder; ") + kPackageHint);
  FashionMnist d;
  d.train = read_idx(pick(dir, "train-images-idx3-ubyte"), pick(dir, "train-labels-idx1-ubyte"),
                     train_limit);
  d.test = read_idx(pick(dir, "t10k-images-idx3-ubyte"), pick(dir, "t10k-labels-idx1-ubyte"),
                    test_limit);
  return d;
}

ImageSet synthetic_images(int64_t count, uint64_t seed, uint64_t stream) {
  ImageSet s;
  s.count = count;
  s.rows = s.cols = 28;
  std::mt19937_64 proto_rng(seed), rng(seed * 7919 + stream);
  std::uniform_int_distribution<int> u(0, 255), noise(-60, 60);
  std::vector<int> proto(10 * 784);
  for (int& p : proto) p = u(proto_rng);
  s.pixels.resize(static_cast<size_t>(count * 784));
  s.labels.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int label = static_cast<int>(i % 10);
    s.labels[static_cast<size_t>(i)] = static_cast<uint8_t>(label);
    for (int j = 0; j < 784; ++j)
      s.pixels[static_cast<size_t>(i * 784 + j)] = static_cast<uint8_t>(
          std::clamp(proto[static_cast<size_t>(label * 784 + j)] + noise(rng), 0, 255));
  }
  return s;
}

}  // namespace sparsemap::ml::data
