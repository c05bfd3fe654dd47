#include "gcpstream/iceberg/spec/manifest.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/io/file_io.h"
#include "gcpstream/iceberg/io/test_util.h"
#include "gcpstream/iceberg/parquet/parquet_footer.h"
#include "gcpstream/iceberg/parquet/parquet_schema.h"
#include "gcpstream/iceberg/spec/table_metadata.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::gcpstream::iceberg::testing::CommandOutput;
using ::testing::ElementsAre;

const std::string kManifestDir =
    GCPSTREAM_TEST_OUTPUT_ROOT "/manifest_test_output";

void Write(const std::string& path, const std::string& bytes) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// A table assembled from our manifest, manifest list and metadata writers
// over a file pyarrow wrote, read back through pyiceberg and DuckDB: every
// row of the file, through the manifests, by field id.
TEST(ManifestTest, PyicebergScansATableMadeOfOurManifests) {
  ASSERT_EQ(
      std::system(absl::StrCat(GCPSTREAM_PYTHON, " ",
                               GCPSTREAM_TESTDATA "/write_parquet_fixtures.py",
                               " ", kManifestDir, "/fixtures")
                      .c_str()),
      0);
  const std::string table = kManifestDir + "/table";
  std::filesystem::remove_all(table);
  const std::string data = table + "/data/flat.parquet";
  std::filesystem::create_directories(table + "/data");
  std::filesystem::copy_file(kManifestDir + "/fixtures/flat_with_ids.parquet",
                             data);

  LocalFileIO io;
  absl::StatusOr<ParquetFooter> footer = ReadParquetFooter(io, data);
  ASSERT_TRUE(footer.ok()) << footer.status();
  absl::StatusOr<Schema> schema = ConvertParquetSchema(*footer);
  ASSERT_TRUE(schema.ok()) << schema.status();

  ManifestEntry entry;
  entry.data_file.file_path = data;
  entry.data_file.record_count = footer->num_rows;
  entry.data_file.file_size_in_bytes = *io.Size(data);
  absl::StatusOr<std::string> manifest =
      WriteManifest(*schema, PartitionSpec(), {entry});
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  const std::string manifest_path = table + "/metadata/m0.avro";
  Write(manifest_path, *manifest);

  constexpr int64_t kSnapshot = 7'000'000'001;
  ManifestFile listed;
  listed.manifest_path = manifest_path;
  listed.manifest_length = static_cast<int64_t>(manifest->size());
  listed.sequence_number = 1;
  listed.min_sequence_number = 1;
  listed.added_snapshot_id = kSnapshot;
  listed.added_files_count = 1;
  listed.added_rows_count = footer->num_rows;
  const std::string list_path = table + "/metadata/snap-7000000001.avro";
  Write(list_path, WriteManifestList(kSnapshot, std::nullopt, 1, {listed}));

  TableMetadata metadata =
      NewTableMetadata("3b4c5d6e-0000-4000-8000-000000000001", table, *schema,
                       14, {}, 1'700'000'000'000);
  Snapshot snapshot;
  snapshot.snapshot_id = kSnapshot;
  snapshot.sequence_number = 1;
  snapshot.timestamp_ms = 1'700'000'000'001;
  snapshot.manifest_list = list_path;
  snapshot.summary = {{"operation", "append"},
                      {"added-data-files", "1"},
                      {"added-records", "10"}};
  metadata.snapshots.push_back(snapshot);
  metadata.current_snapshot_id = kSnapshot;
  metadata.last_sequence_number = 1;
  metadata.snapshot_log.push_back({snapshot.timestamp_ms, kSnapshot});
  const std::string metadata_path = table + "/metadata/v1.metadata.json";
  Write(metadata_path, TableMetadataToJson(metadata));

  const std::string output = CommandOutput(absl::StrCat(
      GCPSTREAM_PYTHON, " ", GCPSTREAM_TESTDATA "/scan_table.py", " ",
      metadata_path, " ", kManifestDir, "/fixtures/flat_with_ids.parquet"));
  ASSERT_FALSE(output.empty()) << "pyiceberg could not scan " << table;
  const nlohmann::json read = nlohmann::json::parse(output);
  EXPECT_EQ(read["rows"], 10);
  EXPECT_EQ(read["equal"], true) << output;
  EXPECT_EQ(read["duckdb_equal"], true) << output;
  EXPECT_EQ(read["operation"], "append");
  EXPECT_EQ(read["summary"]["added-data-files"], "1");
  EXPECT_THAT(read["files"], ElementsAre(data));
}

TEST(ManifestTest, SpecsAndPartitionsThatCannotBeWrittenAreRefused) {
  const Schema schema{0,
                      {Field{1, "id", true, Primitive(TypeKind::kLong), ""},
                       Field{2, "price", false, Decimal(9, 2), ""}}};
  PartitionSpec spec;
  spec.fields.push_back(PartitionField{9, 1000, "gone", "identity"});
  EXPECT_EQ(WriteManifest(schema, spec, {}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  spec.fields = {PartitionField{2, 1000, "price", "identity"}};
  EXPECT_EQ(WriteManifest(schema, spec, {}).status().code(),
            absl::StatusCode::kUnimplemented);
  spec.fields = {PartitionField{1, 1000, "id_bucket", "bucket[4]"}};
  ManifestEntry entry;
  entry.data_file.file_path = "/data/a.parquet";
  absl::StatusOr<std::string> manifest = WriteManifest(schema, spec, {entry});
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(manifest.status().message(),
              ::testing::HasSubstr("0 partition values for a spec of 1"));
}

}  // namespace
}  // namespace gcpstream::iceberg
