#include "gcpstream/spanner/schema_catalog.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::spanner {
namespace {

// Encodes on an arena that lives as long as the test binary, as a writer's
// batch arena lives as long as the batch.
absl::StatusOr<EncodedMutation> Encode(const SchemaCatalog& catalog,
                                       const Mutation& mutation) {
  static google::protobuf::Arena arena;
  return catalog.Encode(mutation, arena);
}

using ::google::spanner::v1::ResultSet;
using ::testing::HasSubstr;

void AddCatalogRow(ResultSet& result,
                   const std::vector<std::optional<std::string>>& cells) {
  auto& row = *result.add_rows();
  for (const auto& cell : cells) {
    if (cell.has_value()) {
      row.add_values()->set_string_value(*cell);
    } else {
      row.add_values()->set_null_value({});
    }
  }
}

// The shape the emulator returned for a table with a CHECK, a foreign key
// (and its backing index), a UNIQUE index and an index STORING a column.
SchemaCatalog OrdersCatalog() {
  ResultSet columns;
  AddCatalogRow(columns, {"", "Orders", "OrderId", "INT64", "NO"});
  AddCatalogRow(columns, {"", "Orders", "CustomerId", "INT64", "YES"});
  AddCatalogRow(columns, {"", "Orders", "Code", "STRING(10)", "YES"});
  AddCatalogRow(columns, {"", "Orders", "Email", "STRING(MAX)", "YES"});
  AddCatalogRow(columns, {"", "Orders", "Amount", "FLOAT64", "NO"});
  AddCatalogRow(columns, {"", "Orders", "Tags", "ARRAY<STRING(MAX)>", "YES"});
  AddCatalogRow(columns, {"", "Orders", "Day", "DATE", "YES"});
  AddCatalogRow(columns, {"", "Orders", "At", "TIMESTAMP", "YES"});
  AddCatalogRow(columns, {"sales", "Items", "ItemId", "STRING(36)", "NO"});
  AddCatalogRow(columns, {"sales", "Items", "Seq", "INT64", "NO"});
  ResultSet indexes;
  AddCatalogRow(indexes,
                {"", "Orders", "PRIMARY_KEY", "PRIMARY_KEY", "OrderId", "1"});
  AddCatalogRow(indexes, {"", "Orders", "OrdersByCode", "INDEX", "Code", "1"});
  AddCatalogRow(
      indexes, {"", "Orders", "OrdersByCode", "INDEX", "Amount", std::nullopt});
  AddCatalogRow(indexes, {"", "Orders", "IDX_Orders_CustomerId", "INDEX",
                          "CustomerId", "1"});
  AddCatalogRow(indexes,
                {"", "Orders", "OrdersByEmail", "INDEX", "Email", "1"});
  AddCatalogRow(indexes,
                {"sales", "Items", "PRIMARY_KEY", "PRIMARY_KEY", "Seq", "2"});
  AddCatalogRow(
      indexes, {"sales", "Items", "PRIMARY_KEY", "PRIMARY_KEY", "ItemId", "1"});
  auto catalog =
      SchemaCatalog::FromResults(Dialect::kGoogleSql, columns, indexes);
  EXPECT_TRUE(catalog.ok()) << catalog.status();
  return *std::move(catalog);
}

// Singers > Albums > Songs interleaved; Reviews references Singers; Venues
// references Labels; Notes stands alone.
TEST(SchemaCatalogTest, RelationsMakeHierarchiesAndFamilies) {
  ResultSet columns;
  ResultSet indexes;
  const std::vector<std::pair<std::string, int>> tables = {
      {"Singers", 1}, {"Albums", 2}, {"Songs", 3}, {"Reviews", 1},
      {"Labels", 1},  {"Venues", 1}, {"Notes", 1}};
  for (const auto& [table, parts] : tables) {
    for (int i = 1; i <= parts; ++i) {
      const std::string column = absl::StrCat("K", i);
      AddCatalogRow(columns, {"", table, column, "INT64", "NO"});
      AddCatalogRow(indexes, {"", table, "PRIMARY_KEY", "PRIMARY_KEY", column,
                              absl::StrCat(i)});
    }
  }
  ResultSet relations;
  AddCatalogRow(relations, {"", "Songs", "INTERLEAVE", "", "Albums"});
  AddCatalogRow(relations, {"", "Albums", "INTERLEAVE", "", "Singers"});
  AddCatalogRow(relations, {"", "Reviews", "FOREIGN_KEY", "", "Singers"});
  AddCatalogRow(relations, {"", "Venues", "FOREIGN_KEY", "", "Labels"});
  AddCatalogRow(relations,
                {"", "Gone", "FOREIGN_KEY", "", "Singers"});  // Ignored.
  auto catalog = SchemaCatalog::FromResults(Dialect::kGoogleSql, columns,
                                            indexes, relations);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  auto table = [&](const char* name) { return catalog->FindTable(name); };
  EXPECT_EQ(table("Songs")->root, table("Singers"));
  EXPECT_EQ(table("Albums")->root, table("Singers"));
  EXPECT_EQ(table("Songs")->root_key_parts, 1u);
  EXPECT_TRUE(table("Singers")->hierarchy);
  EXPECT_TRUE(table("Songs")->hierarchy);
  EXPECT_FALSE(table("Reviews")->hierarchy);
  EXPECT_EQ(table("Reviews")->root, table("Reviews"));
  // One family for Singers' hierarchy and Reviews, another for Labels and
  // Venues; Notes is in none.
  EXPECT_GE(table("Singers")->family, 0);
  EXPECT_EQ(table("Songs")->family, table("Singers")->family);
  EXPECT_EQ(table("Reviews")->family, table("Singers")->family);
  EXPECT_GE(table("Labels")->family, 0);
  EXPECT_EQ(table("Venues")->family, table("Labels")->family);
  EXPECT_NE(table("Venues")->family, table("Singers")->family);
  EXPECT_EQ(table("Notes")->family, -1);
  EXPECT_FALSE(table("Notes")->hierarchy);
}

TEST(SchemaCatalogTest, CellsCountColumnsPlusIndexEntries) {
  SchemaCatalog catalog = OrdersCatalog();
  auto encoded = Encode(catalog, Mutation::InsertOrUpdate("orders")
                                     .Set("OrderId", Value::Int64(7))
                                     .Set("Code", Value::String("c"))
                                     .Set("Amount", Value::Int64(12))
                                     .Set("Email", Value::NullValue()));
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  // OrderId 1, Code 1+1, Amount 1+1 (stored), Email 1+1.
  EXPECT_EQ(encoded->cells, 7);
  EXPECT_EQ(encoded->bytes,
            static_cast<int64_t>(encoded->proto->ByteSizeLong()));
  const auto& write = encoded->proto->insert_or_update();
  EXPECT_EQ(write.table(), "Orders");
  EXPECT_EQ(write.columns(0), "OrderId");
  EXPECT_EQ(write.values(0).values(0).string_value(), "7");
  // INT64 into FLOAT64 is widened, as Spanner would.
  EXPECT_EQ(write.values(0).values(2).number_value(), 12.0);
  EXPECT_TRUE(write.values(0).values(3).has_null_value());
}

TEST(SchemaCatalogTest, DeleteCostsOnePlusEverySecondaryIndexPerKey) {
  SchemaCatalog catalog = OrdersCatalog();
  auto encoded = Encode(
      catalog,
      Mutation::Delete("Orders").Key({Value::Int64(1)}).Key({Value::Int64(2)}));
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(encoded->cells, 2 * (1 + 3));
  EXPECT_EQ(encoded->proto->delete_().key_set().keys_size(), 2);
}

TEST(SchemaCatalogTest, SchemaQualifiedTablesAndCompositeKeys) {
  SchemaCatalog catalog = OrdersCatalog();
  auto encoded =
      Encode(catalog, Mutation::Delete("sales.Items")
                          .Key({Value::String("a"), Value::Int64(1)})
                          .Range(KeyRange{.start = {Value::String("b")},
                                          .start_closed = true,
                                          .end = {Value::String("c")},
                                          .end_closed = false}));
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(encoded->proto->delete_().table(), "sales.Items");
  EXPECT_EQ(encoded->proto->delete_()
                .key_set()
                .ranges(0)
                .start_closed()
                .values(0)
                .string_value(),
            "b");
  EXPECT_EQ(encoded->proto->delete_()
                .key_set()
                .ranges(0)
                .end_open()
                .values(0)
                .string_value(),
            "c");
  EXPECT_THAT(
      Encode(catalog, Mutation::Delete("sales.Items").Key({Value::String("a")}))
          .status()
          .message(),
      HasSubstr("primary key has 2"));
}

TEST(SchemaCatalogTest, ValuesThatDoNotFitAreRefusedNamingTheColumn) {
  SchemaCatalog catalog = OrdersCatalog();
  auto wrong = Encode(catalog, Mutation::Insert("Orders").Set(
                                   "OrderId", Value::String("seven")));
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      wrong.status().message(),
      HasSubstr("column Orders.OrderId is INT64; cannot write a STRING"));
  EXPECT_THAT(
      Encode(catalog, Mutation::Insert("Orders").Set("Nope", Value::Int64(1)))
          .status()
          .message(),
      HasSubstr("column 'Nope' is not in table Orders"));
  EXPECT_THAT(
      Encode(catalog, Mutation::Insert("Nope").Set("A", Value::Int64(1)))
          .status()
          .message(),
      HasSubstr("table 'Nope' is not in the database"));
  EXPECT_THAT(Encode(catalog, Mutation::Insert("Orders").Set(
                                  "Day", Value::CommitTimestampValue()))
                  .status()
                  .message(),
              HasSubstr("commit timestamp"));
  EXPECT_THAT(Encode(catalog, Mutation::Insert("Orders").Set(
                                  "Tags", Value::ArrayOf({Value::Int64(1)})))
                  .status()
                  .message(),
              HasSubstr("Orders.Tags[0]"));
}

