// The IDX reader: gzipped and plain files, limits, every error, and the real package's files.
#include "sparsemap/ml/data/fashion_mnist.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "sparsemap/error.h"

namespace sparsemap::ml::data {
namespace {

std::vector<uint8_t> header(uint32_t magic, std::vector<uint32_t> dims) {
  std::vector<uint8_t> h;
  auto put = [&](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) h.push_back(static_cast<uint8_t>(v >> s));
  };
  put(magic);
  for (uint32_t d : dims) put(d);
  return h;
}

void write(const std::string& path, const std::vector<uint8_t>& bytes, bool gz) {
  if (gz) {
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
}

class IdxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sparsemap_idx_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const char* f : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                          "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", "bad", "lab"})
      std::remove((dir_ + "/" + f).c_str());
    rmdir(dir_.c_str());
  }
  // Three 2 x 3 images: image i holds i*10 + j; labels 7, 0, 9.
  void write_set(const std::string& prefix, bool gz) {
    std::vector<uint8_t> img = header(0x803, {3, 2, 3});
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 6; ++j) img.push_back(static_cast<uint8_t>(i * 10 + j));
    std::vector<uint8_t> lab = header(0x801, {3});
    lab.insert(lab.end(), {7, 0, 9});
    const std::string ext = gz ? ".gz" : "";
    write(dir_ + "/" + prefix + "-images-idx3-ubyte" + ext, img, gz);
    write(dir_ + "/" + prefix + "-labels-idx1-ubyte" + ext, lab, gz);
  }
  std::string dir_;
};

TEST_F(IdxTest, ReadsGzippedAndPlainFiles) {
  write_set("train", true);
  write_set("t10k", false);
  const FashionMnist d = load_fashion_mnist(dir_);
  for (const ImageSet* s : {&d.train, &d.test}) {
    EXPECT_EQ(s->count, 3);
    EXPECT_EQ(s->rows, 2);
    EXPECT_EQ(s->cols, 3);
    EXPECT_EQ(s->labels, (std::vector<uint8_t>{7, 0, 9}));
    ASSERT_EQ(s->pixels.size(), 18u);
    EXPECT_EQ(s->pixels[6 + 4], 14);
  }
  const FashionMnist lim = load_fashion_mnist(dir_, 2, 1);
  EXPECT_EQ(lim.train.count, 2);
  EXPECT_EQ(lim.test.count, 1);
  EXPECT_EQ(lim.test.pixels.size(), 6u);
}

TEST_F(IdxTest, ErrorsNameTheProblem) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { load_fashion_mnist(dir_ + "/missing"); }).find("dataset-fashion-mnist"),
            std::string::npos);
  EXPECT_NE(message([&] { load_fashion_mnist(dir_); }).find("dataset-fashion-mnist"),
            std::string::npos);
  write(dir_ + "/bad", header(0x801, {3}), false);
  write(dir_ + "/lab", header(0x801, {3}), false);
  EXPECT_NE(message([&] { read_idx(dir_ + "/bad", dir_ + "/lab"); }).find("magic"),
            std::string::npos);
  write(dir_ + "/bad", header(0x803, {3, 2, 3}), false);  // no pixels
  EXPECT_NE(message([&] { read_idx(dir_ + "/bad", dir_ + "/lab"); }).find("truncated"),
            std::string::npos);
  std::vector<uint8_t> img = header(0x803, {2, 1, 1});
  img.insert(img.end(), {1, 2});
  write(dir_ + "/bad", img, false);
  EXPECT_NE(message([&] { read_idx(dir_ + "/bad", dir_ + "/lab"); }).find("truncated"),
            std::string::npos);  // 3 labels announced, none stored
  std::vector<uint8_t> lab = header(0x801, {2});
  lab.insert(lab.end(), {1, 10});
  write(dir_ + "/lab", lab, false);
  EXPECT_NE(message([&] { read_idx(dir_ + "/bad", dir_ + "/lab"); }).find("label"),
            std::string::npos);
}

TEST(FashionMnist, ThePackagesFiles) {
  struct stat st {};
  if (::stat(kFashionMnistDir, &st) != 0)
    FAIL() << kFashionMnistDir
           << " missing: install Debian's dataset-fashion-mnist (scripts/bootstrap-deps.sh, which "
              "make test runs)";
  const FashionMnist d = load_fashion_mnist(kFashionMnistDir, 0, 0);
  EXPECT_EQ(d.train.count, 60000);
  EXPECT_EQ(d.test.count, 10000);
  EXPECT_EQ(d.train.rows, 28);
  EXPECT_EQ(d.train.cols, 28);
  std::array<int, 10> per_class{};
  for (uint8_t l : d.test.labels) ++per_class[l];
  for (int c : per_class) EXPECT_EQ(c, 1000);  // balanced test set
  EXPECT_STREQ(kFashionMnistClasses[9], "Ankle boot");
}

}  // namespace
}  // namespace sparsemap::ml::data
