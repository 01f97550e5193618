// libFuzzer target for NumPy .npy files (sparse::parse_npy from bytes). Checked on every input:
// the reader returns or throws InputError (no crash, hang, leak or UB, no allocation a header
// asks for beyond the bytes present), and what it accepts holds rows * cols values.
#include "fuzz_main.h"
#include "sparsemap/sparse/format/matrix_io.h"

namespace {

// A version-1.0 .npy file: magic, header padded to a multiple of 64 bytes, then `payload`.
std::string npy(const std::string& dict, const std::string& payload, char major = 1) {
  std::string header = dict;
  const size_t pre = major == 1 ? 10 : 12;
  while ((pre + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string s = std::string("\x93NUMPY", 6) + major + '\0';
  const size_t n = header.size();
  s += static_cast<char>(n & 0xff);
  s += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) s += std::string("\0\0", 2);
  return s + header + payload;
}

}  // namespace

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  const std::string f4(16, '\0'), f8(16, '\x01');
  return {{"f4_c.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", f4)},
          {"f8_f.npy", npy("{'descr': '<f8', 'fortran_order': True, 'shape': (1, 2), }", f8)},
          {"i4_1d.npy", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", f4)},
          {"i8_v2.npy", npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,1), }", f4, 2)}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  sparse::DenseMatrix m;
  if (!fuzz::accepts([&] { m = sparse::parse_npy(bytes, "fuzz.npy"); })) return 0;
  if (m.rows < 0 || m.cols < 0 ||
      m.values.size() != static_cast<size_t>(m.rows) * static_cast<size_t>(m.cols))
    fuzz::finding("accepted matrix does not hold rows * cols values");
  return 0;
}