TEST(SchemaCatalogTest, EveryTypeHasItsWireForm) {
  ColumnType array = ParseSpannerType("ARRAY<FLOAT64>", Dialect::kGoogleSql);
  auto encoded = std::make_unique<google::protobuf::Value>();
  ASSERT_TRUE(
      EncodeForColumn(
          Value::ArrayOf(
              {Value::Float64(1.5), Value::NullValue(),
               Value::Float64(std::numeric_limits<double>::quiet_NaN()),
               Value::Float64(-std::numeric_limits<double>::infinity())}),
          array, "column", "t", "c", encoded.get())
          .ok());
  EXPECT_EQ(encoded->list_value().values(0).number_value(), 1.5);
  EXPECT_TRUE(encoded->list_value().values(1).has_null_value());
  EXPECT_EQ(encoded->list_value().values(2).string_value(), "NaN");
  EXPECT_EQ(encoded->list_value().values(3).string_value(), "-Infinity");
  EXPECT_EQ(Value::BytesValue("hi").ToProto().string_value(), "aGk=");
  EXPECT_EQ(Value::Date(absl::CivilDay(2026, 12, 2)).ToProto().string_value(),
            "2026-12-02");
  EXPECT_EQ(Value::Timestamp(absl::FromUnixMillis(1'764'633'600'123))
                .ToProto()
                .string_value(),
            "2025-12-02T00:00:00.123Z");
  EXPECT_EQ(Value::CommitTimestampValue().ToProto().string_value(),
            "spanner.commit_timestamp()");
  EXPECT_EQ(Value::NumericValue("-1.50").ToProto().string_value(), "-1.50");
  EXPECT_EQ(Value::JsonValue(R"({"a":1})").ToProto().string_value(),
            R"({"a":1})");
  EXPECT_TRUE(Value::Bool(true).ToProto().bool_value());
  EXPECT_EQ(Value::Int64(std::numeric_limits<int64_t>::min())
                .ToProto()
                .string_value(),
            "-9223372036854775808");
}

