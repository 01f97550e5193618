// The King James Bible as character-level text, from Debian's `bible-kjv` package (`bible -f
// "Genesis 1:1-Revelation 22:21"` prints one verse a line, "Ge1:1 In the beginning ...").
// Verse references are stripped, one verse per line; whole books at the end are held out for
// validation. Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sparsemap::ml::data {

// The verse range that `bible -f RANGE` prints as the whole text (about 4.4 MB, 66 books,
// 31,102 verses).
inline constexpr const char* kKjvRange = "Genesis 1:1-Revelation 22:21";

struct KjvBook {
  std::string name;  // the abbreviation of its references ("Ge", "1Sm", "Rev")
  std::string text;  // its verses without references, each ending in '\n'
  int64_t verses = 0;
};

struct KjvText {
  std::string train;  // the books before the held-out ones, concatenated
  std::string valid;  // the held-out books
  std::vector<std::string> train_books, valid_books;
};

// Parses `bible -f` output: every non-empty line must start with a reference BOOKC:V (BOOK an
// optional digit and letters, C and V numbers) and a space, which are dropped; a new book starts
// where the abbreviation changes. Throws InputError (file "<bible>", line) on another line.
std::vector<KjvBook> parse_kjv(const std::string& raw);

// Holds out the last books, whole, until they hold at least `valid_fraction` of the characters
// (at least one book is kept for training). Throws InputError for fewer than two books or a
// fraction outside (0, 1).
KjvText split_kjv(const std::vector<KjvBook>& books, double valid_fraction = 0.05);

// Runs kJvCommand through the shell (`program` replaces "bible", for tests) and returns its
// output. Throws InputError naming the Debian package bible-kjv when the program is missing or
// prints nothing.
std::string read_kjv_raw(const std::string& program = "bible");

// parse_kjv(read_kjv_raw()) split with 5% held out.
KjvText load_kjv(double valid_fraction = 0.05);

}  // namespace sparsemap::ml::data
