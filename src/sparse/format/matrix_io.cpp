// Matrix Market and NumPy .npy readers and writers.
#include "sparsemap/sparse/format/matrix_io.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <tuple>
#include <vector>

#include "sparsemap/error.h"
#include "sparsemap/io/util.h"

namespace sparsemap::sparse {

namespace {

constexpr int64_t kMaxElems = int64_t{1} << 31;  // refuse larger dense matrices
// A side longer than 2^24 (16.7M) would make CSR's row pointers alone 64 MiB or more from a
// three-line file; DNN weight matrices are far smaller.
constexpr int64_t kMaxSide = int64_t{1} << 24;
// The most values a dense matrix read from a sparse file may hold: 2^26 floats (256 MiB).
constexpr int64_t kMaxDenseFromSparse = int64_t{1} << 26;

using io::read_file;

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())))
    throw InputError({path, 0, 0}, "cannot write the file");
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Splits on whitespace.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream is(line);
  std::string w;
  while (is >> w) out.push_back(w);
  return out;
}

bool parse_i64(const std::string& s, int64_t& v) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos)
    return false;
  v = std::stoll(s);
  return true;
}

bool parse_real(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

struct MtxData {
  int64_t rows = 0, cols = 0;
  bool array = false;
  std::vector<std::tuple<int64_t, int64_t, float>> entries;  // coordinate, 0-based
  std::vector<float> dense;                                  // array, row-major
};

MtxData parse_mtx_data(const std::string& text, const std::string& name) {
  std::istringstream in(std::string(io::without_bom(text)));
  std::string line;
  int lineno = 0;
  auto fail = [&](const std::string& msg) -> InputError {
    return InputError({name, lineno, 0}, msg);
  };
  if (!std::getline(in, line))
    throw InputError({name, 1, 0}, "empty file; expected %%MatrixMarket");
  ++lineno;
  const std::vector<std::string> h = words(lower(line));
  if (h.size() != 5 || h[0] != "%%matrixmarket" || h[1] != "matrix")
    throw fail("expected '%%MatrixMarket matrix <coordinate|array> <field> <symmetry>'");
  MtxData d;
  if (h[2] != "coordinate" && h[2] != "array")
    throw fail("format '" + h[2] + "' is not supported; expected coordinate or array");
  d.array = h[2] == "array";
  const std::string field = h[3], sym = h[4];
  if (field != "real" && field != "integer" && field != "double" &&
      !(field == "pattern" && !d.array))
    throw fail("field '" + field + "' is not supported; expected real, integer" +
               std::string(d.array ? "" : " or pattern"));
  if (sym != "general" && (d.array || (sym != "symmetric" && sym != "skew-symmetric")))
    throw fail("symmetry '" + sym + "' is not supported; expected general" +
               std::string(d.array ? "" : ", symmetric or skew-symmetric"));
  // Size line (after comments).
  std::vector<std::string> w;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line[0] == '%') continue;
    w = words(line);
    if (!w.empty()) break;
  }
  int64_t nnz = 0;
  if (w.size() != (d.array ? 2u : 3u) || !parse_i64(w[0], d.rows) || !parse_i64(w[1], d.cols) ||
      (!d.array && !parse_i64(w[2], nnz)))
    throw fail(d.array ? "expected the size line 'rows cols'"
                       : "expected the size line 'rows cols entries'");
  if (d.rows > kMaxSide || d.cols > kMaxSide)
    throw fail("sizes must be at most 2^24 (16,777,216) rows and columns");
  if (sym != "general" && d.rows != d.cols)  // the mirrored entry would fall outside
    throw fail("a " + sym + " matrix must be square; the size line says " + std::to_string(d.rows) +
               " x " + std::to_string(d.cols));
  const int64_t want = d.array ? d.rows * d.cols : nnz;
  if (!d.array && (nnz > d.rows * d.cols || nnz > kMaxElems))
    throw fail("more entries than the matrix has places");
  // Never trust a declared size: each value takes at least two bytes ("0\n") of what is left.
  const int64_t room = (static_cast<int64_t>(text.size()) - static_cast<int64_t>(in.tellg())) / 2;
  if (want > room)
    throw fail("the header declares " + std::to_string(want) +
               " values but the rest of the file has room for at most " + std::to_string(room));
  if (d.array) d.dense.assign(static_cast<size_t>(want), 0.0f);
  const bool pattern = field == "pattern";
  int64_t got = 0;
  while (got < want && std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line[0] == '%') continue;
    w = words(line);
    if (w.empty()) continue;
    double v = 1.0;
    if (d.array) {
      if (w.size() != 1 || !parse_real(w[0], v)) throw fail("expected one finite value");
      d.dense[static_cast<size_t>((got % d.rows) * d.cols + got / d.rows)] = static_cast<float>(v);
    } else {
      int64_t i = 0, j = 0;
      if (w.size() != (pattern ? 2u : 3u) || !parse_i64(w[0], i) || !parse_i64(w[1], j) ||
          (!pattern && !parse_real(w[2], v)))
        throw fail(pattern ? "expected 'row col'" : "expected 'row col value'");
      if (i < 1 || i > d.rows || j < 1 || j > d.cols)
        throw fail("entry (" + w[0] + ", " + w[1] + ") is outside the " + std::to_string(d.rows) +
                   " x " + std::to_string(d.cols) + " matrix");
      d.entries.emplace_back(i - 1, j - 1, static_cast<float>(v));
      if (sym != "general" && i != j)
        d.entries.emplace_back(j - 1, i - 1, static_cast<float>(sym == "symmetric" ? v : -v));
      if (sym == "skew-symmetric" && i == j)
        throw fail("a skew-symmetric matrix has no diagonal entries");
    }
    ++got;
  }
  if (got < want)
    throw fail("the file ends after " + std::to_string(got) + " of " + std::to_string(want) +
               " entries");
  return d;
}

