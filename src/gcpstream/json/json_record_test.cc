#include "gcpstream/json/json_record.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gcpstream::json {
namespace {

using ::testing::HasSubstr;

JsonRecord ParseOrDie(absl::string_view text) {
  absl::StatusOr<JsonRecord> record = JsonRecord::Parse(text);
  EXPECT_TRUE(record.ok()) << record.status() << " for " << text;
  return record.ok() ? *std::move(record) : JsonRecord();
}

// The value at a dotted path, or nullopt.
std::optional<JsonValue> At(const JsonRecord& record,
                            const std::vector<std::string>& names) {
  uint32_t at = JsonRecord::kRoot;
  for (const std::string& name : names) {
    std::optional<uint32_t> child = record.Child(at, name);
    if (!child.has_value()) return std::nullopt;
    at = *child;
  }
  return record.ValueAt(at);
}

std::string StringAt(const JsonRecord& record,
                     const std::vector<std::string>& names) {
  std::optional<JsonValue> value = At(record, names);
  if (!value.has_value() || value->type() != JsonType::kString) return "<none>";
  std::string scratch;
  return std::string(value->string(scratch));
}

TEST(JsonRecordTest, FindsMembersAtAnyDepthThroughObjects) {
  const JsonRecord record = ParseOrDie(
      R"( {"a": 1, "customer": {"id": "c1", "address": {"region": "eu"}},
           "list": [{"hidden": true}], "z": null} )");
  EXPECT_EQ(record.root().type(), JsonType::kObject);
  EXPECT_EQ(StringAt(record, {"customer", "address", "region"}), "eu");
  EXPECT_EQ(StringAt(record, {"customer", "id"}), "c1");
  EXPECT_EQ(At(record, {"a"})->integer(), 1);
  EXPECT_EQ(At(record, {"z"})->type(), JsonType::kNull);
  // Members of a nested object are not members of the root.
  EXPECT_FALSE(At(record, {"id"}).has_value());
  EXPECT_FALSE(At(record, {"region"}).has_value());
  // Arrays are not looked into.
  EXPECT_FALSE(At(record, {"list", "hidden"}).has_value());
  EXPECT_FALSE(At(record, {"a", "b"}).has_value());
  EXPECT_EQ(At(record, {"customer"})->raw(),
            R"({"id": "c1", "address": {"region": "eu"}})");
  EXPECT_EQ(record.text().front(), '{');
  EXPECT_EQ(record.text().back(), '}');
}

TEST(JsonRecordTest, TheLastOfRepeatedKeysWins) {
  const JsonRecord record = ParseOrDie(R"({"k": 1, "o": {"k": 5}, "k": 2})");
  EXPECT_EQ(At(record, {"k"})->integer(), 2);
  EXPECT_EQ(At(record, {"o", "k"})->integer(), 5);
  // As nlohmann's tree does.
  EXPECT_EQ(record.Tree()["k"], 2);
}

TEST(JsonRecordTest, KeysWithEscapesAreFoundByTheirDecodedName) {
  const JsonRecord record = ParseOrDie(R"({"\u0072egion": "eu", "a\"b": 1})");
  EXPECT_EQ(StringAt(record, {"region"}), "eu");
  EXPECT_EQ(At(record, {"a\"b"})->integer(), 1);
}

TEST(JsonRecordTest, StringsAreReadInPlaceUnlessEscaped) {
  const JsonRecord record = ParseOrDie(
      R"({"plain": "héllo", "escaped": "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00",
          "quote_end": "\\"})");
  std::string scratch;
  const JsonValue plain = *At(record, {"plain"});
  const absl::string_view text = plain.string(scratch);
  EXPECT_EQ(text, "héllo");
  EXPECT_TRUE(scratch.empty());
  EXPECT_GE(text.data(), record.text().data());  // A view of the record.
  EXPECT_EQ(StringAt(record, {"escaped"}),
            "a\"b\\c/d\b\f\n\r\t\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(StringAt(record, {"quote_end"}), "\\");
}

