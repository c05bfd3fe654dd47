#include "gcpstream/iceberg/evolution/schema_delta.h"

#include <string>
#include <vector>

#include "gcpstream/iceberg/evolution/schema_update.h"
#include "gcpstream/iceberg/spec/schema_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using ::gcpstream::iceberg::testing::Double;
using ::gcpstream::iceberg::testing::Int;
using ::gcpstream::iceberg::testing::Long;
using ::gcpstream::iceberg::testing::Optional;
using ::gcpstream::iceberg::testing::Required;
using ::gcpstream::iceberg::testing::String;

// A table: id required long, name optional string, address
// struct<city required string, zip optional string>, items
// list<struct<sku required string>>, attrs map<string, struct<v required
// long>>.
Schema Table() {
  return Schema{
      0,
      {Required(1, "id", Long()), Optional(2, "name", String()),
       Optional(3, "address",
                Struct({Required(6, "city", String()),
                        Optional(7, "zip", String())})),
       Optional(4, "items",
                List(Required(8, "element",
                              Struct({Required(9, "sku", String())})))),
       Optional(
           5, "attrs",
           Map(Required(10, "key", String()),
               Required(11, "value", Struct({Required(12, "v", Long())}))))}};
}

// A file with the table's columns, ids of its own.
Schema SameAsTable() {
  Schema file = Table();
  int32_t id = 100;
  AssignFreshIds(file.fields, id);
  return file;
}

std::vector<std::string> Describe(const std::vector<SchemaChange>& changes) {
  std::vector<std::string> out;
  out.reserve(changes.size());
  for (const SchemaChange& change : changes) {
    out.push_back(change.description);
  }
  return out;
}

TEST(ClassifySchemaTest, AFileTheTableCoversChangesNothing) {
  EXPECT_THAT(ClassifySchema(Table(), Table()), IsEmpty());
  EXPECT_THAT(ClassifySchema(Table(), SameAsTable()), IsEmpty());
  // A subset, in another order, stricter and narrower: still covered.
  Schema subset{0, {Required(1, "name", String()), Required(2, "id", Int())}};
  Schema table{0, {Required(1, "id", Long()), Optional(2, "name", String())}};
  EXPECT_THAT(ClassifySchema(table, subset), IsEmpty());
}

TEST(ClassifySchemaTest, AdditionsAreOptionalAndReportedOnceAtTheTop) {
  Schema file = SameAsTable();
  file.fields.push_back(Required(50, "email", String()));
  file.fields.push_back(Required(
      51, "geo",
      Struct({Required(52, "lat", Double()), Optional(53, "lon", Double())})));
  file.fields[2].type.fields.push_back(Optional(54, "country", String()));
  EXPECT_THAT(Describe(ClassifySchema(Table(), file)),
              ElementsAre("add optional address.country string",
                          "add optional email string",
                          "add optional geo struct<lat: required double, "
                          "lon: optional double>"));
}

TEST(ClassifySchemaTest, RelaxationsWhenOptionalOrAbsentInTheFile) {
  Schema file = SameAsTable();
  file.fields[0].required = false;   // id optional.
  file.fields[2].type.fields.erase(  // address.city absent.
      file.fields[2].type.fields.begin());
  file.fields[3].type.fields[0].type.fields.clear();  // items' sku absent.
  file.fields[4].type.fields[1].type.fields.clear();  // attrs' v absent.
  const std::vector<SchemaChange> changes = ClassifySchema(Table(), file);
  EXPECT_THAT(Describe(changes),
              ElementsAre("make address.city optional (absent from the file)",
                          "make attrs.value.v optional (absent from the file)",
                          "make id optional",
                          "make items.element.sku optional (absent from the "
                          "file)"));
  EXPECT_TRUE(changes[0].absent_from_file);
  EXPECT_FALSE(changes[2].absent_from_file);
}

TEST(ClassifySchemaTest, AnAbsentRequiredStructIsOneRelaxation) {
  Schema table{
      0,
      {Required(1, "a",
                Struct({Required(2, "b", Long()), Required(3, "c", Long())}))}};
  Schema file{0, {Optional(1, "x", Long())}};
  EXPECT_THAT(Describe(ClassifySchema(table, file)),
              ElementsAre("make a optional (absent from the file)",
                          "add optional x long"));
}

