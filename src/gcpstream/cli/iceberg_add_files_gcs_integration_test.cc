// `gcpstream iceberg add-files` with gs:// files on the Cloud Storage
// emulator the harness starts: the footers are read with ranged reads and
// the table records the same metrics as for the local copy of the file; a
// gs:// warehouse holds a table that pyiceberg and DuckDB read back.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/cli/cli_test_util.h"
#include "gcpstream/iceberg/io/test_util.h"
#include "gcpstream/rest/rest_client.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

using ::gcpstream::cli::testing::Gcpstream;
using ::gcpstream::cli::testing::Outcome;
using ::testing::HasSubstr;
using Json = nlohmann::json;

const std::string kGcsDir =
    GCPSTREAM_TEST_OUTPUT_ROOT "/iceberg_add_files_gcs_integration_test_output";

class IcebergAddFilesGcsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(std::system(absl::StrCat(
                              GCPSTREAM_PYTHON, " ", GCPSTREAM_ICEBERG_TESTDATA,
                              "/write_add_files_fixtures.py ", fixtures_)
                              .c_str()),
              0);
    auto host = ::gcpstream::testing::TestEmulatorHost(
        emulators::EmulatorKind::kStorage);
    ASSERT_TRUE(host.ok()) << host.status();
    rest::RestClientOptions options;
    options.endpoint = absl::StrCat("http://", *host);
    rest::RestClient storage(options);
    auto created = storage.Send({.method = "POST",
                                 .path = "/storage/v1/b?project=p",
                                 .headers = {"Content-Type: application/json"},
                                 .body = Json{{"name", "lake"}}.dump(),
                                 .idempotent = false});
    ASSERT_TRUE(created.ok() ||
                created.status().code() == absl::StatusCode::kAborted)
        << created.status();
    for (const char* name : {"orders_a.parquet", "orders_c.parquet"}) {
      std::ifstream in(absl::StrCat(fixtures_, "/", name), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      ASSERT_FALSE(bytes.empty()) << name;
      ASSERT_TRUE(
          storage
              .Send({.method = "POST",
                     .path = absl::StrCat("/upload/storage/v1/b/lake/o?"
                                          "uploadType=media&name=incoming/",
                                          name),
                     .headers = {"Content-Type: application/octet-stream"},
                     .body = bytes})
              .ok());
    }
  }

  const std::string fixtures_ = kGcsDir + "/fixtures";
};

TEST_F(IcebergAddFilesGcsTest, FooterMetricsFromGcsMatchTheLocalFile) {
  const std::string fixtures = fixtures_;
  const std::string local_warehouse = kGcsDir + "/gcs-local-warehouse";
  const std::string gcs_warehouse = kGcsDir + "/gcs-warehouse";
  std::filesystem::remove_all(local_warehouse);
  std::filesystem::remove_all(gcs_warehouse);
  const Outcome local = Gcpstream(
      absl::StrCat("iceberg add-files --catalog ", local_warehouse,
                   " --table db.orders ", fixtures, "/orders_a.parquet"));
  ASSERT_EQ(local.exit_code, 0) << local.output;
  const Outcome from_gcs =
      Gcpstream(absl::StrCat("iceberg add-files --catalog ", gcs_warehouse,
                             " --table db.orders "
                             "gs://lake/incoming/orders_a.parquet"));
  ASSERT_EQ(from_gcs.exit_code, 0) << from_gcs.output;
  const Json local_result = Json::parse(local.output, nullptr, false);
  const Json gcs_result = Json::parse(from_gcs.output, nullptr, false);
  ASSERT_FALSE(gcs_result.is_discarded()) << from_gcs.output;
  EXPECT_EQ(gcs_result["counters"]["data_files_added"], 1);
  for (const char* field : {"added-records", "added-files-size"}) {
    EXPECT_EQ(gcs_result["snapshot"]["summary"][field],
              local_result["snapshot"]["summary"][field])
        << field;
  }

  const Outcome missing =
      Gcpstream(absl::StrCat("iceberg add-files --catalog ", gcs_warehouse,
                             " --table db.orders gs://lake/nothing.parquet"));
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.output, HasSubstr("gs://lake/nothing.parquet"));
}

TEST_F(IcebergAddFilesGcsTest, AGcsWarehouseIsReadBackByPyicebergAndDuckdb) {
  const std::string warehouse = "gs://lake/warehouse";
  for (const char* name : {"orders_a.parquet", "orders_c.parquet"}) {
    const Outcome added =
        Gcpstream(absl::StrCat("iceberg add-files --catalog ", warehouse,
                               " --table db.orders gs://lake/incoming/", name));
    ASSERT_EQ(added.exit_code, 0) << added.output;
  }
  // Version 1 creates the table, 2 and 3 add a file each.
  const std::string metadata =
      warehouse + "/db/orders/metadata/v3.metadata.json";
  const std::string out = iceberg::testing::CommandOutput(
      absl::StrCat(GCPSTREAM_PYTHON, " ", GCPSTREAM_ICEBERG_TESTDATA,
                   "/check_table.py ", metadata, " ", fixtures_,
                   "/orders_a.parquet ", fixtures_, "/orders_c.parquet"));
  const Json table = Json::parse(out, nullptr, false);
  ASSERT_FALSE(table.is_discarded()) << out;
  EXPECT_EQ(table["equal"], true) << out;
  EXPECT_EQ(table["duckdb_equal"], true) << out;
  EXPECT_EQ(table["snapshots"], 2) << out;
  ASSERT_EQ(table["files"].size(), 2u) << out;
  EXPECT_EQ(table["files"][0]["path"], "gs://lake/incoming/orders_a.parquet");

  // Adding the same file again is refused (already registered), and no
  // version is made.
  const Outcome again = Gcpstream(
      absl::StrCat("iceberg add-files --catalog ", warehouse,
                   " --table db.orders gs://lake/incoming/orders_a.parquet"));
  EXPECT_NE(again.exit_code, 0) << again.output;
  EXPECT_THAT(again.output, HasSubstr("orders_a.parquet"));
}

TEST_F(IcebergAddFilesGcsTest, AWarehouseWithoutABucketIsRefused) {
  const Outcome refused = Gcpstream(
      "iceberg add-files --catalog gs:// --table db.orders "
      "gs://lake/incoming/orders_a.parquet");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.output, HasSubstr("gs://BUCKET/PREFIX"));
}

}  // namespace
}  // namespace gcpstream::cli