TEST(SchemaCatalogTest, TextInWireFormFitsTextEncodedColumnsWhenValid) {
  struct Case {
    const char* type;
    const char* text;
    const char* wire;  // nullptr: refused.
  };
  for (const Case& c : {
           Case{"DATE", "2026-12-01", "2026-12-01"},
           Case{"DATE", "2026-13-01", nullptr},
           Case{"TIMESTAMP", "2026-12-01T10:00:00.5+01:00",
                "2026-12-01T09:00:00.5Z"},
           Case{"TIMESTAMP", "yesterday", nullptr},
           Case{"NUMERIC", "-12.50", "-12.50"},
           Case{"NUMERIC", "12.", nullptr},
           Case{"NUMERIC", "1e3", nullptr},
           Case{"JSON", R"({"a":[1,2]})", R"({"a":[1,2]})"},
           Case{"JSON", "{a:1}", nullptr},
           Case{"BYTES(MAX)", "aGk=", "aGk="},
           Case{"BYTES(MAX)", "not base64!", nullptr},
           Case{"INT64", "12", nullptr},  // Numbers stay numbers.
           Case{"BOOL", "true", nullptr},
       }) {
    google::protobuf::Value out;
    const absl::Status status = EncodeForColumn(
        Value::String(c.text), ParseSpannerType(c.type, Dialect::kGoogleSql),
        "column", "t", "c", &out);
    if (c.wire == nullptr) {
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
          << c.type << " " << c.text;
      EXPECT_THAT(status.message(), HasSubstr("cannot write a STRING"));
    } else {
      ASSERT_TRUE(status.ok()) << c.type << " " << c.text << ": " << status;
      EXPECT_EQ(out.string_value(), c.wire) << c.type << " " << c.text;
    }
  }
}

