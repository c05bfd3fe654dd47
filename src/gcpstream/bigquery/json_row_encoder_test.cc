#include "gcpstream/bigquery/json_row_encoder.h"

#include <string>

#include "gcpstream/bigquery/row_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

TableSchema EveryType() {
  return TableSchema{{
      {.name = "i", .type = FieldType::kInt64, .mode = FieldMode::kRequired},
      {.name = "f", .type = FieldType::kFloat64},
      {.name = "n", .type = FieldType::kNumeric},
      {.name = "bn", .type = FieldType::kBigNumeric},
      {.name = "b", .type = FieldType::kBool},
      {.name = "s", .type = FieldType::kString},
      {.name = "by", .type = FieldType::kBytes},
      {.name = "d", .type = FieldType::kDate},
      {.name = "dt", .type = FieldType::kDateTime},
      {.name = "t", .type = FieldType::kTime},
      {.name = "ts", .type = FieldType::kTimestamp},
      {.name = "j", .type = FieldType::kJson},
      {.name = "g", .type = FieldType::kGeography},
      {.name = "r",
       .type = FieldType::kRecord,
       .fields = {{.name = "x", .type = FieldType::kInt64},
                  {.name = "tags",
                   .type = FieldType::kString,
                   .mode = FieldMode::kRepeated}}},
      {.name = "rr",
       .type = FieldType::kRecord,
       .mode = FieldMode::kRepeated,
       .fields = {{.name = "k", .type = FieldType::kString}}},
      {.name = "odd name-1", .type = FieldType::kString},
  }};
}

class JsonRowEncoderTest : public ::testing::Test {
 protected:
  JsonRowEncoderTest()
      : encoder_(EveryType(), {}), reader_(encoder_.descriptor()) {}

  std::string Encoded(const Json& record) {
    std::string row;
    absl::Status status = encoder_.Encode(record, row);
    EXPECT_TRUE(status.ok()) << status;
    return reader_.Text(row);
  }
  std::string Refusal(const Json& record) {
    std::string row;
    absl::Status status = encoder_.Encode(record, row);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << record;
    return std::string(status.message());
  }

  JsonRowEncoder encoder_;
  testing::RowReader reader_;
};

TEST_F(JsonRowEncoderTest, EveryTypeReadsBackThroughItsDescriptor) {
  ASSERT_TRUE(reader_.ok());
  const std::string text = Encoded(Json::parse(R"json({
    "i": 42, "f": 1.25, "n": "123.456", "bn": 1.5, "b": "true",
    "s": "héllo", "by": "AAH/aGk=", "d": "2024-01-01",
    "dt": "2024-01-02T03:04:05.123456", "t": "03:04:05",
    "ts": "2024-01-02 03:04:05.123456 UTC", "j": {"a": [1, null]},
    "g": "POINT(1 2)", "r": {"x": "7", "tags": ["a", "b"]},
    "rr": [{"k": "p"}, {"k": "q"}], "odd name-1": 5})json"));
  EXPECT_THAT(text,
              HasSubstr("i: 42 f: 1.25 n: \"123.456\" bn: \"1.5\" b: true"));
  EXPECT_THAT(text, HasSubstr("by: \"\\000\\001\\377hi\" d: 19723"));
  EXPECT_THAT(text,
              HasSubstr("dt: \"2024-01-02 03:04:05.123456\" t: \"03:04:05\""));
  EXPECT_THAT(text,
              HasSubstr("ts: 1704164645123456 j: \"{\\\"a\\\":[1,null]}\""));
  EXPECT_THAT(text, HasSubstr("r { x: 7 tags: \"a\" tags: \"b\" }"));
  EXPECT_THAT(text, HasSubstr("rr { k: \"p\" } rr { k: \"q\" }"));
  EXPECT_THAT(text, HasSubstr("column_16: \"5\""));
}

TEST_F(JsonRowEncoderTest, NamesMatchCaseInsensitivelyAndNullsStayNull) {
  EXPECT_EQ(Encoded(Json::parse(R"({"I": -3, "S": null, "rr": null})")),
            "i: -3 ");
  EXPECT_EQ(Encoded(Json::parse(R"({"i": 0, "d": "1969-12-31"})")),
            "i: 0 d: -1 ");
}

