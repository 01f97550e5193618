// Format names, their parsing, and the generic operations on AnySparse.
#include "sparsemap/sparse/format/format_spec.h"

#include <cctype>
#include <cmath>
#include <sstream>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::sparse {

namespace {

[[noreturn]] void bad_format(const std::string& text, const std::string& why) {
  throw InputError({"<format>", 0, 0},
                   "'" + text + "': " + why +
                       "; expected dense, csr, bsr:HxW, cvse:V, nm:N:M, nm:N:M:col or vnm:V:N:M");
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

int parse_int(const std::string& text, const std::string& field) {
  if (field.empty() || field.size() > 6 ||
      field.find_first_not_of("0123456789") != std::string::npos)
    bad_format(text, "'" + field + "' is not a positive integer");
  return std::stoi(field);
}

}  // namespace

std::string FormatSpec::family() const {
  switch (kind) {
    case FormatKind::Dense:
      return "dense";
    case FormatKind::Csr:
      return "csr";
    case FormatKind::Bsr:
      return "bsr";
    case FormatKind::Cvse:
      return "cvse";
    case FormatKind::Nm:
      return "nm";
    case FormatKind::Vnm:
      return "vnm";
  }
  return "?";
}

std::string FormatSpec::str() const {
  switch (kind) {
    case FormatKind::Dense:
    case FormatKind::Csr:
      return family();
    case FormatKind::Bsr:
      return "bsr:" + std::to_string(bh) + "x" + std::to_string(bw);
    case FormatKind::Cvse:
      return "cvse:" + std::to_string(v);
    case FormatKind::Nm:
      return "nm:" + std::to_string(n) + ":" + std::to_string(m) +
             (axis == NmAxis::Col ? ":col" : "");
    case FormatKind::Vnm:
      return "vnm:" + std::to_string(v) + ":" + std::to_string(n) + ":" + std::to_string(m);
  }
  return "?";
}

double FormatSpec::intrinsic_sparsity() const {
  if ((kind == FormatKind::Nm || kind == FormatKind::Vnm) && m > 0)
    return 1.0 - static_cast<double>(n) / m;
  return -1.0;
}

bool FormatSpec::operator==(const FormatSpec& o) const { return str() == o.str(); }

FormatSpec parse_format(const std::string& text) {
  std::string t;
  for (char ch : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const std::vector<std::string> f = split(t, ':');
  FormatSpec s;
  const std::string& name = f[0];
  if (name == "dense" || name == "csr") {
    if (f.size() != 1) bad_format(text, name + " takes no parameters");
    s.kind = name == "dense" ? FormatKind::Dense : FormatKind::Csr;
  } else if (name == "bsr") {
    if (f.size() != 2) bad_format(text, "bsr needs a block size HxW");
    const std::vector<std::string> hw = split(f[1], 'x');
    if (hw.size() != 2) bad_format(text, "bsr needs a block size HxW");
    s.kind = FormatKind::Bsr;
    s.bh = parse_int(text, hw[0]);
    s.bw = parse_int(text, hw[1]);
    if (s.bh < 1 || s.bw < 1 || s.bh > 4096 || s.bw > 4096)
      bad_format(text, "block sizes must be in [1, 4096]");
  } else if (name == "cvse") {
    if (f.size() != 2) bad_format(text, "cvse needs a vector length V");
    s.kind = FormatKind::Cvse;
    s.v = parse_int(text, f[1]);
    if (!valid_cvse_v(s.v)) bad_format(text, "V must be 1, 2, 4, 8, 16 or 32");
  } else if (name == "nm") {
    if (f.size() != 3 && f.size() != 4) bad_format(text, "nm needs N and M");
    s.kind = FormatKind::Nm;
    s.n = parse_int(text, f[1]);
    s.m = parse_int(text, f[2]);
    if (f.size() == 4) {
      if (f[3] == "col")
        s.axis = NmAxis::Col;
      else if (f[3] == "row")
        s.axis = NmAxis::Row;
      else
        bad_format(text, "the axis must be row or col");
    }
    if (s.m < 1 || s.m > 255 || s.n < 1 || s.n > s.m) bad_format(text, "needs 1 <= N <= M <= 255");
  } else if (name == "vnm") {
    if (f.size() != 4) bad_format(text, "vnm needs V, N and M");
    s.kind = FormatKind::Vnm;
    s.v = parse_int(text, f[1]);
    s.n = parse_int(text, f[2]);
    s.m = parse_int(text, f[3]);
    if (s.v < 1 || s.v > 4096 || s.m < 4 || s.m > 255 || s.n < 1 || s.n > 4)
      bad_format(text, "needs 1 <= V <= 4096, 4 <= M <= 255 and 1 <= N <= 4");
  } else {
    bad_format(text, "unknown format");
  }
  return s;
}

FormatSpec spec_of(const AnySparse& a) {
  FormatSpec s;
  if (std::holds_alternative<DenseMatrix>(a)) {
    s.kind = FormatKind::Dense;
  } else if (std::holds_alternative<CsrMatrix>(a)) {
    s.kind = FormatKind::Csr;
  } else if (const auto* b = std::get_if<BsrMatrix>(&a)) {
    s.kind = FormatKind::Bsr;
    s.bh = b->bh;
    s.bw = b->bw;
  } else if (const auto* c = std::get_if<CvseMatrix>(&a)) {
    s.kind = FormatKind::Cvse;
    s.v = c->v;
  } else if (const auto* nm = std::get_if<NmMatrix>(&a)) {
    s.kind = FormatKind::Nm;
    s.n = nm->n;
    s.m = nm->m;
    s.axis = nm->axis;
  } else if (const auto* x = std::get_if<VnmMatrix>(&a)) {
    s.kind = FormatKind::Vnm;
    s.v = x->v;
    s.n = x->n;
    s.m = x->m;
  }
  return s;
}

int64_t rows_of(const AnySparse& a) {
  return std::visit([](const auto& x) { return x.rows; }, a);
}
int64_t cols_of(const AnySparse& a) {
  return std::visit([](const auto& x) { return x.cols; }, a);
}

DenseMatrix to_dense(const AnySparse& a) {
  if (const auto* d = std::get_if<DenseMatrix>(&a)) return *d;
  return std::visit(
      [](const auto& x) -> DenseMatrix {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, DenseMatrix>)
          return x;
        else
          return to_dense(x);
      },
      a);
}

Footprint footprint(const AnySparse& a) {
  return std::visit(
      [](const auto& x) -> Footprint {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, DenseMatrix>)
          return footprint_dense(x.rows, x.cols);
        else
          return footprint(x);
      },
      a);
}

