// ConfuciuX's model CSVs: GAMMA's grammar restricted to CONV (T = 1) and DSCONV (T = 2).
#include "sparsemap/io/confuciux_csv.h"

#include <filesystem>
#include <sstream>

#include "sparsemap/error.h"
#include "sparsemap/io/gamma_csv.h"
#include "sparsemap/io/util.h"

namespace sparsemap::io {

workload::Model parse_confuciux_csv(const std::string& text, const std::string& file) {
  workload::Model m = parse_gamma_csv(text, file);  // syntax, sizes, header: file:line:column
  // Which column holds T (the header names the columns) and the data lines, to point at a
  // type ConfuciuX does not use.
  std::istringstream in(text);
  std::string line;
  int line_no = 0, t_index = 6;
  size_t layer = 0;
  bool header = true;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::vector<std::pair<std::string, int>> cells;  // text, 1-based column
    size_t start = 0;
    while (true) {
      const size_t comma = line.find(',', start);
      std::string cell =
          line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const size_t lead = cell.find_first_not_of(" \t");
      const size_t end = cell.find_last_not_of(" \t");
      cells.emplace_back(lead == std::string::npos ? "" : cell.substr(lead, end - lead + 1),
                         int(start + (lead == std::string::npos ? 0 : lead)) + 1);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (header) {
      header = false;
      bool named = false;
      for (size_t i = 0; i < cells.size(); ++i)
        if (cells[i].first == "T" || cells[i].first == "t") {
          t_index = int(i);
          named = true;
        }
      if (named) continue;  // a header line (parse_gamma_csv accepted it)
    }
    if (layer >= m.layers.size()) break;
    const workload::OpKind k = m.layers[layer].kind;
    if (k != workload::OpKind::Conv && k != workload::OpKind::DsConv) {
      const int col = t_index < int(cells.size()) ? cells[size_t(t_index)].second : 1;
      throw InputError({file, line_no, col},
                       "expected T = 1 (CONV) or 2 (DSCONV): ConfuciuX's models use no other "
                       "layer type");
    }
    ++layer;
  }
  m.name = std::filesystem::path(file).stem().string();
  for (size_t i = 0; i < m.layers.size(); ++i) m.layers[i].name = "L" + std::to_string(i);
  return m;
}

workload::Model read_confuciux_csv(const std::string& path) {
  return parse_confuciux_csv(read_file(path), path);
}

}  // namespace sparsemap::io
