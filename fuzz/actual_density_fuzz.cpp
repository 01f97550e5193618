// libFuzzer target for the actual-tensor density model (io::actual_density_of over
// sparse::parse_npy's bytes; workload::TensorOccupancy; the Sparseloop model asking it for
// tiles). The input is a .npy file, read as data space A (rows x cols = M x K) of a matrix
// product A[M][K] B[N][K] -> Z[M][N] (at most 4,096 points). Checked on every input: the
// readers return or throw InputError; every tile shape's occupancy distribution is
// probabilities summing to 1 whose mean is the tensor's nonzeros over its tiles; the model, A
// in CP with B skipped on A, does not throw and keeps actual computes within the algorithmic.
#include <cmath>
#include <memory>

#include "sparsemap/cost/sparseloop.h"
#include "sparsemap/io/actual_density.h"
#include "sparsemap/sparse/format/matrix_io.h"
#include "timeloop_fuzz.h"

namespace {

const char* kArch = R"(architecture:
  version: 0.4
  nodes:
  - !Container
    name: PE
  - !Component
    name: Backing
    class: DRAM
    attributes: {width: 8, datawidth: 8, metadata_storage_width: 8, metadata_datawidth: 4}
  - !Component
    name: Buffer
    class: storage
    attributes: {depth: 8192, width: 8, datawidth: 8, metadata_storage_width: 4,
                 metadata_datawidth: 4}
    sparse_optimizations:
      representation_format:
        data_spaces:
        - name: A
          ranks: [{format: UOP}, {format: CP}]
      action_optimization:
      - type: skipping
        options:
        - target: B
          condition_on: [A]
  - !Component
    name: mac
    class: intmac
    attributes: {multiplier_width: 8}
)";

// A version-1.0 .npy of '<f4' values: magic, header padded to a multiple of 64 bytes, data.
std::string npy(const std::string& shape, const std::vector<float>& v) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  out += dict;
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  return out;
}

sparsemap::workload::Einsum product(int64_t m, int64_t k) {
  sparsemap::workload::Einsum p;
  p.name = "product";
  p.dims = {"M", "N", "K"};
  p.data_spaces = {{"A", {{{"M", "", 1}}, {{"K", "", 1}}}, false},
                   {"B", {{{"N", "", 1}}, {{"K", "", 1}}}, false},
                   {"Z", {{{"M", "", 1}}, {{"N", "", 1}}}, true}};
  p.bounds = {{"M", m}, {"N", 2}, {"K", k}};
  return p;
}

// Checks one tile shape's distribution against the tensor.
void check_tiles(const sparsemap::workload::TensorOccupancy& t, const std::vector<int64_t>& tile) {
  using sparsemap::fuzz::finding;
  const auto h = t.distribution(tile);
  double sum = 0, mean = 0;
  for (size_t k = 0; k < h->size(); ++k) {
    if (!((*h)[k] >= 0 && (*h)[k] <= 1)) finding("a probability outside [0, 1]");
    sum += (*h)[k];
    mean += static_cast<double>(k) * (*h)[k];
  }
  int64_t tiles = 1;
  for (size_t a = 0; a < tile.size(); ++a) {
    const int64_t e = std::max<int64_t>(1, std::min(tile[a], t.shape()[a]));
    tiles *= (t.shape()[a] + e - 1) / e;
  }
  if (std::fabs(sum - 1) > 1e-9) finding("probabilities do not sum to 1");
  if (std::fabs(mean * static_cast<double>(tiles) - static_cast<double>(t.nonzeros())) >
      1e-6 * static_cast<double>(std::max<int64_t>(1, t.nonzeros())))
    finding("the mean occupancy is not the nonzeros over the tiles");
}

}  // namespace

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  return {{"a_4x8.npy", npy("(4, 8)", {1, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0,
                                       4, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 1, 0, 0})},
          {"a_1d.npy", npy("(6,)", {0, 1, 0, 1, 1, 0})},
          {"a_zero.npy", npy("(2, 2)", {0, 0, 0, 0})}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  static const io::TimeloopInputs arch = fuzz::companion(kArch);
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  sparse::DenseMatrix a;
  if (!fuzz::accepts([&] { a = sparse::parse_npy(bytes, "fuzz.npy"); })) return 0;
  if (a.rows < 1 || a.cols < 1 || a.rows * a.cols > 4096) return 0;
  const workload::Einsum p = product(a.rows, a.cols);
  workload::DensityModel m;
  if (!fuzz::accepts([&] { m = io::actual_density_of(a, p, "A", {"fuzz.npy"}, "fuzz.npy"); }))
    fuzz::finding("an M x K array is refused as A");
  if (!m.tensor) fuzz::finding("no tensor");
  const auto& t = *m.tensor;
  const int64_t r = a.rows, c = a.cols;
  for (const std::vector<int64_t>& tile : std::vector<std::vector<int64_t>>{
           {1, 1}, {1, c}, {r, 1}, {r, c}, {2, 3}, {(r + 1) / 2, (c + 2) / 3}, {r + 5, 0}})
    check_tiles(t, tile);
  std::map<std::string, workload::DensityModel> densities = {{"A", m}};
  cost::SparseLoopResult res;
  try {
    res = cost::evaluate_sparseloop(p, *arch.arch, fuzz::everything_outermost(p, *arch.arch),
                                    nullptr, *arch.sparse, densities);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("evaluate_sparseloop threw: ") + e.what());
  }
  if (res.ok() && (res.actual_computes < 0 || res.actual_computes > res.algorithmic_computes))
    fuzz::finding("actual computes outside [0, algorithmic]");
  return 0;
}