void validate(const AnySparse& a) {
  std::visit(
      [](const auto& x) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, DenseMatrix>) {
          if (x.rows < 0 || x.cols < 0 || x.values.size() != static_cast<size_t>(x.rows * x.cols))
            throw InputError({"<dense>", 0, 0}, "values do not match the sizes");
        } else {
          validate(x);
        }
      },
      a);
}

int64_t stored_values(const AnySparse& a) {
  return std::visit([](const auto& x) -> int64_t { return static_cast<int64_t>(x.values.size()); },
                    a);
}

AnySparse convert(ConstMatrixView a, const FormatSpec& s, const Mask* keep) {
  switch (s.kind) {
    case FormatKind::Dense:
      return keep ? apply_mask(a, *keep) : to_dense(a);
    case FormatKind::Csr:
      return csr_from_dense(a, keep);
    case FormatKind::Bsr:
      return bsr_from_dense(a, s.bh, s.bw, keep);
    case FormatKind::Cvse:
      return cvse_from_dense(a, s.v, keep);
    case FormatKind::Nm:
      return nm_from_dense(a, s.n, s.m, s.axis, keep);
    case FormatKind::Vnm:
      return vnm_from_dense(a, s.v, s.n, s.m, keep);
  }
  SPARSEMAP_ASSERT(false);
  return DenseMatrix{};
}

}  // namespace sparsemap::sparse
