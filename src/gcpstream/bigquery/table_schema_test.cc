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

TEST(TableSchemaTest, UpdatesAddAndRelaxOnlyWhatTheyAllow) {
  const TableSchema table{
      {{.name = "id", .type = FieldType::kInt64, .mode = FieldMode::kRequired},
       {.name = "note", .mode = FieldMode::kRequired},
       {.name = "r", .type = FieldType::kRecord, .fields = {{.name = "x"}}},
       {.name = "only_in_table"}}};
  TableSchema wanted{
      {{.name = "ID", .type = FieldType::kInt64, .mode = FieldMode::kRequired},
       {.name = "note"},
       {.name = "r",
        .type = FieldType::kRecord,
        .fields = {{.name = "x"}, {.name = "y"}}},
       {.name = "tags", .mode = FieldMode::kRepeated}}};

  absl::StatusOr<std::optional<TableSchema>> none =
      UpdatedSchema(table, wanted, {});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());

  absl::StatusOr<std::optional<TableSchema>> added =
      UpdatedSchema(table, wanted, {.add_fields = true});
  ASSERT_TRUE(added.ok() && added->has_value()) << added.status();
  const TableSchema& with_fields = **added;
  ASSERT_EQ(with_fields.fields.size(), 5u);
  EXPECT_EQ(with_fields.fields[1].mode, FieldMode::kRequired);  // Not relaxed.
  EXPECT_EQ(with_fields.fields[2].fields.size(), 2u);
  EXPECT_EQ(with_fields.fields[3].name, "only_in_table");  // Kept.
  EXPECT_EQ(with_fields.fields[4].name, "tags");
  EXPECT_TRUE(CheckCompatibleChange(table, with_fields).ok());

  absl::StatusOr<std::optional<TableSchema>> relaxed =
      UpdatedSchema(table, wanted, {.relax_fields = true});
  ASSERT_TRUE(relaxed.ok() && relaxed->has_value());
  EXPECT_EQ((*relaxed)->fields.size(), 4u);  // Nothing added.
  EXPECT_EQ((*relaxed)->fields[1].mode, FieldMode::kNullable);
  EXPECT_EQ((*relaxed)->fields[0].mode, FieldMode::kRequired);

  wanted.fields.push_back({.name = "must", .mode = FieldMode::kRequired});
  absl::StatusOr<std::optional<TableSchema>> refused =
      UpdatedSchema(table, wanted, {.add_fields = true});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("column 'must' is missing from the table and is "
                        "REQUIRED"));
}

}  // namespace
}  // namespace gcpstream::bigquery