TEST(ClassifySchemaTest, PromotionsWidenAndOtherTypeChangesConflict) {
  Schema table{
      0,
      {Optional(1, "n", Int()), Optional(2, "f", Primitive(TypeKind::kFloat)),
       Optional(3, "d", Decimal(9, 2)),
       Optional(4, "s", Struct({Optional(5, "inner", Int())}))}};
  Schema file{0,
              {Optional(1, "n", Long()), Optional(2, "f", Double()),
               Optional(3, "d", Decimal(18, 2)),
               Optional(4, "s", Struct({Optional(5, "inner", Long())}))}};
  EXPECT_THAT(Describe(ClassifySchema(table, file)),
              ElementsAre("promote d from decimal(9, 2) to decimal(18, 2)",
                          "promote f from float to double",
                          "promote n from int to long",
                          "promote s.inner from int to long"));

  Schema scale{0, {Optional(3, "d", Decimal(18, 3))}};
  Schema decimal_table{0, {Optional(3, "d", Decimal(9, 2))}};
  const std::vector<SchemaChange> conflict =
      ClassifySchema(decimal_table, scale);
  ASSERT_EQ(conflict.size(), 1U);
  EXPECT_EQ(conflict[0].kind, ChangeKind::kConflict);
  EXPECT_EQ(conflict[0].description,
            "cannot change column type: d: decimal(9, 2) -> decimal(18, 3)");

  Schema text{0, {Optional(1, "n", String())}};
  EXPECT_THAT(
      Describe(ClassifySchema(Schema{0, {Optional(1, "n", Int())}}, text)),
      ElementsAre("cannot change column type: n: int -> string"));
  Schema nested{0, {Optional(1, "n", Struct({Optional(2, "x", Int())}))}};
  EXPECT_THAT(
      Describe(ClassifySchema(Schema{0, {Optional(1, "n", Int())}}, nested)),
      ElementsAre("cannot change column type: n: int -> "
                  "struct<x: optional int>"));
}

TEST(ClassifySchemaTest, NamesAreCheckedBeforeAnythingElse) {
  Schema table{0, {Optional(1, "name", String())}};
  Schema dotted{0, {Optional(1, "a.b", String()), Optional(2, "NAME", Int())}};
  EXPECT_THAT(
      Describe(ClassifySchema(table, dotted)),
      ElementsAre("column name `a.b` contains a dot",
                  "`NAME` differs only in case from the table's `name`"));
  Schema pair{0,
              {Optional(1, "email", String()), Optional(2, "EMAIL", String()),
               Optional(3, "s", Struct({Optional(4, "", Int())}))}};
  EXPECT_THAT(Describe(ClassifySchema(table, pair)),
              ElementsAre("`email` and `EMAIL` differ only in case",
                          "empty column name under s"));
}

TEST(DisallowedChangesTest, EveryChangeNeedsItsOptionAndPinsAreNeverRelaxed) {
  Schema file = SameAsTable();
  file.fields[0].required = false;
  file.fields[2].type.fields.erase(file.fields[2].type.fields.begin());
  file.fields.push_back(Optional(60, "email", String()));
  const std::vector<SchemaChange> changes = ClassifySchema(Table(), file);
  EXPECT_THAT(
      DisallowedChanges(changes, {}, {}),
      ElementsAre("make address.city optional (absent from the file) (needs "
                  "allow-field-relaxation)",
                  "add optional email string (needs allow-field-addition)",
                  "make id optional (needs allow-field-relaxation)"));
  EXPECT_THAT(DisallowedChanges(changes,
                                {EvolutionOption::kAllowFieldAddition,
                                 EvolutionOption::kAllowFieldRelaxation},
                                {}),
              IsEmpty());
  EXPECT_THAT(DisallowedChanges(changes,
                                {EvolutionOption::kAllowFieldAddition,
                                 EvolutionOption::kAllowFieldRelaxation},
                                {"id"}),
              ElementsAre("make id optional (pinned as required)"));

  // Relaxing a struct would null its pinned leaf; the first pin is named.
  Schema table{0,
               {Required(1, "address",
                         Struct({Required(2, "city", String()),
                                 Required(3, "street", String())}))}};
  Schema relaxed = table;
  relaxed.fields[0].required = false;
  EXPECT_THAT(DisallowedChanges(ClassifySchema(table, relaxed),
                                {EvolutionOption::kAllowFieldRelaxation},
                                {"address.street", "address.city"}),
              ElementsAre("make address optional (ancestor of pinned column "
                          "address.city)"));
}