TEST_F(JsonRowEncoderTest, AValueThatDoesNotFitNamesColumnAndType) {
  EXPECT_THAT(Refusal(Json::parse(R"({"s": "x"})")),
              HasSubstr("column 'i' (INT64): the column is REQUIRED"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": "abc"})")),
              HasSubstr("column 'i' (INT64): \"abc\" is not an integer"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": 18446744073709551615})")),
              HasSubstr("out of INT64's range"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": 1, "n": "abc"})")),
              HasSubstr("column 'n' (NUMERIC): 'abc' is not a decimal"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": 1, "n": "0.0000000001"})")),
              HasSubstr("at most 29 integer and 9 fraction digits"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": 1, "d": "2024-13-01"})")),
              HasSubstr("column 'd' (DATE): '2024-13-01' is not a valid DATE"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": 1, "ts": "10000-01-01"})")),
              HasSubstr("column 'ts' (TIMESTAMP)"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": 1, "by": "not base64!"})")),
              HasSubstr("column 'by' (BYTES)"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": 1, "s": {"a": 1}})")),
              HasSubstr("column 's' (STRING): an object or array"));
  EXPECT_THAT(
      Refusal(Json::parse(R"({"i": 1, "r": {"tags": ["a", null]}})")),
      HasSubstr("column 'r.tags[1]' (STRING): an array element is null"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": 1, "rr": {"k": "p"}})")),
              HasSubstr("column 'rr' (RECORD): the column is REPEATED"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": 1, "extra": 2})")),
              HasSubstr("field 'extra' is not a column of the table"));
  EXPECT_THAT(Refusal(Json::parse(R"({"i": 1, "r": {"zz": 2}})")),
              HasSubstr("field 'r.zz' is not a column"));
  EXPECT_THAT(Refusal(Json::parse("[1, 2]")),
              HasSubstr("the record is not a JSON object"));
  Json invalid_utf8 = {{"i", 1}, {"j", std::string("\xff\xfe")}};
  EXPECT_THAT(Refusal(invalid_utf8),
              HasSubstr("column 'j' (JSON): the value holds invalid UTF-8"));
}

TEST(JsonRowEncoderOptionsTest, UnknownFieldsCanBeIgnored) {
  JsonRowEncoder encoder(TableSchema{{{.name = "a"}}},
                         {.ignore_unknown_fields = true});
  std::string row;
  ASSERT_TRUE(encoder.Encode(Json::parse(R"({"a": "x", "b": 1})"), row).ok());
  EXPECT_EQ(testing::RowReader(encoder.descriptor()).Text(row), "a: \"x\" ");
}

// CDC upserts: the change fields become the pseudo-columns after the
// table's columns; a delete needs only its key.
class JsonRowEncoderChangeTest : public ::testing::Test {
 protected:
  JsonRowEncoderChangeTest()
      : encoder_(TableSchema{{{.name = "id",
                               .type = FieldType::kInt64,
                               .mode = FieldMode::kRequired},
                              {.name = "v",
                               .type = FieldType::kString,
                               .mode = FieldMode::kRequired}}},
                 {.change_type_field = "op", .change_sequence_field = "lsn"}),
        reader_(encoder_.descriptor()) {}

  absl::StatusOr<std::string> Text(const Json& record) {
    std::string row;
    absl::Status status = encoder_.Encode(record, row);
    if (!status.ok()) return status;
    return reader_.Text(row);
  }

  JsonRowEncoder encoder_;
  testing::RowReader reader_;
};

TEST_F(JsonRowEncoderChangeTest, ChangeColumnsFollowTheColumns) {
  ASSERT_TRUE(reader_.ok());
  EXPECT_EQ(*Text({{"id", 1}, {"v", "x"}, {"op", "upsert"}, {"lsn", 255}}),
            "id: 1 v: \"x\" _CHANGE_TYPE: \"UPSERT\" "
            "_CHANGE_SEQUENCE_NUMBER: \"FF\" ");
  EXPECT_EQ(*Text({{"id", 2}, {"op", "DELETE"}, {"lsn", "1/ab"}}),
            "id: 2 _CHANGE_TYPE: \"DELETE\" _CHANGE_SEQUENCE_NUMBER: "
            "\"1/AB\" ");
}

TEST_F(JsonRowEncoderChangeTest, BadChangeFieldsAreTheRecordsFailure) {
  const auto refusal = [&](const Json& record) {
    absl::StatusOr<std::string> text = Text(record);
    EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument)
        << record;
    return std::string(text.status().message());
  };
  EXPECT_THAT(refusal({{"id", 1}, {"v", "x"}, {"lsn", 1}}),
              HasSubstr("field 'op' (option 'change-type-field') is missing"));
  EXPECT_THAT(refusal({{"id", 1}, {"v", "x"}, {"op", "MERGE"}, {"lsn", 1}}),
              HasSubstr("\"MERGE\" is no change type"));
  EXPECT_THAT(refusal({{"id", 1}, {"v", "x"}, {"op", "UPSERT"}}),
              HasSubstr("field 'lsn' (option 'change-sequence-field')"));
  for (const Json& lsn : {Json(-1), Json(1.5), Json("xyz"), Json("1/2/3/4/5"),
                          Json(""), Json("11112222333344445"), Json("1//2")}) {
    EXPECT_THAT(
        refusal({{"id", 1}, {"v", "x"}, {"op", "UPSERT"}, {"lsn", lsn}}),
        HasSubstr("is no change sequence number"))
        << lsn;
  }
  // An upsert is a whole row: REQUIRED columns stay required.
  EXPECT_THAT(refusal({{"id", 1}, {"op", "UPSERT"}, {"lsn", 1}}),
              HasSubstr("column 'v' (STRING): the column is REQUIRED"));
}

}  // namespace
}  // namespace gcpstream::bigquery
