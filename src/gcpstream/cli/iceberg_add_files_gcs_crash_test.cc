// Crashed add-files runs (iceberg_add_files_crash_test_support.h) with gs://
// data files and a gs:// warehouse on the Cloud Storage emulator: the catalog's
// commit point is an upload with ifGenerationMatch=0.

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/cli/iceberg_add_files_crash_test_support.h"
#include "gcpstream/storage/storage_client.h"
#include "gcpstream/testing/test_emulators.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

using Json = nlohmann::json;

const std::string kGcsCrashDir =
    GCPSTREAM_TEST_OUTPUT_ROOT "/iceberg_add_files_gcs_crash_test_output";
constexpr char kBucket[] = "crash-lake";
constexpr int kGcsCrashFiles = 60;

class GcsLocation final : public testing::CrashLocation {
 public:
  explicit GcsLocation(storage::StorageClient client)
      : client_(std::move(client)) {}

  std::string FreshWarehouse(const std::string& name) override {
    auto objects = client_.List(kBucket, name + "/");
    EXPECT_TRUE(objects.ok()) << objects.status();
    for (const storage::ObjectMetadata& object :
         objects.value_or(std::vector<storage::ObjectMetadata>{})) {
      EXPECT_TRUE(client_.Delete(kBucket, object.name).ok());
    }
    return absl::StrCat("gs://", kBucket, "/", name);
  }
  bool Exists(const std::string& uri) override {
    const std::string prefix = absl::StrCat("gs://", kBucket, "/");
    return client_.Stat(kBucket, uri.substr(prefix.size())).ok();
  }

 private:
  storage::StorageClient client_;
};

TEST(IcebergAddFilesGcsCrashTest,
     KilledRunsLoseNothingAndRegisterNothingTwice) {
  auto host =
      ::gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kStorage);
  ASSERT_TRUE(host.ok()) << host.status();
  rest::RestClientOptions options;
  options.endpoint = absl::StrCat("http://", *host);
  rest::RestClient rest(options);
  ASSERT_TRUE(rest.Send({.method = "POST",
                         .path = "/storage/v1/b?project=p",
                         .headers = {"Content-Type: application/json"},
                         .body = Json{{"name", kBucket}}.dump(),
                         .idempotent = false})
                  .ok());
  storage::StorageClient client(rest);

  ASSERT_EQ(std::system(absl::StrCat(GCPSTREAM_PYTHON, " ",
                                     GCPSTREAM_ICEBERG_TESTDATA,
                                     "/write_many_parquet_files.py ",
                                     kGcsCrashDir, "/files ", kGcsCrashFiles)
                            .c_str()),
            0);
  const std::string listing = kGcsCrashDir + "/files/gcs-listing.txt";
  std::ofstream uris(listing);
  for (int i = 0; i < kGcsCrashFiles; ++i) {
    char name[32];
    snprintf(name, sizeof(name), "part-%03d.parquet", i);
    std::ifstream in(absl::StrCat(kGcsCrashDir, "/files/", name),
                     std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    ASSERT_TRUE(
        client.Upload(kBucket, absl::StrCat("incoming/", name), bytes).ok());
    uris << "gs://" << kBucket << "/incoming/" << name << "\n";
  }
  uris.close();

  GcsLocation location(client);
  testing::RunAddFilesCrashes(location, {.listing = listing,
                                         .files = kGcsCrashFiles,
                                         .crashes = 8,
                                         .targeted_crashes = 3,
                                         .log_dir = kGcsCrashDir});
}

}  // namespace
}  // namespace gcpstream::cli
