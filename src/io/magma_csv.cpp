// Readers of MAGMA's job files and job tables and of sparsemap's platform CSV (see the header).
#include "sparsemap/io/magma_csv.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

#include "sparsemap/error.h"
#include "sparsemap/io/util.h"

namespace sparsemap::io {
namespace {

constexpr int64_t kMaxSize = 2147483647;

struct Field {
  std::string_view text;  // trimmed
  int column = 1;         // 1-based column of its first character
};

// A field as it may appear in a one-line message: at most 40 characters, anything that is not
// printable ASCII shown as '?'.
std::string shown(std::string_view text) {
  std::string out;
  for (char ch : text.substr(0, 40)) out += (ch >= 32 && ch < 127) ? ch : '?';
  if (text.size() > 40) out += "...";
  return out;
}

std::vector<Field> split_fields(std::string_view line) {
  std::vector<Field> out;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    std::string_view raw = line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t lead = 0;
    while (lead < raw.size() && (raw[lead] == ' ' || raw[lead] == '\t')) ++lead;
    size_t end = raw.size();
    while (end > lead && (raw[end - 1] == ' ' || raw[end - 1] == '\t' || raw[end - 1] == '\r'))
      --end;
    out.push_back({raw.substr(lead, end - lead), static_cast<int>(start + lead) + 1});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// Calls fn(line_number, line) for each line that is not blank and not a '#' comment.
template <typename Fn>
void for_each_line(const std::string& text, Fn fn) {
  size_t pos = text.size() - without_bom(text).size();  // a UTF-8 BOM is not part of line 1
  int line_no = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    ++line_no;
    std::string_view line(text.data() + pos, nl - pos);
    size_t k = 0;
    while (k < line.size() && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r')) ++k;
    if (k < line.size() && line[k] != '#') fn(line_no, line);
    if (nl == text.size()) break;
    pos = nl + 1;
  }
}

int64_t parse_int(const Field& f, const std::string& file, int line, const char* what, int64_t lo,
                  int64_t hi) {
  SourceLocation at{file, line, f.column};
  if (f.text.empty()) throw InputError(at, std::string("expected ") + what + ", found nothing");
  int64_t v = 0;
  size_t i = 0;
  bool neg = false;
  if (f.text[0] == '-' || f.text[0] == '+') {
    neg = f.text[0] == '-';
    i = 1;
  }
  if (i == f.text.size())
    throw InputError(at, std::string("expected ") + what + ", found '" + shown(f.text) + "'");
  for (; i < f.text.size(); ++i) {
    char ch = f.text[i];
    if (ch < '0' || ch > '9')
      throw InputError(at, std::string("expected ") + what + ", found '" + shown(f.text) + "'");
    if (v > kMaxSize) break;
    v = v * 10 + (ch - '0');
  }
  if (neg) v = -v;
  if (v < lo || v > hi)
    throw InputError(at, std::string("expected ") + what + " in " + std::to_string(lo) + ".." +
                             std::to_string(hi) + ", found " + shown(f.text));
  return v;
}

double parse_real(const Field& f, const std::string& file, int line, const char* what,
                  bool positive) {
  SourceLocation at{file, line, f.column};
  std::string s(f.text);
  char* end = nullptr;
  double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < 0 ||
      (positive && v <= 0))
    throw InputError(at, std::string("expected ") + what + (positive ? " > 0" : " >= 0") +
                             ", found '" + shown(s) + "'");
  return v;
}

void check_count(const std::vector<Field>& f, size_t want, const std::string& file, int line,
                 std::string_view text) {
  if (f.size() != want)
    throw InputError(
        {file, line, f.size() > want ? f[want].column : static_cast<int>(text.size()) + 1},
        "expected " + std::to_string(want) + " comma-separated fields, found " +
            std::to_string(f.size()));
}

// Header columns by name -> index. Throws when a required name is missing or one is unknown.
std::map<std::string, size_t> header_columns(const std::vector<Field>& f,
                                             const std::vector<std::string>& required,
                                             const std::vector<std::string>& optional,
                                             const std::string& file, int line) {
  std::map<std::string, size_t> cols;
  for (size_t i = 0; i < f.size(); ++i) {
    const std::string name(f[i].text);
    bool known = false;
    for (const auto& r : required) known |= r == name;
    for (const auto& o : optional) known |= o == name;
    if (!known) {
      std::string all;
      for (const auto& r : required) all += (all.empty() ? "" : ", ") + r;
      throw InputError({file, line, f[i].column},
                       "unknown column '" + shown(name) + "' (expected a header with " + all + ")");
    }
    if (cols.count(name))
      throw InputError({file, line, f[i].column}, "column '" + shown(name) + "' twice");
    cols[name] = i;
  }
  for (const auto& r : required)
    if (!cols.count(r))
      throw InputError({file, line, 1}, "expected a header with a '" + r + "' column");
  return cols;
}

const char* kDimNames[6] = {"K", "C", "Y", "X", "R", "S"};

}  // namespace

std::vector<MagmaJob> parse_magma_jobs(const std::string& text, const std::string& file) {
  std::vector<MagmaJob> jobs;
  for_each_line(text, [&](int ln, std::string_view line) {
    auto f = split_fields(line);
    check_count(f, 9, file, ln, line);
    if (static_cast<int64_t>(jobs.size()) >= kMaxJobs)
      throw InputError({file, ln, 1}, "more than " + std::to_string(kMaxJobs) + " jobs");
    MagmaJob j;
    j.line = ln;
    j.thread = parse_int(f[0], file, ln, "a thread id", 0, kMaxSize);
    j.layer = parse_int(f[1], file, ln, "a layer id", 0, kMaxSize);
    for (int d = 0; d < 6; ++d) j.dims[d] = parse_int(f[2 + d], file, ln, "a size", 1, kMaxSize);
    j.type = static_cast<int>(
        parse_int(f[8], file, ln, "a type 0 (FFN), 1 (CONV), 2 (DSCONV) or 3 (GEMM)", 0, 3));
    jobs.push_back(j);
  });
  if (jobs.empty()) throw InputError({file, 0, 0}, "expected at least one job line");
  return jobs;
}

std::vector<MagmaJob> read_magma_jobs(const std::string& path) {
  return parse_magma_jobs(read_file(path), path);
}

MagmaTable parse_magma_job_table(const std::string& text, const std::string& file) {
  MagmaTable t;
  std::map<std::string, size_t> cols;
  bool have_header = false;
  int64_t cur_job = 0, next_core = 0;
  int last_line = 0;
  for_each_line(text, [&](int ln, std::string_view line) {
    auto f = split_fields(line);
    last_line = ln;
    if (!have_header) {
      cols = header_columns(f, {"job", "core", "latency_cycles", "req_dram_bw"},
                            {"thread", "layer", "K", "C", "Y", "X", "R", "S", "T"}, file, ln);
      have_header = true;
      return;
    }
    check_count(f, cols.size(), file, ln, line);
    if (static_cast<int64_t>(t.rows.size()) >= kMaxJobs * 16)
      throw InputError({file, ln, 1}, "more than " + std::to_string(kMaxJobs * 16) + " rows");
    MagmaTableRow r;
    r.line = ln;
    r.job = parse_int(f[cols["job"]], file, ln, "a job index", 0, kMaxJobs - 1);
    r.core = parse_int(f[cols["core"]], file, ln, "a core index", 0, kMaxCores - 1);
    if (cols.count("thread"))
      r.thread = parse_int(f[cols["thread"]], file, ln, "a thread id", 0, kMaxSize);
    if (cols.count("layer"))
      r.layer = parse_int(f[cols["layer"]], file, ln, "a layer id", 0, kMaxSize);
    for (int d = 0; d < 6; ++d)
      if (cols.count(kDimNames[d]))
        r.dims[d] = parse_int(f[cols[kDimNames[d]]], file, ln, "a size", 1, kMaxSize);
    if (cols.count("T"))
      r.type = static_cast<int>(parse_int(f[cols["T"]], file, ln, "a type 0..3", 0, 3));
    r.latency_cycles = parse_real(f[cols["latency_cycles"]], file, ln, "a latency in cycles", true);
    r.req_dram_bw = parse_real(f[cols["req_dram_bw"]], file, ln, "a DRAM bandwidth", false);
    // Rows come job by job, cores 0..m-1 within a job.
    const int jc = f[cols["job"]].column, cc = f[cols["core"]].column;
    if (r.core == 0 && next_core > 0) {
      if (t.num_cores == 0) t.num_cores = next_core;
      if (next_core != t.num_cores)
        throw InputError({file, ln, cc}, "job " + std::to_string(cur_job) + " has " +
                                             std::to_string(next_core) + " rows, expected " +
                                             std::to_string(t.num_cores) + " (one per core)");
      ++cur_job;
      next_core = 0;
    }
    if (r.job != cur_job)
      throw InputError({file, ln, jc}, "expected job " + std::to_string(cur_job) +
                                           " (jobs numbered 0, 1, ... in order), found " +
                                           std::to_string(r.job));
    if (r.core != next_core)
      throw InputError({file, ln, cc}, "expected core " + std::to_string(next_core) + " of job " +
                                           std::to_string(r.job) + ", found " +
                                           std::to_string(r.core));
    if (t.num_cores > 0 && r.core >= t.num_cores)
      throw InputError({file, ln, cc}, "job " + std::to_string(r.job) +
                                           " has more cores than job 0 (" +
                                           std::to_string(t.num_cores) + ")");
    ++next_core;
    t.rows.push_back(r);
  });
  if (!have_header) throw InputError({file, 0, 0}, "expected a header line and job rows");
  if (t.rows.empty()) throw InputError({file, last_line, 0}, "expected at least one job row");
  if (t.num_cores == 0) t.num_cores = next_core;
  if (next_core != t.num_cores)
    throw InputError({file, last_line, 0}, "job " + std::to_string(cur_job) + " has " +
                                               std::to_string(next_core) + " rows, expected " +
                                               std::to_string(t.num_cores) + " (one per core)");
  t.num_jobs = cur_job + 1;
  return t;
}

MagmaTable read_magma_job_table(const std::string& path) {
  return parse_magma_job_table(read_file(path), path);
}

std::vector<PlatformCoreRow> parse_platform_csv(const std::string& text, const std::string& file) {
  std::vector<PlatformCoreRow> rows;
  std::map<std::string, size_t> cols;
  bool have_header = false;
  for_each_line(text, [&](int ln, std::string_view line) {
    auto f = split_fields(line);
    if (!have_header) {
      cols = header_columns(f, {"name", "pes", "dataflow"}, {"l1_bytes", "l2_bytes"}, file, ln);
      have_header = true;
      return;
    }
    check_count(f, cols.size(), file, ln, line);
    if (static_cast<int64_t>(rows.size()) >= kMaxCores)
      throw InputError({file, ln, 1}, "more than " + std::to_string(kMaxCores) + " cores");
    PlatformCoreRow r;
    r.line = ln;
    r.name = std::string(f[cols["name"]].text);
    if (r.name.empty())
      throw InputError({file, ln, f[cols["name"]].column}, "expected a core name");
    r.pes = parse_int(f[cols["pes"]], file, ln, "a PE count", 1, 1 << 24);
    r.dataflow = std::string(f[cols["dataflow"]].text);
    for (const char* key : {"name", "dataflow"}) {
      const Field& fd = f[cols[key]];
      if (shown(fd.text) != fd.text || fd.text.empty())
        throw InputError({file, ln, fd.column},
                         std::string("expected a ") + key +
                             " of printable characters (at most 40), found '" + shown(fd.text) +
                             "'");
    }
    r.dataflow_column = f[cols["dataflow"]].column;
    if (cols.count("l1_bytes"))
      r.l1_bytes = parse_int(f[cols["l1_bytes"]], file, ln, "L1 bytes per PE", 1, kMaxSize);
    if (cols.count("l2_bytes"))
      r.l2_bytes = parse_int(f[cols["l2_bytes"]], file, ln, "L2 bytes", 1, kMaxSize);
    rows.push_back(r);
  });
  if (rows.empty()) throw InputError({file, 0, 0}, "expected a header line and at least one core");
  return rows;
}

std::vector<PlatformCoreRow> read_platform_csv(const std::string& path) {
  return parse_platform_csv(read_file(path), path);
}

}  // namespace sparsemap::io
