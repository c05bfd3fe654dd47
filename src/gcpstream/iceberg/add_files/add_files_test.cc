#include "gcpstream/iceberg/add_files/add_files.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gcpstream/iceberg/add_files/add_files_test_fixture.h"
#include "gcpstream/iceberg/catalog/data_commit.h"
#include "gcpstream/iceberg/spec/name_mapping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// Adding files: schema evolution, refused and skipped files, dry runs,
// partitions and options (add_files_commit_test: commits that race).
namespace gcpstream::iceberg {
namespace {

using ::gcpstream::iceberg::testing::AddFilesTest;
using ::gcpstream::iceberg::testing::CatalogKind;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using Json = nlohmann::json;

INSTANTIATE_TEST_SUITE_P(Catalogs, AddFilesTest,
                         ::testing::Values(CatalogKind::kFilesystem,
                                           CatalogKind::kRest),
                         testing::CatalogName);

Json MemberOf(const Json& checked, const std::string& name) {
  for (const Json& field : checked["schema"]) {
    if (field["name"] == name) return field;
  }
  return Json();
}

TEST_P(AddFilesTest, WithoutEvolutionTheFirstFileCreatesTheTable) {
  absl::StatusOr<AddFilesResult> result = Add({"orders_a.parquet"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->errors, IsEmpty());
  ASSERT_TRUE(result->snapshot.has_value());
  EXPECT_EQ(result->counters.data_files_added, 1);
  EXPECT_EQ(result->counters.schema_commits, 1);

  const Json checked = Check({"orders_a.parquet"});
  EXPECT_EQ(checked["schema"], Json::parse(R"([
              {"id": 1, "name": "id", "required": true, "type": "long"},
              {"id": 2, "name": "amount", "required": false, "type": "int"},
              {"id": 3, "name": "name", "required": false, "type": "string"}
            ])"));
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
  EXPECT_EQ(checked["operation"], "append");
  EXPECT_EQ(checked["summary"]["added-data-files"], "1");
  EXPECT_EQ(checked["summary"]["added-records"], "3");
  EXPECT_EQ(checked["summary"]["total-records"], "3");
  EXPECT_EQ(checked["summary"][kCommitIdSummaryKey],
            result->snapshot->summary.at(kCommitIdSummaryKey));
  EXPECT_TRUE(checked["name_mapping"].is_string());

  // Metrics from the footer, keyed by the table's ids: id 1..3, name has
  // one null; bounds single-value serialized (long little-endian).
  ASSERT_THAT(checked["files"], SizeIs(1));
  const Json& file = checked["files"][0];
  EXPECT_EQ(file["record_count"], 3);
  EXPECT_EQ(file["value_counts"], Json::parse(R"({"1": 3, "2": 3, "3": 3})"));
  EXPECT_EQ(file["null_value_counts"],
            Json::parse(R"({"1": 0, "2": 0, "3": 1})"));
  EXPECT_EQ(file["lower_bounds"]["1"], "0100000000000000");
  EXPECT_EQ(file["upper_bounds"]["1"], "0300000000000000");
  EXPECT_EQ(file["lower_bounds"]["3"], "61");  // "a"
  EXPECT_EQ(file["upper_bounds"]["3"], "63");  // "c"
}

TEST_P(AddFilesTest, WithoutEvolutionFilesRegisterAsTheyAre) {
  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  // email is not a table column and is not read; name is absent: null.
  absl::StatusOr<AddFilesResult> result = Add({"orders_b.parquet"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->errors, IsEmpty());
  const Json checked = Check({"orders_a.parquet", "orders_b.parquet"});
  EXPECT_EQ(checked["schemas"], 1);
  EXPECT_EQ(checked["snapshots"], 2);
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
  // pyiceberg 0.12 deviates from Iceberg's spec (and Java, and DuckDB): it
  // refuses to read a file without field ids that has a column the name
  // mapping lacks, instead of leaving that column unread.
  EXPECT_THAT(checked["pyiceberg_error"].dump(),
              HasSubstr("Could not find field with name: email"));
  EXPECT_EQ(checked["summary"]["total-records"], "6");
  EXPECT_EQ(checked["summary"]["total-data-files"], "2");
}

TEST_P(AddFilesTest, MissingTableIsCreatedFromTheUnionWithFieldAddition) {
  absl::StatusOr<AddFilesResult> result =
      Add({"orders_a.parquet", "orders_b.parquet"},
          Evolving({EvolutionOption::kAllowFieldAddition}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->errors, IsEmpty());
  EXPECT_EQ(result->counters.data_files_added, 2);
  const Json checked = Check({"orders_a.parquet", "orders_b.parquet"});
  // Every column of a created table is optional unless pinned.
  for (const char* name : {"id", "amount", "name", "email"}) {
    EXPECT_EQ(MemberOf(checked, name)["required"], false) << name;
  }
  EXPECT_EQ(MemberOf(checked, "email")["type"], "string");
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
  EXPECT_EQ(checked["summary"]["added-data-files"], "2");
}

TEST_P(AddFilesTest, MissingTableWithoutFieldAdditionIsNotCreated) {
  AddFilesOptions options = Evolving({EvolutionOption::kAllowTypePromotion});
  absl::StatusOr<AddFilesResult> failed = Add({"orders_a.parquet"}, options);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(failed.status().message(), HasSubstr("allow-field-addition"));

  options.incompatible_schema_handling =
      IncompatibleSchemaHandling::kRouteToErrors;
  absl::StatusOr<AddFilesResult> routed = Add({"orders_a.parquet"}, options);
  ASSERT_TRUE(routed.ok()) << routed.status();
  EXPECT_THAT(ErrorFiles(*routed), ElementsAre("orders_a.parquet"));
  EXPECT_THAT(routed->errors[0].error, HasSubstr("allow-field-addition"));
  EXPECT_EQ(MetadataFile(), "");
}

TEST_P(AddFilesTest, FieldAdditionRefusedThenAllowed) {
  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  const std::string before = MetadataFile();
  AddFilesOptions options = Evolving({EvolutionOption::kAllowTypePromotion});
  absl::StatusOr<AddFilesResult> failed = Add({"orders_b.parquet"}, options);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(failed.status().message(),
              HasSubstr("add optional email string (needs "
                        "allow-field-addition)"));
  EXPECT_EQ(MetadataFile(), before);

  options.incompatible_schema_handling =
      IncompatibleSchemaHandling::kRouteToErrors;
  absl::StatusOr<AddFilesResult> routed =
      Add({"orders_b.parquet", "orders_own_ids.parquet"}, options);
  ASSERT_TRUE(routed.ok()) << routed.status();
  EXPECT_THAT(ErrorFiles(*routed), ElementsAre("orders_b.parquet"));
  EXPECT_EQ(routed->counters.data_files_added, 1);

  absl::StatusOr<AddFilesResult> allowed = Add(
      {"orders_b.parquet"}, Evolving({EvolutionOption::kAllowFieldAddition}));
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  EXPECT_THAT(allowed->errors, IsEmpty());
  const Json checked =
      Check({"orders_a.parquet", "orders_own_ids.parquet", "orders_b.parquet"});
  EXPECT_EQ(MemberOf(checked, "email"),
            Json::parse(R"({"id": 4, "name": "email", "required": false,
                            "type": "string"})"));
  // id stays required: the file proves it has no nulls.
  EXPECT_EQ(MemberOf(checked, "id")["required"], true);
  EXPECT_EQ(checked["schemas"], 2);
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
}

TEST_P(AddFilesTest, RelaxationRefusedAllowedAndPinned) {
  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  absl::StatusOr<AddFilesResult> refused =
      Add({"orders_id_nulls.parquet"},
          Evolving({EvolutionOption::kAllowFieldAddition}));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("needs allow-field-relaxation"));

  AddFilesOptions pinned = Evolving({EvolutionOption::kAllowFieldRelaxation});
  pinned.evolution.pins = {"id"};
  absl::StatusOr<AddFilesResult> pin_refused =
      Add({"orders_id_nulls.parquet"}, pinned);
  EXPECT_EQ(pin_refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(pin_refused.status().message(), HasSubstr("pinned"));

  absl::StatusOr<AddFilesResult> allowed =
      Add({"orders_id_nulls.parquet"},
          Evolving({EvolutionOption::kAllowFieldRelaxation}));
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  EXPECT_THAT(allowed->errors, IsEmpty());
  const Json checked = Check({"orders_a.parquet", "orders_id_nulls.parquet"});
  EXPECT_EQ(MemberOf(checked, "id")["required"], false);
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
}

TEST_P(AddFilesTest, PromotionRefusedAllowedAndImpossible) {
  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  absl::StatusOr<AddFilesResult> refused =
      Add({"orders_amount_long.parquet"},
          Evolving({EvolutionOption::kAllowFieldAddition}));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("promote amount from int to long (needs "
                        "allow-type-promotion)"));

  AddFilesOptions promote = Evolving({EvolutionOption::kAllowTypePromotion});
  promote.incompatible_schema_handling =
      IncompatibleSchemaHandling::kRouteToErrors;
  absl::StatusOr<AddFilesResult> allowed = Add(
      {"orders_amount_long.parquet", "orders_amount_string.parquet"}, promote);
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  // No promotion reaches string: that schema loses, the other lands.
  EXPECT_THAT(ErrorFiles(*allowed),
              ElementsAre("orders_amount_string.parquet"));
  const Json checked =
      Check({"orders_a.parquet", "orders_amount_long.parquet"});
  EXPECT_EQ(MemberOf(checked, "amount")["type"], "long");
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
  // The long file's bounds are longs (8 bytes), the int file's stay ints.
  for (const Json& file : checked["files"]) {
    const std::string lower = file["lower_bounds"]["2"];
    EXPECT_EQ(lower.size(),
              file["path"].get<std::string>().find("long") == std::string::npos
                  ? 8u
                  : 16u)
        << file.dump();
  }
}

TEST_P(AddFilesTest, PinsNeedNullEvidenceUnlessUnverifiableFilesAreAccepted) {
  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  AddFilesOptions options = Evolving({EvolutionOption::kAllowFieldAddition});
  options.evolution.pins = {"name"};
  options.incompatible_schema_handling =
      IncompatibleSchemaHandling::kRouteToErrors;
  absl::StatusOr<AddFilesResult> rejected =
      Add({"orders_no_stats.parquet", "orders_amount_long.parquet"}, options);
  ASSERT_TRUE(rejected.ok()) << rejected.status();
  ASSERT_THAT(rejected->errors, SizeIs(2));
  EXPECT_THAT(rejected->errors[1].error,
              HasSubstr("required column `name` has no null count statistics"));

  options.unverifiable_file_handling = UnverifiableFileHandling::kAccept;
  absl::StatusOr<AddFilesResult> accepted =
      Add({"orders_no_stats.parquet", "orders_id_nulls.parquet"}, options);
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_EQ(accepted->counters.unproven_pin_files, 1);
  EXPECT_EQ(accepted->counters.data_files_added, 1);
  EXPECT_THAT(ErrorFiles(*accepted), ElementsAre("orders_id_nulls.parquet"));

  // A counted null, or no such column, is refused whatever the handling.
  absl::StatusOr<AddFilesResult> nulls =
      Add({"orders_c.parquet", "orders_b.parquet"}, options);
  ASSERT_TRUE(nulls.ok()) << nulls.status();
  ASSERT_THAT(ErrorFiles(*nulls),
              ElementsAre("orders_c.parquet", "orders_b.parquet"));
  EXPECT_THAT(nulls->errors[0].error,
              HasSubstr("required column `name` has 1 null in the file"));
  EXPECT_THAT(nulls->errors[1].error,
              HasSubstr("required column `name` is absent from the file"));
}

TEST_P(AddFilesTest, FilesTheTableHoldsAreRefusedOrSkipped) {
  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  absl::StatusOr<AddFilesResult> again = Add(
      {"orders_a.parquet", "orders_own_ids.parquet", "orders_own_ids.parquet"});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_THAT(ErrorFiles(*again),
              ElementsAre("orders_own_ids.parquet", "orders_a.parquet"));
  EXPECT_THAT(again->errors[0].error, HasSubstr("more than once"));
  EXPECT_THAT(again->errors[1].error, HasSubstr("already holds"));
  EXPECT_EQ(again->counters.data_files_added, 1);

  AddFilesOptions skip;
  skip.already_added = AlreadyAddedHandling::kSkip;
  absl::StatusOr<AddFilesResult> skipped =
      Add({"orders_a.parquet", "orders_own_ids.parquet"}, skip);
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  EXPECT_THAT(skipped->errors, IsEmpty());
  EXPECT_EQ(skipped->counters.already_added_skipped, 2);
  EXPECT_FALSE(skipped->snapshot.has_value());
  const Json checked = Check({"orders_a.parquet", "orders_own_ids.parquet"});
  EXPECT_EQ(checked["snapshots"], 2);
  EXPECT_TRUE(checked["equal"]) << checked.dump();
}

TEST_P(AddFilesTest, UnreadableFilesAreErrorRows) {
  absl::StatusOr<AddFilesResult> result = Add(
      {"notes.txt", "corrupt.parquet", "missing.parquet", "orders_a.parquet"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(ErrorFiles(*result),
              ElementsAre("notes.txt", "corrupt.parquet", "missing.parquet"));
  EXPECT_THAT(result->errors[0].error, HasSubstr("only Parquet files"));
  EXPECT_THAT(result->errors[2].error, HasSubstr("no such file"));
  EXPECT_EQ(result->counters.footer_read_errors, 1);
  EXPECT_EQ(result->counters.error_files, 3);
  EXPECT_EQ(result->counters.data_files_added, 1);
}

TEST_P(AddFilesTest, AWindowWithoutReadableFilesCommitsNothing) {
  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  const std::string before = MetadataFile();
  absl::StatusOr<AddFilesResult> result =
      Add({"notes.txt", "corrupt.parquet"},
          Evolving({EvolutionOption::kAllowFieldAddition}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->errors.size(), 2u);
  EXPECT_FALSE(result->snapshot.has_value());
  EXPECT_EQ(result->counters.schema_commits, 0);
  EXPECT_EQ(MetadataFile(), before);
}

TEST_P(AddFilesTest, FieldIdsThatContradictTheTableAreRefused) {
  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  absl::StatusOr<AddFilesResult> result =
      Add({"orders_swapped_ids.parquet", "orders_own_ids.parquet"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(ErrorFiles(*result), ElementsAre("orders_swapped_ids.parquet"));
  EXPECT_THAT(result->errors[0].error, HasSubstr("field id"));
  const Json checked = Check({"orders_a.parquet", "orders_own_ids.parquet"});
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
}

TEST_P(AddFilesTest, NestedColumnsGetSizesButNoCountsUnderContainers) {
  absl::StatusOr<AddFilesResult> result =
      Add({"nested.parquet"}, Evolving({EvolutionOption::kAllowFieldAddition}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->errors, IsEmpty());
  const Json checked = Check({"nested.parquet"});
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
  const Json& file = checked["files"][0];
  // id, address.city, address.zip have counts; the list element and the
  // map's key and value have sizes only.
  EXPECT_EQ(file["value_counts"].size(), 3u) << file.dump();
  EXPECT_EQ(file["column_sizes"].size(), 6u) << file.dump();
}

TEST_P(AddFilesTest, DryRunReportsAndChangesNothing) {
  AddFilesOptions options = Evolving({EvolutionOption::kAllowFieldAddition});
  options.dry_run = true;
  absl::StatusOr<AddFilesResult> missing = Add({"orders_a.parquet"}, options);
  ASSERT_TRUE(missing.ok()) << missing.status();
  ASSERT_TRUE(missing->dry_run_report.has_value());
  const nlohmann::ordered_json& created = *missing->dry_run_report;
  EXPECT_EQ(created["allowed"], true) << created.dump();
  EXPECT_EQ(created["would_create_table"], true);
  EXPECT_THAT(created["created_table"]["columns"].dump(),
              HasSubstr("create optional name string"));
  EXPECT_EQ(MetadataFile(), "");

  ASSERT_TRUE(Add({"orders_a.parquet"}).ok());
  const std::string before = MetadataFile();
  absl::StatusOr<AddFilesResult> evolving =
      Add({"orders_b.parquet", "orders_amount_string.parquet"}, options);
  ASSERT_TRUE(evolving.ok()) << evolving.status();
  const nlohmann::ordered_json& report = *evolving->dry_run_report;
  EXPECT_EQ(report["allowed"], false) << report.dump();
  EXPECT_EQ(report["files"]["incompatible"], 1);
  EXPECT_THAT(report["table_changes"].dump(),
              HasSubstr("add optional email string"));
  EXPECT_FALSE(evolving->snapshot.has_value());
  EXPECT_EQ(MetadataFile(), before);
}

// A table partitioned by day(at) and kind, created for the test.
void CreateEventsTable(Catalog& catalog, const TableIdentifier& table) {
  TableCreation creation;
  creation.schema = Schema{
      0,
      {iceberg::Field{1, "id", false, Primitive(TypeKind::kLong), ""},
       iceberg::Field{2, "kind", false, Primitive(TypeKind::kString), ""},
       iceberg::Field{3, "at", false, Primitive(TypeKind::kTimestampTz), ""}}};
  creation.last_column_id = 3;
  creation.spec.fields = {PartitionField{3, 1000, "at_day", "day"},
                          PartitionField{2, 1001, "kind", "identity"}};
  creation.properties = {{kNameMappingProperty,
                          NameMappingToJson(NameMappingOf(creation.schema))}};
  ASSERT_TRUE(catalog.Create(table, creation).ok());
}

std::map<std::string, std::vector<std::string>> Partitions(
    const Json& checked) {
  std::map<std::string, std::vector<std::string>> out;
  for (const Json& file : checked["files"]) {
    out[std::filesystem::path(file["path"].get<std::string>())
            .filename()
            .string()] = file["partition"].get<std::vector<std::string>>();
  }
  return out;
}

TEST_P(AddFilesTest, PartitionsAreInferredFromBounds) {
  CreateEventsTable(*catalog_, table_);
  absl::StatusOr<AddFilesResult> result =
      Add({"events_day1_a.parquet", "events_day2_b.parquet",
           "events_two_days.parquet", "events_null_kind.parquet",
           "events_some_null_kind.parquet"});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_THAT(
      ErrorFiles(*result),
      ElementsAre("events_two_days.parquet", "events_some_null_kind.parquet"));
  EXPECT_THAT(result->errors[0].error,
              HasSubstr("Min and max transformed values were not equal"));
  EXPECT_THAT(result->errors[1].error, HasSubstr("nulls beside its values"));
  EXPECT_EQ(result->snapshot->summary.at("changed-partition-count"), "3");
  const Json checked = Check({"events_day1_a.parquet", "events_day2_b.parquet",
                              "events_null_kind.parquet"});
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
  // Days since 1970-01-01: 2026-01-01 is day 20454.
  const std::map<std::string, std::vector<std::string>> expected = {
      {"events_day1_a.parquet", {"20454", "a"}},
      {"events_day2_b.parquet", {"20455", "b"}},
      {"events_null_kind.parquet", {"20456", "None"}}};
  EXPECT_EQ(Partitions(checked), expected) << checked.dump();
}

TEST_P(AddFilesTest, PartitionsAreReadFromHiveStylePaths) {
  CreateEventsTable(*catalog_, table_);
  AddFilesOptions options;
  options.partition_path_prefix = Fixture("by_path");
  absl::StatusOr<AddFilesResult> result =
      Add({"by_path/at_day=2026-01-04/kind=c/events.parquet",
           "events_day1_a.parquet"},
          options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_THAT(ErrorFiles(*result), ElementsAre("events_day1_a.parquet"));
  EXPECT_THAT(result->errors[0].error,
              HasSubstr("did not start with the specified prefix"));
  const Json checked =
      Check({"by_path/at_day=2026-01-04/kind=c/events.parquet"});
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
  EXPECT_EQ(Partitions(checked)["events.parquet"],
            (std::vector<std::string>{"20457", "c"}));
}

TEST_P(AddFilesTest, OptionsThatWouldBeIgnoredAreRefused) {
  AddFilesOptions pins;
  pins.evolution.pins = {"id"};
  EXPECT_THAT(Add({"orders_a.parquet"}, pins).status().message(),
              HasSubstr("required-columns applies only with schema evolution"));
  AddFilesOptions dry;
  dry.dry_run = true;
  EXPECT_THAT(Add({"orders_a.parquet"}, dry).status().message(),
              HasSubstr("dry-run"));
  AddFilesOptions padded = Evolving({EvolutionOption::kAllowFieldAddition});
  padded.evolution.pins = {" id"};
  EXPECT_EQ(Add({"orders_a.parquet"}, padded).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MetadataFile(), "");
}

}  // namespace
}  // namespace gcpstream::iceberg
