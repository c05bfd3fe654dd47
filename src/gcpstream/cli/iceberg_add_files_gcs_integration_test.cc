// `gcpstream iceberg add-files` with gs:// files on the Cloud Storage
// emulator the harness starts: the footers are read with ranged reads and
// the table records the same metrics as for the local copy of the file.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/cli/cli_test_util.h"
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

const std::string kDir = GCPSTREAM_TEST_OUTPUT_DIR;

TEST(IcebergAddFilesGcsTest, FooterMetricsFromGcsMatchTheLocalFile) {
  const std::string fixtures = kDir + "/fixtures";
  ASSERT_EQ(std::system(absl::StrCat(GCPSTREAM_PYTHON, " ",
                                     GCPSTREAM_ICEBERG_TESTDATA,
                                     "/write_add_files_fixtures.py ", fixtures)
                            .c_str()),
            0);
  auto host =
      ::gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kStorage);
  ASSERT_TRUE(host.ok()) << host.status();
  rest::RestClientOptions options;
  options.endpoint = absl::StrCat("http://", *host);
  rest::RestClient storage(options);
  ASSERT_TRUE(storage
                  .Send({.method = "POST",
                         .path = "/storage/v1/b?project=p",
                         .headers = {"Content-Type: application/json"},
                         .body = Json{{"name", "lake"}}.dump(),
                         .idempotent = false})
                  .ok());
  std::ifstream in(fixtures + "/orders_a.parquet", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  ASSERT_FALSE(bytes.empty());
  ASSERT_TRUE(storage
                  .Send({.method = "POST",
                         .path = "/upload/storage/v1/b/lake/o?uploadType=media&"
                                 "name=incoming/orders_a.parquet",
                         .headers = {"Content-Type: application/octet-stream"},
                         .body = bytes})
                  .ok());

  const std::string local_warehouse = kDir + "/gcs-local-warehouse";
  const std::string gcs_warehouse = kDir + "/gcs-warehouse";
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

}  // namespace
}  // namespace gcpstream::cli
