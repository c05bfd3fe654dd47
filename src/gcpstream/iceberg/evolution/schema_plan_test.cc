#include "gcpstream/iceberg/evolution/schema_plan.h"

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
using ::testing::Pair;

using ::gcpstream::iceberg::testing::Int;
using ::gcpstream::iceberg::testing::Long;
using ::gcpstream::iceberg::testing::Optional;
using ::gcpstream::iceberg::testing::Required;
using ::gcpstream::iceberg::testing::String;

FileSchema File(const std::string& path, std::vector<Field> fields,
                std::vector<std::string> null_free = {}) {
  return FileSchema{path, Canonical(Schema{0, std::move(fields)}),
                    std::move(null_free)};
}

// Groups of `files`, each file given as its columns.
std::vector<SchemaGroup> Groups(const std::vector<FileSchema>& files) {
  return GroupBySchema(files);
}

const EvolutionConfig kAllowAll{{EvolutionOption::kAllowFieldAddition,
                                 EvolutionOption::kAllowFieldRelaxation,
                                 EvolutionOption::kAllowTypePromotion},
                                {}};

Schema PlanTable() {
  return Schema{4, {Required(1, "id", Long()), Optional(2, "name", String())}};
}

std::vector<std::string> Names(const Schema& schema) {
  std::vector<std::string> out;
  out.reserve(schema.fields.size());
  for (const Field& field : schema.fields) {
    out.push_back(absl::StrCat(field.id, ":", field.name, ":",
                               DescribeType(field.type),
                               field.required ? ":required" : ""));
  }
  return out;
}

TEST(GroupBySchemaTest, SameColumnsInAnyOrderGroupWhenTheirEvidenceIsEqual) {
  const std::vector<SchemaGroup> groups = Groups({
      File("a.parquet", {Optional(1, "x", Long()), Optional(2, "y", Long())},
           {"x"}),
      File("b.parquet", {Optional(1, "z", Long())}),
      File("c.parquet", {Optional(1, "y", Long()), Optional(2, "x", Long())},
           {"x"}),
  });
  ASSERT_EQ(groups.size(), 2U);
  EXPECT_THAT(groups[0].files, ElementsAre("a.parquet", "c.parquet"));
  EXPECT_THAT(groups[0].null_free_columns, ElementsAre("x"));
  EXPECT_THAT(Names(groups[0].Effective()),
              ElementsAre("1:x:long:required", "2:y:long"));
  EXPECT_THAT(groups[1].files, ElementsAre("b.parquet"));
}

// A file is judged by its own footer: a sibling's null must not take away
// the evidence that lets a clean file fill a required column.
TEST(GroupBySchemaTest, FilesOfOneSchemaKeepTheirOwnNullEvidence) {
  const std::vector<SchemaGroup> groups = Groups({
      File("ok.parquet", {Optional(1, "code", Long())}, {"code"}),
      File("bad.parquet", {Optional(1, "code", Long())}),
  });
  ASSERT_EQ(groups.size(), 2U);
  for (const SchemaGroup& group : groups) {
    ASSERT_EQ(group.files.size(), 1U);
    if (group.files[0] == "ok.parquet") {
      EXPECT_THAT(Names(group.Effective()),
                  ElementsAre("1:code:long:required"));
    } else {
      EXPECT_THAT(Names(group.Effective()), ElementsAre("1:code:long"));
    }
  }
}

TEST(PlanWindowTest, CoveredFilesChangeNothing) {
  const SchemaPlan plan = PlanWindow(
      PlanTable(), 2, Groups({File("f", {Required(1, "id", Int())})}),
      EvolutionConfig());
  EXPECT_FALSE(plan.new_schema.has_value());
  EXPECT_THAT(plan.incompatible, IsEmpty());
}

TEST(PlanWindowTest, AllowedAdditionsMakeOneNewSchemaVersion) {
  const SchemaPlan plan = PlanWindow(
      PlanTable(), 2,
      Groups(
          {File("a",
                {Required(1, "id", Long()), Required(2, "email", String())}),
           File("b", {Required(1, "id", Long()), Optional(2, "age", Int())})}),
      kAllowAll);
  ASSERT_TRUE(plan.new_schema.has_value());
  EXPECT_THAT(Names(*plan.new_schema),
              ElementsAre("1:id:long:required", "2:name:string", "3:age:int",
                          "4:email:string"));
  EXPECT_EQ(plan.last_column_id, 4);
  EXPECT_THAT(plan.incompatible, IsEmpty());
}

TEST(PlanWindowTest, ChangesTheOptionsDoNotAllowMakeTheGroupIncompatible) {
  const SchemaPlan plan =
      PlanWindow(PlanTable(), 2,
                 Groups({File("a", {Optional(1, "email", String())}),
                         File("b", {Required(1, "id", Long())})}),
                 EvolutionConfig());
  EXPECT_FALSE(plan.new_schema.has_value());
  ASSERT_EQ(plan.incompatible.size(), 1U);
  EXPECT_THAT(plan.incompatible[0].second,
              HasSubstr("add optional email string (needs "
                        "allow-field-addition)"));
}

