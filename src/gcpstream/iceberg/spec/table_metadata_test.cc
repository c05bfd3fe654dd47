#include "gcpstream/iceberg/spec/table_metadata.h"

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/io/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::gcpstream::iceberg::testing::CommandOutput;

Field Make(int id, const std::string& name, bool required, Type type) {
  return Field{id, name, required, std::move(type), ""};
}

TableMetadata Sample() {
  Schema schema{
      0,
      {Make(1, "id", true, Primitive(TypeKind::kLong)),
       Make(2, "amount", false, Decimal(10, 2)),
       Make(3, "tags", false,
            List(Make(5, "element", true, Primitive(TypeKind::kString)))),
       Make(4, "attrs", false,
            Map(Make(6, "key", true, Primitive(TypeKind::kString)),
                Make(7, "value", false, Fixed(4))))}};
  TableMetadata metadata = NewTableMetadata(
      "9c12d441-03fe-4693-9a96-a0705ddf69c1", "/warehouse/db/orders",
      std::move(schema), 7, {{"owner", "gcpstream"}}, 1'700'000'000'000);
  Schema evolved = metadata.schemas[0];
  evolved.schema_id = 1;
  evolved.fields.push_back(
      Make(8, "at", false, Primitive(TypeKind::kTimestampTz)));
  metadata.schemas.push_back(evolved);
  metadata.current_schema_id = 1;
  metadata.last_column_id = 8;
  for (int64_t i = 1; i <= 2; ++i) {
    Snapshot snapshot;
    snapshot.snapshot_id = 1000 + i;
    if (i > 1) snapshot.parent_snapshot_id = 1000 + i - 1;
    snapshot.sequence_number = i;
    snapshot.timestamp_ms = 1'700'000'000'000 + i;
    snapshot.manifest_list =
        absl::StrCat("/warehouse/db/orders/metadata/snap-", 1000 + i, ".avro");
    snapshot.summary = {{"operation", "append"}, {"added-data-files", "1"}};
    snapshot.schema_id = 1;
    metadata.snapshots.push_back(snapshot);
    metadata.snapshot_log.push_back({snapshot.timestamp_ms, 1000 + i});
  }
  metadata.current_snapshot_id = 1002;
  metadata.last_sequence_number = 2;
  metadata.metadata_log.push_back(
      {1'700'000'000'000, "/warehouse/db/orders/metadata/v1.metadata.json"});
  return metadata;
}

// pyiceberg parses what we write against its model of the spec.
TEST(TableMetadataTest, PyicebergReadsEveryField) {
  const std::string path =
      absl::StrCat(GCPSTREAM_TEST_OUTPUT_ROOT "/table_metadata_test_output",
                   "/v3.metadata.json");
  std::ofstream(path) << TableMetadataToJson(Sample());
  const std::string output = CommandOutput(
      absl::StrCat(GCPSTREAM_PYTHON, " ",
                   GCPSTREAM_TESTDATA "/read_table_metadata.py", " ", path));
  ASSERT_FALSE(output.empty()) << "pyiceberg refused " << path;
  const nlohmann::json read = nlohmann::json::parse(output);
  EXPECT_EQ(read["format_version"], 2);
  EXPECT_EQ(read["table_uuid"], "9c12d441-03fe-4693-9a96-a0705ddf69c1");
  EXPECT_EQ(read["location"], "/warehouse/db/orders");
  EXPECT_EQ(read["last_column_id"], 8);
  EXPECT_EQ(read["current_schema_id"], 1);
  EXPECT_EQ(read["fields"], nlohmann::json::parse(R"json([
      [1, "id", "long", true],
      [2, "amount", "decimal(10, 2)", false],
      [3, "tags", "list<string>", false],
      [4, "attrs", "map<string, fixed[4]>", false],
      [8, "at", "timestamptz", false]])json"));
  EXPECT_EQ(read["highest_field_id"], 8);
  EXPECT_EQ(read["spec_fields"], 0);
  EXPECT_EQ(read["last_partition_id"], 999);
  EXPECT_EQ(read["current_snapshot_id"], 1002);
  EXPECT_EQ(read["main"], 1002);
  EXPECT_EQ(read["snapshots"], nlohmann::json::parse(R"json([
      [1001, null, 1, "/warehouse/db/orders/metadata/snap-1001.avro", "append"],
      [1002, 1001, 2, "/warehouse/db/orders/metadata/snap-1002.avro",
       "append"]])json"));
  EXPECT_EQ(read["snapshot_log"].size(), 2U);
  EXPECT_EQ(read["metadata_log"][0][0],
            "/warehouse/db/orders/metadata/v1.metadata.json");
  EXPECT_EQ(read["properties"]["owner"], "gcpstream");
}

TEST(TableMetadataTest, ANewTableHasNoSnapshotAndAnEmptyMainRef) {
  const TableMetadata fresh = NewTableMetadata(
      "u", "/t", Schema{0, {Make(1, "x", false, Primitive(TypeKind::kInt))}}, 1,
      {}, 5);
  const nlohmann::json json = nlohmann::json::parse(TableMetadataToJson(fresh));
  EXPECT_FALSE(json.contains("current-snapshot-id"));
  EXPECT_EQ(json["refs"], nlohmann::json::object());
  EXPECT_EQ(json["partition-specs"][0]["spec-id"], 0);
  EXPECT_EQ(json["sort-orders"][0]["order-id"], 0);
  ASSERT_NE(fresh.CurrentSchema(), nullptr);
  EXPECT_EQ(fresh.CurrentSchema()->fields[0].name, "x");
}

}  // namespace
}  // namespace gcpstream::iceberg
