#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gcpstream/iceberg/add_files/add_files.h"
#include "gcpstream/iceberg/add_files/add_files_test_fixture.h"
#include "gcpstream/iceberg/spec/name_mapping.h"
#include "gcpstream/iceberg/spec/schema_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// Tables as other engines create and read them: each test is a defect
// found by creating tables with pyiceberg-like settings and files as
// pandas and Spark write them, and reading the result back with pyiceberg
// and DuckDB.
namespace gcpstream::iceberg {
namespace {

using ::gcpstream::iceberg::testing::AddFilesTest;

// A suite of its own: the add-files tests share one test executable.
class AddFilesInteropTest : public AddFilesTest {};
using ::gcpstream::iceberg::testing::CatalogKind;
using ::gcpstream::iceberg::testing::Int;
using ::gcpstream::iceberg::testing::Long;
using ::gcpstream::iceberg::testing::Optional;
using ::gcpstream::iceberg::testing::OutputDir;
using ::gcpstream::iceberg::testing::Required;
using ::gcpstream::iceberg::testing::String;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Json = nlohmann::json;

INSTANTIATE_TEST_SUITE_P(Catalogs, AddFilesInteropTest,
                         ::testing::Values(CatalogKind::kFilesystem,
                                           CatalogKind::kRest),
                         testing::CatalogName);

// pyiceberg and Java create tables without a name mapping property.
TableCreation WithoutNameMapping(Schema schema) {
  TableCreation creation;
  for (const Field& field : schema.fields) {
    creation.last_column_id = std::max(creation.last_column_id, field.id);
  }
  creation.schema = std::move(schema);
  return creation;
}

TEST_P(AddFilesInteropTest, FilesWithoutIdsCommitTheNameMappingReadersNeed) {
  ASSERT_TRUE(catalog_
                  ->Create(table_, WithoutNameMapping(
                                       Schema{0,
                                              {Required(1, "id", Long()),
                                               Optional(2, "amount", Int()),
                                               Optional(3, "name", String())}}))
                  .ok());
  absl::StatusOr<AddFilesResult> result = Add({"orders_a.parquet"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->errors, IsEmpty());
  EXPECT_EQ(result->counters.schema_commits, 1);

  const Json checked = Check({"orders_a.parquet"});
  ASSERT_TRUE(checked["name_mapping"].is_string()) << checked.dump();
  EXPECT_THAT(checked["name_mapping"].get<std::string>(),
              HasSubstr(R"("names":["amount"])"));
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();

  // Once stored, the mapping is not committed again.
  absl::StatusOr<AddFilesResult> again = Add({"orders_c.parquet"});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->counters.schema_commits, 0);
}

TEST_P(AddFilesInteropTest, NanosecondTimestampsAreRefusedNamingTheColumn) {
  absl::StatusOr<AddFilesResult> result =
      Add({"events_ns.parquet", "orders_a.parquet"});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_THAT(ErrorFiles(*result), ElementsAre("events_ns.parquet"));
  EXPECT_THAT(result->errors[0].error,
              HasSubstr("column 'at': nanosecond timestamps (timestamptz_ns)"));
  EXPECT_THAT(result->errors[0].error, HasSubstr("microseconds"));
  const Json checked = Check({"orders_a.parquet"});
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
}

// A catalog's validation refusal is final: retrying it only delays the
// error (Iceberg's REST server refuses timestamp_ns in a v2 table).
TEST_P(AddFilesInteropTest, ACatalogsValidationRefusalIsNotRetried) {
  if (GetParam() != CatalogKind::kRest) GTEST_SKIP() << "REST only";
  absl::StatusOr<LoadedTable> created = catalog_->Create(
      table_, WithoutNameMapping(Schema{
                  0, {Optional(1, "at", Primitive(TypeKind::kTimestampNs))}}));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument)
      << created.status();
  EXPECT_THAT(created.status().message(), HasSubstr("timestamp_ns"));
}

TEST_P(AddFilesInteropTest, EachFileIsJudgedByItsOwnNullEvidence) {
  ASSERT_TRUE(catalog_
                  ->Create(table_, WithoutNameMapping(
                                       Schema{0,
                                              {Optional(1, "id", Long()),
                                               Required(2, "code", String())}}))
                  .ok());
  AddFilesOptions options = Evolving({EvolutionOption::kAllowFieldAddition});
  options.incompatible_schema_handling =
      IncompatibleSchemaHandling::kRouteToErrors;
  absl::StatusOr<AddFilesResult> result =
      Add({"codes_with_null.parquet", "codes_without_null.parquet"}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_THAT(ErrorFiles(*result), ElementsAre("codes_with_null.parquet"));
  EXPECT_THAT(result->errors[0].error, HasSubstr("allow-field-relaxation"));
  EXPECT_EQ(result->counters.data_files_added, 1);
  const Json checked = Check({"codes_without_null.parquet"});
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();
}

TEST_P(AddFilesInteropTest, ARelativeWarehouseWritesAbsoluteLocations) {
  if (GetParam() != CatalogKind::kFilesystem) GTEST_SKIP() << "filesystem";
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::remove_all(OutputDir() + "/relative-warehouse");
  std::filesystem::current_path(OutputDir());
  catalog_ = std::make_unique<FilesystemCatalog>("relative-warehouse/");
  absl::StatusOr<AddFilesResult> result = Add({"orders_a.parquet"});
  const std::string metadata_file = MetadataFile();
  std::filesystem::current_path(before);
  ASSERT_TRUE(result.ok()) << result.status();

  // Read from another working directory than the writer's.
  const std::string table_dir =
      OutputDir() + "/relative-warehouse/db/" + table_.name;
  EXPECT_THAT(metadata_file, HasSubstr(table_dir + "/metadata/"));
  absl::StatusOr<LoadedTable> loaded = catalog_->Load(table_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->metadata.location, table_dir);
  const Json checked = Check({"orders_a.parquet"});
  EXPECT_TRUE(checked["equal"]) << checked.dump();
  EXPECT_TRUE(checked["duckdb_equal"]) << checked.dump();

  // The same warehouse, spelled absolutely, finds the table.
  catalog_ =
      std::make_unique<FilesystemCatalog>(OutputDir() + "/relative-warehouse");
  EXPECT_EQ(MetadataFile(), metadata_file);
}

TEST_P(AddFilesInteropTest, ADirectoryNamedLikeAParquetFileIsAnErrorRow) {
  absl::StatusOr<AddFilesResult> result =
      Add({"spark_output.parquet", "orders_a.parquet"});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_THAT(ErrorFiles(*result), ElementsAre("spark_output.parquet"));
  EXPECT_THAT(result->errors[0].error, HasSubstr("is a directory"));
  EXPECT_THAT(result->errors[0].error, HasSubstr("part files"));
  EXPECT_EQ(result->counters.data_files_added, 1);
  EXPECT_TRUE(Check({"orders_a.parquet"})["equal"]);
}

}  // namespace
}  // namespace gcpstream::iceberg