CsrMatrix to_csr(MtxData&& d, const std::string& name) {
  if (d.array) {
    DenseMatrix m(d.rows, d.cols);
    m.values = std::move(d.dense);
    return csr_from_dense(m.view());
  }
  std::sort(d.entries.begin(), d.entries.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  if (d.entries.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    throw InputError({name, 0, 0}, "more than 2^31-1 entries");
  CsrMatrix s;
  s.rows = d.rows;
  s.cols = d.cols;
  s.row_ptr.assign(static_cast<size_t>(d.rows + 1), 0);
  int64_t pi = -1, pj = -1;
  for (const auto& [i, j, v] : d.entries) {
    if (i == pi && j == pj) {
      s.values.back() += v;  // duplicate entries are summed
      continue;
    }
    s.col_idx.push_back(static_cast<int32_t>(j));
    s.values.push_back(v);
    ++s.row_ptr[static_cast<size_t>(i + 1)];
    pi = i;
    pj = j;
  }
  for (int64_t r = 0; r < d.rows; ++r)
    s.row_ptr[static_cast<size_t>(r + 1)] += s.row_ptr[static_cast<size_t>(r)];
  return s;
}

}  // namespace

CsrMatrix parse_mtx(const std::string& text, const std::string& name) {
  return to_csr(parse_mtx_data(text, name), name);
}

CsrMatrix read_mtx(const std::string& path) { return parse_mtx(read_file(path), path); }

DenseMatrix read_mtx_dense(const std::string& path) {
  MtxData d = parse_mtx_data(read_file(path), path);
  if (d.array) {
    DenseMatrix m(d.rows, d.cols);
    m.values = std::move(d.dense);
    return m;
  }
  if (d.rows * d.cols > kMaxDenseFromSparse)
    throw InputError({path, 0, 0}, std::to_string(d.rows) + " x " + std::to_string(d.cols) +
                                       " is too large to hold dense (at most 2^26 values)");
  return to_dense(to_csr(std::move(d), path));
}

void write_mtx(const CsrMatrix& a, const std::string& path) {
  validate(a);
  std::ostringstream os;
  os.precision(9);
  os << "%%MatrixMarket matrix coordinate real general\n% written by sparsemap\n"
     << a.rows << " " << a.cols << " " << a.nnz() << "\n";
  for (int64_t r = 0; r < a.rows; ++r)
    for (int32_t p = a.row_ptr[static_cast<size_t>(r)]; p < a.row_ptr[static_cast<size_t>(r + 1)];
         ++p)
      os << r + 1 << " " << a.col_idx[static_cast<size_t>(p)] + 1 << " "
         << a.values[static_cast<size_t>(p)] << "\n";
  write_file(path, os.str());
}

void write_mtx(const DenseMatrix& a, const std::string& path) {
  std::ostringstream os;
  os.precision(9);
  os << "%%MatrixMarket matrix array real general\n% written by sparsemap\n"
     << a.rows << " " << a.cols << "\n";
  for (int64_t c = 0; c < a.cols; ++c)
    for (int64_t r = 0; r < a.rows; ++r) os << a.at(r, c) << "\n";
  write_file(path, os.str());
}

// ------------------------------------------------------------------------------------- NumPy

namespace {

// Value of `key` in a .npy header dict such as "{'descr': '<f4', 'fortran_order': False,
// 'shape': (3, 4), }": the text after "'key':" up to the next top-level ',' or '}'.
bool dict_value(const std::string& h, const std::string& key, std::string& out) {
  const size_t k = h.find("'" + key + "'");
  if (k == std::string::npos) return false;
  size_t p = h.find(':', k);
  if (p == std::string::npos) return false;
  ++p;
  int depth = 0;
  size_t e = p;
  for (; e < h.size(); ++e) {
    if (h[e] == '(')
      ++depth;
    else if (h[e] == ')')
      --depth;
    else if ((h[e] == ',' || h[e] == '}') && depth == 0)
      break;
  }
  out = h.substr(p, e - p);
  out.erase(0, out.find_first_not_of(" \t"));
  out.erase(out.find_last_not_of(" \t") + 1);
  return true;
}

}  // namespace

DenseMatrix parse_npy(const std::string& bytes, const std::string& name) {
  auto fail = [&](const std::string& msg) { return InputError({name, 0, 0}, msg); };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    throw fail("not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t hlen = 0, start = 0;
  if (major == 1) {
    hlen =
        static_cast<unsigned char>(bytes[8]) | (size_t{static_cast<unsigned char>(bytes[9])} << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw fail("truncated header");
    hlen = 0;
    for (int i = 0; i < 4; ++i) hlen |= size_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
    start = 12;
  } else {
    throw fail("unsupported .npy version " + std::to_string(major));
  }
  if (hlen > bytes.size() - start) throw fail("truncated header");
  const std::string h = bytes.substr(start, hlen);
  std::string descr, fortran, shape;
  if (!dict_value(h, "descr", descr) || !dict_value(h, "fortran_order", fortran) ||
      !dict_value(h, "shape", shape))
    throw fail("header lacks descr, fortran_order or shape");
  descr.erase(std::remove(descr.begin(), descr.end(), '\''), descr.end());
  descr.erase(std::remove(descr.begin(), descr.end(), '"'), descr.end());
  int width = 0;
  char kind = 0;
  if (descr == "<f4")
    kind = 'f', width = 4;
  else if (descr == "<f8")
    kind = 'f', width = 8;
  else if (descr == "<i4")
    kind = 'i', width = 4;
  else if (descr == "<i8")
    kind = 'i', width = 8;
  else
    throw fail("dtype '" + descr + "' is not supported; expected <f4, <f8, <i4 or <i8");
  if (fortran != "False" && fortran != "True") throw fail("fortran_order must be True or False");
  const bool col_major = fortran == "True";
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') throw fail("bad shape");
  std::vector<int64_t> dims;
  std::stringstream ss(shape.substr(1, shape.size() - 2));
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" "));
    item.erase(item.find_last_not_of(" ") + 1);
    if (item.empty()) continue;
    int64_t v = 0;
    if (!parse_i64(item, v)) throw fail("bad shape entry '" + item + "'");
    dims.push_back(v);
  }
  if (dims.size() > 2 || dims.empty())
    throw fail("expected a 1-D or 2-D array, got " + std::to_string(dims.size()) + " dimensions");
  const int64_t rows = dims.size() == 2 ? dims[0] : 1, cols = dims.back();
  if (rows > kMaxElems || cols > kMaxElems || (rows > 0 && cols > kMaxElems / rows))
    throw fail("the array is too large");
  const size_t data = start + hlen;
  if (bytes.size() - data != static_cast<size_t>(rows * cols) * static_cast<size_t>(width))
    throw fail("data holds " + std::to_string(bytes.size() - data) + " bytes, the header says " +
               std::to_string(rows * cols * width));
  DenseMatrix m(rows, cols);
  const char* p = bytes.data() + data;
  for (int64_t i = 0; i < rows * cols; ++i) {
    double v = 0;
    if (kind == 'f' && width == 4) {
      float f;
      std::memcpy(&f, p + i * 4, 4);
      v = f;
    } else if (kind == 'f')
      std::memcpy(&v, p + i * 8, 8);
    else if (width == 4) {
      int32_t x;
      std::memcpy(&x, p + i * 4, 4);
      v = x;
    } else {
      int64_t x;
      std::memcpy(&x, p + i * 8, 8);
      v = static_cast<double>(x);
    }
    const int64_t r = col_major ? i % rows : i / cols, c = col_major ? i / rows : i % cols;
    m.at(r, c) = static_cast<float>(v);
  }
  return m;
}

DenseMatrix read_npy(const std::string& path) { return parse_npy(read_file(path), path); }

void write_npy(const DenseMatrix& a, const std::string& path) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                       std::to_string(a.rows) + ", " + std::to_string(a.cols) + "), }";
  // Pad so that the data starts on a 64-byte boundary; the header ends with '\n'.
  const size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(a.values.data()), a.values.size() * sizeof(float));
  write_file(path, out);
}

}  // namespace sparsemap::sparse
