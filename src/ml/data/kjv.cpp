// The King James text: runs `bible`, strips verse references, splits books.
#include "sparsemap/ml/data/kjv.h"

#include <cctype>
#include <cstdio>

#include "sparsemap/error.h"
#include "sparsemap/plot/subprocess.h"

namespace sparsemap::ml::data {

namespace {

const char* kMissing =
    "the King James text needs the `bible` program: install the Debian package bible-kjv "
    "(apt-get install bible-kjv)";

// Length of the reference "BOOKC:V " at the start of `line`, and the book's abbreviation; 0 when
// the line does not start with one.
size_t reference(const std::string& line, std::string& book) {
  size_t i = 0;
  if (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  const size_t letters = i;
  while (i < line.size() && std::isalpha(static_cast<unsigned char>(line[i]))) ++i;
  if (i == letters) return 0;
  book = line.substr(0, i);
  const size_t chapter = i;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == chapter || i >= line.size() || line[i] != ':') return 0;
  const size_t verse = ++i;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == verse) return 0;
  if (i < line.size() && line[i] == ' ') ++i;
  return i;
}

}  // namespace

std::vector<KjvBook> parse_kjv(const std::string& raw) {
  std::vector<KjvBook> books;
  size_t start = 0;
  int line_no = 0;
  while (start < raw.size()) {
    size_t end = raw.find('\n', start);
    if (end == std::string::npos) end = raw.size();
    std::string line = raw.substr(start, end - start);
    start = end + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    std::string book;
    const size_t skip = reference(line, book);
    if (skip == 0)
      throw InputError({"<bible>", line_no, 1},
                       "expected a verse reference such as Ge1:1 at the start of the line");
    if (books.empty() || books.back().name != book) books.push_back({book, "", 0});
    books.back().text.append(line, skip, std::string::npos);
    books.back().text += '\n';
    ++books.back().verses;
  }
  return books;
}

KjvText split_kjv(const std::vector<KjvBook>& books, double valid_fraction) {
  if (books.size() < 2) throw InputError({"<bible>", 0, 0}, "expected at least two books");
  if (!(valid_fraction > 0 && valid_fraction < 1))
    throw InputError({"<bible>", 0, 0}, "the held-out fraction must be in (0, 1)");
  size_t total = 0;
  for (const KjvBook& b : books) total += b.text.size();
  size_t held = 0, first_valid = books.size();
  while (first_valid > 1 && static_cast<double>(held) < valid_fraction * static_cast<double>(total))
    held += books[--first_valid].text.size();
  KjvText t;
  for (size_t i = 0; i < books.size(); ++i) {
    if (i < first_valid) {
      t.train += books[i].text;
      t.train_books.push_back(books[i].name);
    } else {
      t.valid += books[i].text;
      t.valid_books.push_back(books[i].name);
    }
  }
  return t;
}

std::string read_kjv_raw(const std::string& program) {
  const plot::ProcessResult r =
      plot::run_program({program, "-f", kKjvRange}, "", /*capture_stdout=*/true);
  if (r.exit_status != 0 || r.out.empty()) throw InputError({"<bible>", 0, 0}, kMissing);
  return r.out;
}

KjvText load_kjv(double valid_fraction) {
  return split_kjv(parse_kjv(read_kjv_raw()), valid_fraction);
}

}  // namespace sparsemap::ml::data