TEST(DisallowedChangesTest, ConflictsComeFirstAndAreNeverAllowed) {
  Schema table{0, {Optional(1, "n", Int()), Required(2, "m", Int())}};
  Schema file{0, {Optional(1, "n", String())}};
  const std::vector<SchemaChange> changes = ClassifySchema(table, file);
  EXPECT_THAT(DisallowedChanges(changes,
                                {EvolutionOption::kAllowFieldAddition,
                                 EvolutionOption::kAllowFieldRelaxation,
                                 EvolutionOption::kAllowTypePromotion},
                                {}),
              ElementsAre(HasSubstr("cannot change column type")));
}

TEST(SchemaUpdateTest, UnionAddsWithFreshIdsAndKeepsInnerOptionality) {
  Schema base{0, {Required(1, "id", Long())}};
  Schema file{0,
              {Required(7, "id", Long()),
               Required(8, "geo",
                        Struct({Required(9, "lat", Double()),
                                Optional(10, "lon", Double())}))}};
  int32_t last_id = 5;
  absl::StatusOr<Schema> merged = UnionByName(base, file, last_id);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(last_id, 8);
  ASSERT_EQ(merged->fields.size(), 2U);
  EXPECT_TRUE(merged->fields[0].required);
  const Field& geo = merged->fields[1];
  EXPECT_EQ(geo.id, 6);
  EXPECT_FALSE(geo.required);
  EXPECT_EQ(geo.type.fields[0].id, 7);
  EXPECT_TRUE(geo.type.fields[0].required);
  EXPECT_EQ(geo.type.fields[1].id, 8);
}

TEST(SchemaUpdateTest, MakeOptionalReachesListElementsAndMapValues) {
  absl::StatusOr<Schema> relaxed = MakeOptional(Table(), "items.element.sku");
  ASSERT_TRUE(relaxed.ok()) << relaxed.status();
  EXPECT_FALSE(relaxed->fields[3].type.fields[0].type.fields[0].required);
  relaxed = MakeOptional(Table(), "attrs.value");
  ASSERT_TRUE(relaxed.ok()) << relaxed.status();
  EXPECT_FALSE(relaxed->fields[4].type.fields[1].required);
  EXPECT_EQ(MakeOptional(Table(), "address.nope").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(SchemaUpdateTest, PromotionMatrixIsIcebergsForV2Tables) {
  EXPECT_TRUE(IsPromotionAllowed(Int(), Long()));
  EXPECT_FALSE(IsPromotionAllowed(Long(), Int()));
  EXPECT_TRUE(IsPromotionAllowed(Primitive(TypeKind::kFloat), Double()));
  EXPECT_TRUE(IsPromotionAllowed(Decimal(9, 2), Decimal(18, 2)));
  EXPECT_FALSE(IsPromotionAllowed(Decimal(18, 2), Decimal(9, 2)));
  EXPECT_FALSE(IsPromotionAllowed(Decimal(9, 2), Decimal(18, 3)));
  EXPECT_FALSE(IsPromotionAllowed(Int(), Double()));
  EXPECT_FALSE(IsPromotionAllowed(Primitive(TypeKind::kDate),
                                  Primitive(TypeKind::kTimestamp)));
  EXPECT_FALSE(IsPromotionAllowed(Fixed(4), Fixed(8)));
  EXPECT_FALSE(IsPromotionAllowed(String(), Primitive(TypeKind::kBinary)));
}

}  // namespace
}  // namespace gcpstream::iceberg
