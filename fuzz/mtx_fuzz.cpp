// libFuzzer target for Matrix Market files (sparse::parse_mtx). Checked on every input: the
// reader returns or throws InputError (no crash, hang, leak or UB, memory under the 2 GiB the
// runner allows whatever size a header declares), and what it accepts is a well-formed CSR.
#include "fuzz_main.h"
#include "sparsemap/sparse/format/matrix_io.h"

sparsemap::fuzz::Seeds sparsemap::fuzz::builtin_seeds() {
  return {
      {"coord_real.mtx",
       "%%MatrixMarket matrix coordinate real general\n% comment\n3 4 3\n1 1 1.5\n2 3 -2\n"
       "3 4 1e-3\n"},
      {"pattern_sym.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n"},
      {"int_skew.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 7\n"},
      {"dup.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 1 2\n"},
      {"array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"},
      {"array_int.mtx", "%%MatrixMarket matrix array integer general\n1 3\n1\n0\n-4\n"}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sparsemap;
  const std::string text(reinterpret_cast<const char*>(data), size);
  sparse::CsrMatrix m;
  if (!fuzz::accepts([&] { m = sparse::parse_mtx(text, "fuzz.mtx"); })) return 0;
  if (m.rows < 0 || m.cols < 0 || m.row_ptr.size() != static_cast<size_t>(m.rows) + 1 ||
      m.row_ptr.front() != 0 || m.col_idx.size() != m.values.size() ||
      static_cast<size_t>(m.row_ptr.back()) != m.values.size())
    fuzz::finding("malformed CSR accepted");
  for (int64_t r = 0; r < m.rows; ++r)
    if (m.row_ptr[static_cast<size_t>(r)] > m.row_ptr[static_cast<size_t>(r) + 1])
      fuzz::finding("row_ptr decreases");
  for (int32_t c : m.col_idx)
    if (c < 0 || c >= m.cols) fuzz::finding("column index out of range");
  return 0;
}
