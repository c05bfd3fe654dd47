#include "gcpstream/iceberg/catalog/filesystem_catalog.h"

#include <filesystem>
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
using ::testing::HasSubstr;

class FilesystemCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    warehouse_ = absl::StrCat(
        GCPSTREAM_TEST_OUTPUT_ROOT "/filesystem_catalog_test_output",
        "/warehouse-",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(warehouse_);
  }

  TableMetadata Fresh() const {
    return NewTableMetadata(
        "0f0e0d0c-0b0a-4908-8706-050403020100", catalog_.TableLocation(table_),
        Schema{0, {Field{1, "id", true, Primitive(TypeKind::kLong), ""}}}, 1,
        {}, 1'700'000'000'000);
  }

  // `base` with one more (empty) snapshot, as a data commit would add.
  static TableMetadata WithSnapshot(const LoadedTable& base, int64_t id) {
    TableMetadata next = base.metadata;
    Snapshot snapshot;
    snapshot.snapshot_id = id;
    snapshot.parent_snapshot_id = next.current_snapshot_id;
    snapshot.sequence_number = next.last_sequence_number + 1;
    snapshot.timestamp_ms = next.last_updated_ms + 1;
    snapshot.manifest_list = absl::StrCat(next.location, "/metadata/snap.avro");
    snapshot.summary = {{"operation", "append"}};
    next.snapshots.push_back(snapshot);
    next.current_snapshot_id = id;
    next.last_sequence_number = snapshot.sequence_number;
    next.last_updated_ms = snapshot.timestamp_ms;
    return next;
  }

  std::string warehouse_;
  FilesystemCatalog catalog_{""};
  TableIdentifier table_{{"db"}, "orders"};

  void UseWarehouse() { catalog_ = FilesystemCatalog(warehouse_); }
};

TEST_F(FilesystemCatalogTest, CreateLoadAndCommitVersionsInOrder) {
  UseWarehouse();
  EXPECT_EQ(catalog_.Load(table_).status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<LoadedTable> created =
      catalog_.CreateMetadata(table_, Fresh());
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->version, 1);
  EXPECT_EQ(catalog_.CreateMetadata(table_, Fresh()).status().code(),
            absl::StatusCode::kAborted);

  absl::StatusOr<LoadedTable> loaded = catalog_.Load(table_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(TableMetadataToJson(loaded->metadata),
            TableMetadataToJson(created->metadata));

  absl::StatusOr<LoadedTable> second =
      catalog_.CommitMetadata(table_, *loaded, WithSnapshot(*loaded, 11));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->version, 2);
  loaded = catalog_.Load(table_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->version, 2);
  EXPECT_EQ(loaded->metadata.current_snapshot_id, 11);
  ASSERT_EQ(loaded->metadata.metadata_log.size(), 1U);
  EXPECT_THAT(loaded->metadata.metadata_log[0].metadata_file,
              HasSubstr("/db/orders/metadata/v1.metadata.json"));

  // pyiceberg reads the latest version.
  const nlohmann::json read = nlohmann::json::parse(CommandOutput(absl::StrCat(
      GCPSTREAM_PYTHON, " ", GCPSTREAM_TESTDATA "/read_table_metadata.py", " ",
      loaded->metadata_file)));
  EXPECT_EQ(read["current_snapshot_id"], 11);
  EXPECT_EQ(read["main"], 11);
}

TEST_F(FilesystemCatalogTest, OfTwoCommitsFromOneVersionOnlyTheFirstWins) {
  UseWarehouse();
  ASSERT_TRUE(catalog_.CreateMetadata(table_, Fresh()).ok());
  absl::StatusOr<LoadedTable> base = catalog_.Load(table_);
  ASSERT_TRUE(base.ok());
  ASSERT_TRUE(
      catalog_.CommitMetadata(table_, *base, WithSnapshot(*base, 21)).ok());
  absl::StatusOr<LoadedTable> late =
      catalog_.CommitMetadata(table_, *base, WithSnapshot(*base, 22));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(late.status().message(), HasSubstr("reload the table"));
  absl::StatusOr<LoadedTable> now = catalog_.Load(table_);
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->metadata.current_snapshot_id, 21);
  // No staged file is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(
           catalog_.TableLocation(table_) + "/metadata")) {
    EXPECT_THAT(entry.path().string(), ::testing::Not(HasSubstr(".tmp")));
  }
}

TEST_F(FilesystemCatalogTest, AMissingOrLaggingHintStillFindsTheLatest) {
  UseWarehouse();
  ASSERT_TRUE(catalog_.CreateMetadata(table_, Fresh()).ok());
  absl::StatusOr<LoadedTable> base = catalog_.Load(table_);
  ASSERT_TRUE(base.ok());
  ASSERT_TRUE(
      catalog_.CommitMetadata(table_, *base, WithSnapshot(*base, 31)).ok());
  const std::string hint =
      catalog_.TableLocation(table_) + "/metadata/version-hint.text";
  std::ofstream(hint) << "1";
  EXPECT_EQ(catalog_.Load(table_)->version, 2);
  std::filesystem::remove(hint);
  EXPECT_EQ(catalog_.Load(table_)->version, 2);
}

TEST_F(FilesystemCatalogTest, FieldsOutsideTheModelSurviveACommit) {
  UseWarehouse();
  ASSERT_TRUE(catalog_.CreateMetadata(table_, Fresh()).ok());
  // Another writer's metadata: a tag, a sort order and statistics.
  const std::string v2 =
      catalog_.TableLocation(table_) + "/metadata/v2.metadata.json";
  nlohmann::ordered_json foreign =
      nlohmann::ordered_json::parse(TableMetadataToJson(Fresh()));
  foreign["refs"] = nlohmann::ordered_json::parse(
      R"json({"audit": {"snapshot-id": 5, "type": "tag"}})json");
  foreign["sort-orders"] = nlohmann::ordered_json::parse(
      R"json([{"order-id": 1, "fields": [{"transform": "identity",
      "source-id": 1, "direction": "asc", "null-order": "nulls-first"}]}])json");
  foreign["default-sort-order-id"] = 1;
  foreign["statistics"] = nlohmann::ordered_json::array();
  std::ofstream(v2) << foreign.dump();

  absl::StatusOr<LoadedTable> base = catalog_.Load(table_);
  ASSERT_TRUE(base.ok()) << base.status();
  absl::StatusOr<LoadedTable> next =
      catalog_.CommitMetadata(table_, *base, WithSnapshot(*base, 41));
  ASSERT_TRUE(next.ok()) << next.status();
  std::ifstream in(next->metadata_file);
  const nlohmann::json written = nlohmann::json::parse(in);
  EXPECT_EQ(written["refs"]["audit"]["type"], "tag");
  EXPECT_EQ(written["refs"]["main"]["snapshot-id"], 41);
  EXPECT_EQ(written["default-sort-order-id"], 1);
  EXPECT_EQ(written["sort-orders"][0]["order-id"], 1);
  EXPECT_TRUE(written.contains("statistics"));
}

TEST(TableMetadataFromJsonTest, RefusesOtherVersionsAndMalformedFiles) {
  EXPECT_EQ(TableMetadataFromJson(R"({"format-version": 1})").status().code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(TableMetadataFromJson("not json").status().code(),
            absl::StatusCode::kDataLoss);
  absl::StatusOr<TableMetadata> missing =
      TableMetadataFromJson(R"({"format-version": 2, "table-uuid": "u"})");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(missing.status().message(), HasSubstr("location"));
}

}  // namespace
}  // namespace gcpstream::iceberg
