#include "gcpstream/bigquery/json_line_writer.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "gcpstream/bigquery/json_row_encoder.h"
#include "gcpstream/bigquery/row_descriptor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

TableSchema Columns() {
  return TableSchema{{
      {.name = "i", .type = FieldType::kInt64},
      {.name = "f", .type = FieldType::kFloat64},
      {.name = "n", .type = FieldType::kNumeric},
      {.name = "b", .type = FieldType::kBool},
      {.name = "s", .type = FieldType::kString},
      {.name = "by", .type = FieldType::kBytes},
      {.name = "d", .type = FieldType::kDate},
      {.name = "dt", .type = FieldType::kDateTime},
      {.name = "t", .type = FieldType::kTime},
      {.name = "ts", .type = FieldType::kTimestamp},
      {.name = "j", .type = FieldType::kJson},
      {.name = "r",
       .type = FieldType::kRecord,
       .fields = {{.name = "x", .type = FieldType::kInt64},
                  {.name = "tags",
                   .type = FieldType::kString,
                   .mode = FieldMode::kRepeated}}},
      {.name = "odd name-1", .type = FieldType::kString},
  }};
}

class JsonLineWriterTest : public ::testing::Test {
 protected:
  JsonLineWriterTest()
      : encoder_(Columns(), {}),
        format_(std::make_shared<RowFormat>(encoder_.descriptor())) {}

  // The record through AppendRows' encoding, then as a load job's line.
  std::string Line(const Json& record) {
    std::string row;
    EXPECT_TRUE(encoder_.Encode(record, row).ok()) << record;
    absl::StatusOr<JsonLineWriter> writer =
        JsonLineWriter::Create(format_, Columns(), false);
    EXPECT_TRUE(writer.ok()) << writer.status();
    std::string line;
    absl::Status status = writer->AppendLine(row, line);
    EXPECT_TRUE(status.ok()) << status;
    return line;
  }

  JsonRowEncoder encoder_;
  std::shared_ptr<const RowFormat> format_;
};

TEST_F(JsonLineWriterTest, EveryTypeInTheFormItsColumnLoads) {
  const std::string line = Line({{"i", -9007199254740993},
                                 {"f", 0.1},
                                 {"n", "123.450"},
                                 {"b", true},
                                 {"s", "a \"quoted\"\n\ttab \u00e9"},
                                 {"by", "aGk="},
                                 {"d", "2024-02-29"},
                                 {"dt", "2024-02-29T23:59:58.5"},
                                 {"t", "07:08"},
                                 {"ts", "2024-02-29T23:59:58.123456+01:00"},
                                 {"j", {{"a", {1, 2}}, {"b", nullptr}}},
                                 {"r", {{"x", 7}, {"tags", {"p", "q"}}}},
                                 {"odd name-1", "odd"}});
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line per row";
  const Json json = Json::parse(line);
  // Integers keep every digit (no double on the way).
  EXPECT_THAT(line, HasSubstr("\"i\":-9007199254740993"));
  EXPECT_EQ(json["f"].get<double>(), 0.1);
  EXPECT_EQ(json["n"], "123.45");
  EXPECT_EQ(json["b"], true);
  EXPECT_EQ(json["s"], "a \"quoted\"\n\ttab \u00e9");
  EXPECT_EQ(json["by"], "aGk=");
  EXPECT_EQ(json["d"], "2024-02-29");
  EXPECT_EQ(json["dt"], "2024-02-29 23:59:58.500000");
  EXPECT_EQ(json["t"], "07:08:00");
  EXPECT_EQ(json["ts"], "2024-02-29 22:59:58.123456 UTC");
  // A JSON column's value is the JSON itself, not a string holding it.
  EXPECT_EQ(json["j"], Json({{"a", {1, 2}}, {"b", nullptr}}));
  EXPECT_EQ(json["r"], Json({{"x", 7}, {"tags", {"p", "q"}}}));
  EXPECT_EQ(json["odd name-1"], "odd");
}

TEST_F(JsonLineWriterTest, AbsentAndNullColumnsAreLeftOut) {
  const Json json = Json::parse(Line({{"i", 1}, {"s", nullptr}}));
  EXPECT_EQ(json, Json({{"i", 1}}));
}

TEST_F(JsonLineWriterTest, DatesAtTheEdgesOfTheRange) {
  EXPECT_EQ(Json::parse(Line({{"d", "0001-01-01"}}))["d"], "0001-01-01");
  EXPECT_EQ(Json::parse(Line({{"d", "9999-12-31"}}))["d"], "9999-12-31");
  EXPECT_EQ(Json::parse(Line({{"ts", "1969-12-31T23:59:59.999999Z"}}))["ts"],
            "1969-12-31 23:59:59.999999 UTC");
}

// A message built by hand: what the C++ API's protobuf records may hold.
class HandMadeRowTest : public ::testing::Test {
 protected:
  static absl::StatusOr<std::string> LineOf(const TableSchema& schema,
                                            const std::string& row) {
    auto format = std::make_shared<RowFormat>(RowDescriptorFor(schema));
    absl::StatusOr<JsonLineWriter> writer =
        JsonLineWriter::Create(format, schema, false);
    if (!writer.ok()) return writer.status();
    std::string line = "kept";
    absl::Status status = writer->AppendLine(row, line);
    if (!status.ok()) {
      EXPECT_EQ(line, "kept") << "a refused row leaves the output as it was";
      return status;
    }
    return line.substr(4);
  }
};

