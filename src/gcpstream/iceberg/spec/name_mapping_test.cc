#include "gcpstream/iceberg/spec/name_mapping.h"

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/io/test_util.h"
#include "gcpstream/iceberg/spec/schema_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::gcpstream::iceberg::testing::CommandOutput;
using ::gcpstream::iceberg::testing::Long;
using ::gcpstream::iceberg::testing::Optional;
using ::gcpstream::iceberg::testing::Required;
using ::gcpstream::iceberg::testing::String;
using ::testing::ElementsAre;

// id, address struct<city>, tags list<string>, attrs map<string, long>.
Schema Table() {
  return Schema{
      0,
      {Required(1, "id", Long()),
       Optional(2, "address", Struct({Optional(5, "city", String())})),
       Optional(3, "tags", List(Optional(6, "element", String()))),
       Optional(
           4, "attrs",
           Map(Required(7, "key", String()), Optional(8, "value", Long())))}};
}

TEST(NameMappingTest, TheSchemasOwnMappingCoversItAndPyicebergReadsIt) {
  const NameMapping mapping = NameMappingOf(Table());
  EXPECT_TRUE(Covers(mapping, Table()));
  const std::string path = absl::StrCat(
      GCPSTREAM_TEST_OUTPUT_ROOT "/name_mapping_test_output", "/mapping.json");
  std::ofstream(path) << NameMappingToJson(mapping);
  const nlohmann::json read = nlohmann::json::parse(CommandOutput(
      absl::StrCat(GCPSTREAM_PYTHON, " ",
                   GCPSTREAM_TESTDATA "/read_name_mapping.py", " ", path)));
  EXPECT_EQ(read, nlohmann::json::parse(R"json({"1": ["id"],
      "2": ["address"], "3": ["tags"], "4": ["attrs"], "5": ["city"],
      "6": ["element"], "7": ["key"], "8": ["value"]})json"));
}

TEST(NameMappingTest, AMappingMissingAFieldOrWithAWrongIdDoesNotCover) {
  Schema evolved = Table();
  evolved.fields.push_back(Optional(9, "email", String()));
  EXPECT_FALSE(Covers(NameMappingOf(Table()), evolved));
  NameMapping wrong = NameMappingOf(Table());
  wrong[1].fields[0].field_id = 42;  // address.city
  EXPECT_FALSE(Covers(wrong, Table()));
  wrong[1].fields[0].field_id = std::nullopt;
  EXPECT_FALSE(Covers(wrong, Table()));
}

TEST(NameMappingTest, AnUpdateKeepsAliasesByIdAndDropsWhatIsGone) {
  // The old mapping: `id` once was `ident`, `address.city` was `town`, and
  // a column 99 no longer exists.
  NameMapping old = NameMappingOf(Table());
  old[0].names.emplace_back("ident");
  old[1].fields[0].names.emplace_back("town");
  old.push_back(MappedField{99, {"gone"}, {}});
  Schema evolved = Table();
  evolved.fields.push_back(Optional(9, "email", String()));
  // An alias another field has taken is dropped.
  evolved.fields.push_back(Optional(10, "ident", String()));
  const NameMapping updated = UpdatedNameMapping(old, evolved);
  EXPECT_TRUE(Covers(updated, evolved));
  EXPECT_THAT(updated[0].names, ElementsAre("id"));
  EXPECT_THAT(updated[1].fields[0].names, ElementsAre("city", "town"));
  EXPECT_EQ(updated.size(), 6U);
}

TEST(NameMappingTest, OnlyAWellFormedUnambiguousMappingIsRead) {
  const NameMapping mapping = NameMappingOf(Table());
  const std::optional<NameMapping> read =
      NameMappingFromJson(NameMappingToJson(mapping));
  ASSERT_TRUE(read.has_value());
  EXPECT_TRUE(Covers(*read, Table()));
  EXPECT_FALSE(NameMappingFromJson("not json").has_value());
  EXPECT_FALSE(NameMappingFromJson(R"({"field-id": 1})").has_value());
  EXPECT_FALSE(NameMappingFromJson(
                   R"([{"field-id": 1, "names": ["a"]},
                       {"field-id": 2, "names": ["a"]}])")
                   .has_value());
}

}  // namespace
}  // namespace gcpstream::iceberg