TEST(SchemaCatalogTest, ParsesBothDialectsSpellings) {
  EXPECT_EQ(ParseSpannerType("STRING(MAX)", Dialect::kGoogleSql).code,
            TypeCode::kString);
  EXPECT_EQ(ParseSpannerType("ARRAY<INT64>", Dialect::kGoogleSql).element,
            TypeCode::kInt64);
  EXPECT_FALSE(ParseSpannerType("PROTO<a.B>", Dialect::kGoogleSql).supported);
  EXPECT_EQ(
      ParseSpannerType("character varying(20)", Dialect::kPostgreSql).code,
      TypeCode::kString);
  EXPECT_EQ(ParseSpannerType("bigint[]", Dialect::kPostgreSql).element,
            TypeCode::kInt64);
  EXPECT_EQ(
      ParseSpannerType("timestamp with time zone", Dialect::kPostgreSql).code,
      TypeCode::kTimestamp);
  EXPECT_EQ(ParseSpannerType("jsonb", Dialect::kPostgreSql).code,
            TypeCode::kJson);
  EXPECT_EQ(ParseSpannerType("real", Dialect::kPostgreSql).code,
            TypeCode::kFloat32);
}

TEST(MutationTest, PortableJsonNamesTableOperationAndValues) {
  Mutation write = Mutation::InsertOrUpdate("Orders")
                       .Set("OrderId", Value::Int64(7))
                       .Set("Note", Value::NullValue())
                       .Set("Raw", Value::BytesValue("hi"));
  EXPECT_EQ(write.ToJson().dump(),
            R"({"columns":{"Note":null,"OrderId":"7","Raw":"aGk="},)"
            R"("operation":"insert-or-update","table":"Orders"})");
  Mutation del = Mutation::Delete("Orders")
                     .Key({Value::Int64(1)})
                     .Range(KeyRange{.start = {Value::Int64(5)},
                                     .start_closed = false,
                                     .end = {Value::Int64(9)},
                                     .end_closed = true});
  EXPECT_EQ(del.ToJson().dump(),
            R"({"keys":[["1"]],"operation":"delete","ranges":[{"end":["9"],)"
            R"("end_closed":true,"start":["5"],"start_closed":false}],)"
            R"("table":"Orders"})");
}

}  // namespace
}  // namespace gcpstream::spanner
