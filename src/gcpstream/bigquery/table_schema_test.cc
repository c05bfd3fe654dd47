#include "gcpstream/bigquery/table_schema.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::bigquery {
namespace {

using ::testing::HasSubstr;

TEST(TableSchemaTest, ReadsBothSpellingsAndWritesGoogleSqlNames) {
  const auto json = nlohmann::json::parse(R"({"fields": [
    {"name": "id", "type": "INTEGER", "mode": "REQUIRED"},
    {"name": "price", "type": "float"},
    {"name": "ok", "type": "BOOLEAN"},
    {"name": "tags", "type": "STRING", "mode": "REPEATED"},
    {"name": "who", "type": "STRUCT", "fields": [
      {"name": "name", "type": "STRING"},
      {"name": "at", "type": "TIMESTAMP"}]}]})");
  absl::StatusOr<TableSchema> schema = TableSchemaFromJson(json);
  ASSERT_TRUE(schema.ok()) << schema.status();
  ASSERT_EQ(schema->fields.size(), 5u);
  EXPECT_EQ(schema->fields[0].type, FieldType::kInt64);
  EXPECT_EQ(schema->fields[0].mode, FieldMode::kRequired);
  EXPECT_EQ(schema->fields[1].type, FieldType::kFloat64);
  EXPECT_EQ(schema->fields[1].mode, FieldMode::kNullable);
  EXPECT_EQ(schema->fields[3].mode, FieldMode::kRepeated);
  ASSERT_EQ(schema->fields[4].fields.size(), 2u);
  EXPECT_EQ(schema->Find("WHO"), &schema->fields[4]);
  const nlohmann::json back = TableSchemaToJson(*schema);
  EXPECT_EQ(back["fields"][0]["type"], "INT64");
  EXPECT_EQ(back["fields"][4]["type"], "RECORD");
  EXPECT_EQ(back["fields"][4]["fields"][1]["type"], "TIMESTAMP");
  EXPECT_EQ(TableSchemaFromJson(back)->fields.size(), 5u);
}

TEST(TableSchemaTest, RefusesWhatNoTableCanHave) {
  EXPECT_THAT(TableSchemaFromJson(
                  nlohmann::json::parse(
                      R"({"fields": [{"name": "a", "type": "INTERVAL"}]})"))
                  .status()
                  .message(),
              HasSubstr("column 'a': unknown type 'INTERVAL'"));
  EXPECT_THAT(TableSchemaFromJson(
                  nlohmann::json::parse(
                      R"({"fields": [{"name": "r", "type": "RECORD"}]})"))
                  .status()
                  .message(),
              HasSubstr("'r' is a RECORD without fields"));
  EXPECT_THAT(TableSchemaFromJson(nlohmann::json::parse(R"({"fields": [
                    {"name": "a", "type": "STRING"},
                    {"name": "A", "type": "STRING"}]})"))
                  .status()
                  .message(),
              HasSubstr("column 'A' appears twice"));
  EXPECT_FALSE(TableSchemaFromJson(
                   nlohmann::json::parse(R"({"fields": [{"type": "STRING"}]})"))
                   .ok());
  EXPECT_FALSE(TableSchemaFromJson(nlohmann::json::parse("[]")).ok());
}

TEST(TableSchemaTest, AllowsOnlyAdditionsAndRelaxations) {
  const TableSchema current{
      {{.name = "id", .type = FieldType::kInt64, .mode = FieldMode::kRequired},
       {.name = "r", .type = FieldType::kRecord, .fields = {{.name = "x"}}}}};
  TableSchema next = current;
  next.fields[0].mode = FieldMode::kNullable;
  next.fields[1].fields.push_back({.name = "y"});
  next.fields.push_back({.name = "z", .mode = FieldMode::kRepeated});
  EXPECT_TRUE(CheckCompatibleChange(current, next).ok());

  TableSchema retyped = current;
  retyped.fields[0].type = FieldType::kString;
  EXPECT_THAT(CheckCompatibleChange(current, retyped).message(),
              HasSubstr("'id' would change type from INT64 to STRING"));
  TableSchema required = current;
  required.fields.push_back({.name = "n", .mode = FieldMode::kRequired});
  EXPECT_THAT(CheckCompatibleChange(current, required).message(),
              HasSubstr("new column 'n' is REQUIRED"));
  TableSchema dropped = current;
  dropped.fields[1].fields.clear();
  EXPECT_THAT(CheckCompatibleChange(current, dropped).message(),
              HasSubstr("'r.x' would be dropped"));
}

}  // namespace
}  // namespace gcpstream::bigquery
