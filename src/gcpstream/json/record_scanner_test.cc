// The one-pass scanner against simdjson (ExplainInvalid), which it replaced
// on the hot path: both must accept exactly the same texts. The fuzzer
// (scripts/fuzz.sh) compares them on arbitrary bytes; these are the edges
// a fuzzer reaches slowly.

#include "gcpstream/json/record_scanner.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/json/padded_bytes.h"
#include "gcpstream/json/simdjson_validate.h"
#include "gtest/gtest.h"

namespace gcpstream::json {
namespace {

bool Scans(absl::string_view text) {
  const PaddedBytes padded = PaddedBytes::Copy(text);
  MemberIndex members;
  std::string escaped_keys;
  return ScanRecord(padded.view(), members, escaped_keys);
}

// Fails the test when the scanner and simdjson disagree on `text`; returns
// whether it is accepted.
bool Agree(absl::string_view text) {
  const bool scanned = Scans(text);
  const absl::Status reference = ExplainInvalid(PaddedBytes::Copy(text).view());
  EXPECT_EQ(scanned, reference.ok())
      << "'" << text.substr(0, 80) << "' (" << text.size()
      << " bytes): simdjson says " << reference;
  return scanned;
}

TEST(RecordScannerTest, AcceptsWhatSimdjsonAccepts) {
  const std::vector<std::string> texts = {"0",
                                          "-0",
                                          "1",
                                          "-1",
                                          "1.5",
                                          "1e5",
                                          "1E+5",
                                          "1e-5",
                                          "0.0",
                                          "-0.0e0",
                                          "1e-400",
                                          "1e400",
                                          "-1e400",
                                          "1.7976931348623157e308",
                                          "1.7976931348623159e308",
                                          "0.000001e-330",
                                          "123456789e-9999999999",
                                          "123e306",
                                          "200e306",
                                          "0.000001e309",
                                          "1" + std::string(400, '0') + "e-95",
                                          "1" + std::string(400, '0') + "e-5",
                                          "1" + std::string(400, '0') + ".5",
                                          "18446744073709551615",
                                          "18446744073709551616",
                                          "-9223372036854775809",
                                          std::string(308, '9'),
                                          std::string(309, '9'),
                                          "1.",
                                          ".5",
                                          "01",
                                          "-",
                                          "+1",
                                          "1e",
                                          "1e+",
                                          "--1",
                                          "0x10",
                                          "1.5.5",
                                          "Infinity",
                                          "NaN",
                                          "true",
                                          "false",
                                          "null",
                                          "tru",
                                          "nul",
                                          "truex",
                                          "True",
                                          "\"\"",
                                          "\"a\"",
                                          R"("\"\\\/\b\f\n\r\t")",
                                          R"("\u0000")",
                                          R"("\u00e9\uD834\uDD1E")",
                                          R"("\ud800")",
                                          R"("\udc00")",
                                          R"("\ud800\u0041")",
                                          R"("\ud800x")",
                                          R"("\uDBFF\uDFFF")",
                                          R"("\u12g4")",
                                          R"("\u123")",
                                          R"("\x")",
                                          R"("\")",
                                          "\"abc",
                                          "\"tab\there\"",
                                          "\"nl\nhere\"",
                                          "\"del\x7f\"",
                                          "\"\xc3\xa9\"",
                                          "\"\xc3\"",
                                          "\"\xed\xa0\x80\"",
                                          "\"\xc0\x80\"",
                                          "\"\xf4\x90\x80\x80\"",
                                          "\"\xf0\x9f\x98\x80\"",
                                          "\xc3\xa9",
                                          "[]",
                                          "{}",
                                          "[1,2]",
                                          "[1,]",
                                          "[,1]",
                                          "[1 2]",
                                          "{\"a\":1}",
                                          "{\"a\":1,}",
                                          "{\"a\" 1}",
                                          "{\"a\":}",
                                          "{a:1}",
                                          R"({"a":1 "b":2})",
                                          R"({"a":[{"b":{}}]})",
                                          "[[],[[]],{}]",
                                          "1 2",
                                          "[] []",
                                          "{}}",
                                          "[",
                                          "]",
                                          "{",
                                          "}",
                                          ":",
                                          ",",
                                          "\"a\":1",
                                          std::string("\"a\0b\"", 5),
                                          std::string("[1,\0]", 5),
                                          " [ 1 , { \"a\" : [ ] } ] ",
                                          "\t\r\n1\t\r\n"};
  for (const std::string& text : texts) Agree(text);
}

// The boundary of nesting, counted as simdjson counts it (empty objects and
// arrays are no level).
TEST(RecordScannerTest, NestingLimitIsSimdjsons) {
  for (int levels = 1020; levels <= 1026; ++levels) {
    Agree(std::string(levels, '[') + std::string(levels, ']'));
    Agree(std::string(levels, '[') + "1" + std::string(levels, ']'));
    std::string objects;
    for (int i = 0; i < levels; ++i) objects += "{\"a\":";
    Agree(objects + "1" + std::string(levels, '}'));
    Agree(objects + "{}" + std::string(levels, '}'));
    Agree(objects + "[]" + std::string(levels, '}'));
  }
  EXPECT_TRUE(Scans(std::string(1024, '[') + std::string(1024, ']')));
  EXPECT_FALSE(Scans(std::string(1025, '[') + std::string(1025, ']')));
}

// Strings are read 16 bytes at a time: every stop (the closing quote, an
// escape, a control character, a multi-byte character) at every offset of
// a chunk, and texts that end inside a string near a chunk's edge.
TEST(RecordScannerTest, StringStopsAtEveryOffset) {
  for (size_t before = 0; before < 40; ++before) {
    const std::string lead(before, 'x');
    for (const std::string& stop :
         {std::string(""), std::string("\\n"), std::string("\\u00e9"),
          std::string("\x01"), std::string("\xc3\xa9"), std::string("\xc3")}) {
      for (size_t after = 0; after < 20; ++after) {
        const std::string text =
            absl::StrCat("\"", lead, stop, std::string(after, 'y'), "\"");
        Agree(text);
        Agree(text.substr(0, text.size() - 1));  // Unterminated.
        Agree(absl::StrCat("{\"k", lead, "\":", text, "}"));
      }
    }
  }
}

// The bytes after a record (its padding: in a read block, the next lines)
// are never taken for part of it.
TEST(RecordScannerTest, PaddingIsNeverRead) {
  for (size_t size = 1; size < 40; ++size) {
    const std::string record = "\"" + std::string(size, 'a');  // Unclosed.
    std::string block = record + "\"\xff{\"x\":1}" + std::string(80, '"');
    auto owner = std::make_shared<char[]>(block.size() + PaddedBytes::kPadding);
    std::memcpy(owner.get(), block.data(), block.size());
    const PaddedBytes cut(owner, owner.get(), record.size());
    MemberIndex members;
    std::string escaped_keys;
    EXPECT_FALSE(ScanRecord(cut.view(), members, escaped_keys)) << size;
    const PaddedBytes closed(owner, owner.get(), record.size() + 1);
    EXPECT_TRUE(ScanRecord(closed.view(), members, escaped_keys)) << size;
  }
}

TEST(RecordScannerTest, IndexesMembersThroughObjectsOnly) {
  const PaddedBytes text = PaddedBytes::Copy(
      R"({"a":1,"b":{"c":"x","d\u0041":[{"e":2}]},"f":[{"g":3}]})");
  MemberIndex members;
  std::string escaped_keys;
  ASSERT_TRUE(ScanRecord(text.view(), members, escaped_keys));
  // a, b, c, dA, f: nothing inside arrays.
  ASSERT_EQ(members.size(), 5U);
  EXPECT_EQ(text.view().substr(members[1].value_offset, members[1].value_size),
            R"({"c":"x","d\u0041":[{"e":2}]})");
  EXPECT_EQ(members[1].next, 4U);
  EXPECT_TRUE(members[3].key_escaped);
  EXPECT_EQ(escaped_keys.substr(members[3].key_offset, members[3].key_size),
            "dA");
  EXPECT_EQ(members[4].next, 5U);
}

}  // namespace
}  // namespace gcpstream::json