TEST(PlanWindowTest, ANewColumnTakesTheWidestTypeOfTheWindowInAnyOrder) {
  for (bool long_first : {true, false}) {
    std::vector<FileSchema> files = {
        File("i", {Required(9, "id", Long()), Optional(1, "n", Int())}),
        File("l", {Required(9, "id", Long()), Optional(1, "n", Long())}),
    };
    if (long_first) std::swap(files[0], files[1]);
    // Only the table's columns are checked against the options: a column
    // new in the window may widen without allow-type-promotion.
    EvolutionConfig additions{{EvolutionOption::kAllowFieldAddition}, {}};
    const SchemaPlan plan =
        PlanWindow(PlanTable(), 2, Groups(files), additions);
    ASSERT_TRUE(plan.new_schema.has_value());
    EXPECT_THAT(Names(*plan.new_schema),
                ElementsAre("1:id:long:required", "2:name:string", "3:n:long"));
    EXPECT_THAT(plan.incompatible, IsEmpty());
  }
}

TEST(PlanWindowTest, TheMoreCommonSchemaWinsAConflictBetweenFiles) {
  const SchemaPlan plan = PlanWindow(
      PlanTable(), 2,
      Groups(
          {File("s", {Required(9, "id", Long()), Optional(1, "n", String())}),
           File("l1", {Required(9, "id", Long()), Optional(1, "n", Long())}),
           File("l2", {Required(9, "id", Long()), Optional(1, "n", Long())})}),
      kAllowAll);
  ASSERT_TRUE(plan.new_schema.has_value());
  EXPECT_THAT(Names(*plan.new_schema),
              ElementsAre("1:id:long:required", "2:name:string", "3:n:long"));
  ASSERT_EQ(plan.incompatible.size(), 1U);
  EXPECT_EQ(plan.incompatible[0].first, 1U);  // Groups: l (2 files), s.
  EXPECT_THAT(plan.incompatible[0].second,
              HasSubstr("conflicts with another file schema in the same "
                        "window: cannot change column type: n: long -> "
                        "string"));
}

TEST(PlanWindowTest, NamesDifferingOnlyInCaseAcrossFilesKeepTheFirst) {
  const SchemaPlan plan = PlanWindow(
      PlanTable(), 2,
      Groups({File("e1",
                   {Required(9, "id", Long()), Optional(1, "email", String())}),
              File("e2",
                   {Required(9, "id", Long()), Optional(1, "email", String())}),
              File("E", {Required(9, "id", Long()),
                         Optional(1, "Email", String())})}),
      kAllowAll);
  ASSERT_TRUE(plan.new_schema.has_value());
  EXPECT_THAT(
      Names(*plan.new_schema),
      ElementsAre("1:id:long:required", "2:name:string", "3:email:string"));
  ASSERT_EQ(plan.incompatible.size(), 1U);
  EXPECT_THAT(plan.incompatible[0].second,
              HasSubstr("`Email` differs only in case from the table's "
                        "`email`"));
}

TEST(PlanWindowTest, AddedColumnsAreOptionalAtEveryLevelButMapKeys) {
  const SchemaPlan plan = PlanWindow(
      PlanTable(), 2,
      Groups({File(
          "f",
          {Required(1, "geo", Struct({Required(2, "lat", Long())})),
           Required(
               3, "tags",
               Map(Required(4, "key", Struct({Required(5, "k", Int())})),
                   Required(6, "value", List(Required(7, "e", Int())))))})}),
      kAllowAll);
  ASSERT_TRUE(plan.new_schema.has_value());
  const Field& geo = plan.new_schema->fields[2];
  EXPECT_FALSE(geo.required);
  EXPECT_FALSE(geo.type.fields[0].required);
  const Field& tags = plan.new_schema->fields[3];
  EXPECT_FALSE(tags.required);
  EXPECT_TRUE(tags.type.fields[0].required);                  // The key...
  EXPECT_TRUE(tags.type.fields[0].type.fields[0].required);   // ...and in it.
  EXPECT_FALSE(tags.type.fields[1].required);                 // The value...
  EXPECT_FALSE(tags.type.fields[1].type.fields[0].required);  // ...element.
}

TEST(PlanWindowTest, AMissingTableIsCreatedOnlyWithFieldAddition) {
  const std::vector<SchemaGroup> groups = Groups(
      {File("a", {Required(1, "id", Long()),
                  Required(2, "address",
                           Struct({Required(3, "city", String()),
                                   Optional(4, "zip", String())}))}),
       File("b", {Required(1, "id", Long()), Optional(2, "note", String())})});
  const SchemaPlan refused =
      PlanWindow(std::nullopt, 0, groups, EvolutionConfig());
  EXPECT_FALSE(refused.create_table);
  EXPECT_THAT(refused.incompatible,
              ElementsAre(Pair(0, HasSubstr("the table does not exist; "
                                            "creating it from the files needs "
                                            "allow-field-addition")),
                          Pair(1, HasSubstr("the table does not exist"))));

  EvolutionConfig config{{EvolutionOption::kAllowFieldAddition},
                         {"address.city", "l.q", "missing"}};
  const SchemaPlan created = PlanWindow(std::nullopt, 0, groups, config);
  ASSERT_TRUE(created.create_table);
  ASSERT_TRUE(created.new_schema.has_value());
  // Every column optional except the pins and their ancestors; the first
  // (here: tied, so by JSON) schema's columns first, fresh ids.
  EXPECT_THAT(Names(*created.new_schema),
              ElementsAre("1:address:struct<city: required string, zip: "
                          "optional string>:required",
                          "2:id:long", "3:note:string"));
  EXPECT_EQ(created.last_column_id, 5);
  EXPECT_THAT(created.config_problems,
              ElementsAre(HasSubstr("'l.q' is in no file's schema"),
                          HasSubstr("'missing' is in no file's schema")));
}

}  // namespace
}  // namespace gcpstream::iceberg