TEST(JsonRecordTest, NumbersAreTypedByWhatHoldsThemExactly) {
  const JsonRecord record = ParseOrDie(
      R"({"i": -42, "zero": -0, "max": 9223372036854775807,
          "u": 18446744073709551615, "big": 123456789012345678901234567890,
          "f": 1.5, "e": 2e3})");
  EXPECT_EQ(At(record, {"i"})->type(), JsonType::kInteger);
  EXPECT_EQ(At(record, {"i"})->integer(), -42);
  EXPECT_EQ(At(record, {"zero"})->integer(), 0);
  EXPECT_EQ(At(record, {"max"})->type(), JsonType::kInteger);
  EXPECT_EQ(At(record, {"u"})->type(), JsonType::kUnsigned);
  EXPECT_EQ(At(record, {"u"})->unsigned_integer(), UINT64_MAX);
  EXPECT_EQ(At(record, {"big"})->type(), JsonType::kFloat);
  EXPECT_DOUBLE_EQ(At(record, {"big"})->number(), 1.2345678901234568e29);
  EXPECT_EQ(At(record, {"f"})->type(), JsonType::kFloat);
  EXPECT_DOUBLE_EQ(At(record, {"f"})->number(), 1.5);
  EXPECT_DOUBLE_EQ(At(record, {"e"})->number(), 2000);
}

TEST(JsonRecordTest, ArraysListTheirElements) {
  const JsonRecord record = ParseOrDie(
      R"({"a": [ 1, "two" , [3, {"x": "]"}], null, true ], "e": []})");
  const std::vector<JsonValue> elements = At(record, {"a"})->Elements();
  ASSERT_EQ(elements.size(), 5u);
  EXPECT_EQ(elements[0].integer(), 1);
  EXPECT_EQ(elements[1].raw(), "\"two\"");
  EXPECT_EQ(elements[2].raw(), R"([3, {"x": "]"}])");
  EXPECT_EQ(elements[2].Elements().size(), 2u);
  EXPECT_EQ(elements[3].type(), JsonType::kNull);
  EXPECT_TRUE(elements[4].boolean());
  EXPECT_TRUE(At(record, {"e"})->Elements().empty());
}

TEST(JsonRecordTest, CompactTextDropsOnlyInsignificantWhitespace) {
  const JsonRecord record =
      ParseOrDie("\t{ \"b\" : [ 1 , 2 ],\n \"a\": \"x y \\\" z\" }\r\n");
  EXPECT_EQ(record.CompactText(), R"({"b":[1,2],"a":"x y \" z"})");
  EXPECT_EQ(ParseOrDie(" 17 ").CompactText(), "17");
}

TEST(JsonRecordTest, AnyJsonValueIsARecord) {
  EXPECT_EQ(ParseOrDie("[1]").root().type(), JsonType::kArray);
  EXPECT_EQ(ParseOrDie("\"s\"").root().type(), JsonType::kString);
  EXPECT_FALSE(ParseOrDie("[1]").Child(JsonRecord::kRoot, "a").has_value());
  EXPECT_EQ(JsonRecord().text(), "null");
}

TEST(JsonRecordTest, RefusesWhatIsNotOneJsonValue) {
  for (const std::string& bad :
       {std::string(""), std::string("  "), std::string("{"),
        std::string("{\"a\":1} x"), std::string("{\"a\":1}{}"),
        std::string("{'a':1}"), std::string("{\"a\":01}"), std::string("[1,]"),
        std::string("\"\xFF\""), std::string("\"a\x01\""),
        std::string(R"("x\ud800y")"), std::string("NaN"),
        std::string("55555\0\0x", 8),
        std::string("1234567890123456789012345\0x", 27), std::string("1e400"),
        std::string(2000, '[') + std::string(2000, ']'),
        std::string(2000, '[') + "123456789012345678901234567890" +
            std::string(2000, ']')}) {
    absl::StatusOr<JsonRecord> record = JsonRecord::Parse(bad);
    EXPECT_FALSE(record.ok()) << bad.substr(0, 40);
    if (!record.ok()) {
      EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(record.status().message()),
                  HasSubstr("not one JSON value"));
    }
  }
}

TEST(JsonRecordTest, TreeMatchesTheText) {
  const std::string text =
      R"({"a": [1, 2.5, "x"], "b": {"c": null, "d": false}, "e": "\u00e9"})";
  const JsonRecord record = ParseOrDie(text);
  EXPECT_EQ(record.Tree(), nlohmann::json::parse(text));
  EXPECT_EQ(JsonRecord::FromTree(nlohmann::json::parse(text)).Tree(),
            nlohmann::json::parse(text));
}

TEST(JsonRecordTest, PaddedBytesMayShareOneBlock) {
  const PaddedBytes block = PaddedBytes::Copy("{\"a\":1}\n{\"a\":2}\n");
  const JsonRecord second =
      *JsonRecord::Parse(PaddedBytes(nullptr, block.data() + 8, 7));
  EXPECT_EQ(At(second, {"a"})->integer(), 2);
}

}  // namespace
}  // namespace gcpstream::json