// Field 1 as a length-delimited value: what a string or bytes field holds.
std::string LengthDelimited(const std::string& value) {
  std::string row;
  row += static_cast<char>(0x0A);
  row += static_cast<char>(value.size());
  row += value;
  return row;
}

TEST_F(HandMadeRowTest, InvalidUtf8IsRefusedNamingTheColumn) {
  const TableSchema schema{{{.name = "s", .type = FieldType::kString}}};
  absl::StatusOr<std::string> line = LineOf(schema, LengthDelimited("a\xff"));
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(line.status().message(), HasSubstr("column 's' (STRING)"));
  EXPECT_THAT(line.status().message(), HasSubstr("UTF-8"));
  // A surrogate's encoding is not UTF-8 either.
  EXPECT_FALSE(LineOf(schema, LengthDelimited("\xed\xa0\x80")).ok());
  EXPECT_TRUE(LineOf(schema, LengthDelimited("\xf0\x9f\x98\x80")).ok());
}

TEST_F(HandMadeRowTest, JsonColumnTextThatIsNotJsonIsRefused) {
  const TableSchema schema{{{.name = "j", .type = FieldType::kJson}}};
  absl::StatusOr<std::string> line = LineOf(schema, LengthDelimited("{nope"));
  ASSERT_FALSE(line.ok());
  EXPECT_THAT(line.status().message(), HasSubstr("column 'j' (JSON)"));
  EXPECT_EQ(*LineOf(schema, LengthDelimited("{\n \"a\" : 1\n}")),
            "{\"j\":{\"a\":1}}\n");
}

TEST_F(HandMadeRowTest, NonFiniteFloatsAreTheNamesBigQueryReads) {
  const TableSchema schema{{{.name = "f", .type = FieldType::kFloat64}}};
  auto row = [](double value) {
    std::string out(1, static_cast<char>(0x09));  // Field 1, fixed64.
    out.append(reinterpret_cast<const char*>(&value), sizeof(value));
    return out;
  };
  EXPECT_EQ(*LineOf(schema, row(std::numeric_limits<double>::infinity())),
            "{\"f\":\"Infinity\"}\n");
  EXPECT_EQ(*LineOf(schema, row(-std::numeric_limits<double>::infinity())),
            "{\"f\":\"-Infinity\"}\n");
  EXPECT_EQ(*LineOf(schema, row(std::nan(""))), "{\"f\":\"NaN\"}\n");
  EXPECT_EQ(*LineOf(schema, row(1e300)), "{\"f\":1e+300}\n");
}

TEST_F(HandMadeRowTest, ADateOutsideBigQuerysYearsIsRefused) {
  const TableSchema schema{{{.name = "d", .type = FieldType::kDate}}};
  // Field 1 varint 3,000,000 days: past year 9999.
  std::string row(1, static_cast<char>(0x08));
  for (uint32_t value = 3'000'000; value != 0; value >>= 7) {
    row += static_cast<char>((value & 0x7F) | (value > 0x7F ? 0x80 : 0));
  }
  absl::StatusOr<std::string> line = LineOf(schema, row);
  ASSERT_FALSE(line.ok());
  EXPECT_THAT(line.status().message(), HasSubstr("outside years 1 to 9999"));
}

TEST(JsonLineWriterCreate, AFieldWithoutAColumnIsRefusedUnlessIgnored) {
  const TableSchema rows{{{.name = "a", .type = FieldType::kString},
                          {.name = "extra", .type = FieldType::kString}}};
  const TableSchema table{{{.name = "A", .type = FieldType::kString}}};
  auto format = std::make_shared<RowFormat>(RowDescriptorFor(rows));
  absl::StatusOr<JsonLineWriter> refused =
      JsonLineWriter::Create(format, table, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("field 'extra'"));
  EXPECT_THAT(refused.status().message(), HasSubstr("ignore-unknown-fields"));
  absl::StatusOr<JsonLineWriter> ignoring =
      JsonLineWriter::Create(format, table, true);
  ASSERT_TRUE(ignoring.ok()) << ignoring.status();
  std::string line;
  // Field 1 "x", field 2 "y": only the table's column is written, under
  // the table's spelling of its name.
  ASSERT_TRUE(ignoring->AppendLine("\x0a\x01x\x12\x01y", line).ok());
  EXPECT_EQ(line, "{\"A\":\"x\"}\n");
}

TEST(AppendJsonString, EscapesWhatJsonRequires) {
  std::string out;
  ASSERT_TRUE(AppendJsonString(std::string("q\"b\\c\x01\x1f/", 8), out));
  EXPECT_EQ(out, R"("q\"b\\c\u0001\u001f/")");
  EXPECT_FALSE(AppendJsonString("\xc0\xaf", out)) << "overlong form";
  EXPECT_EQ(out, R"("q\"b\\c\u0001\u001f/")") << "unchanged on refusal";
}

}  // namespace
}  // namespace gcpstream::bigquery
