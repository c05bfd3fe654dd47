// The REST client against the Cloud Storage emulator (fake-gcs-server) the
// harness starts: the JSON API calls the Cloud Storage client will make,
// and the emulator's deviations from the service, pinned.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/rest/rest_client.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::rest {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

class StorageEmulatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = ::gcpstream::testing::TestEmulatorHost(
        emulators::EmulatorKind::kStorage);
    ASSERT_TRUE(host.ok()) << host.status();
    RestClientOptions options;
    options.endpoint = absl::StrCat("http://", *host);
    options.retry.max_attempts = 2;
    client_.emplace(options);
    auto created = client_->Send({.method = "POST",
                                  .path = "/storage/v1/b?project=p",
                                  .headers = {"Content-Type: application/json"},
                                  .body = Json{{"name", kBucket}}.dump(),
                                  .idempotent = false});
    // A bucket left by an earlier test of this binary answers 409.
    ASSERT_TRUE(created.ok() ||
                created.status().code() == absl::StatusCode::kAborted)
        << created.status();
  }

  absl::StatusOr<http::HttpResponse> Upload(const std::string& name,
                                            const std::string& data,
                                            const std::string& condition = "") {
    return client_->Send(
        {.method = "POST",
         .path = absl::StrCat("/upload/storage/v1/b/", kBucket,
                              "/o?uploadType=media&name=", name, condition),
         .headers = {"Content-Type: application/octet-stream"},
         .body = data,
         .idempotent = !condition.empty()});
  }

  static constexpr char kBucket[] = "rest-test";
  std::optional<RestClient> client_;
};

TEST_F(StorageEmulatorTest, UploadReadRangeListAndDelete) {
  auto uploaded = Upload("dir/a.txt", "hello, storage");
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  const Json object = Json::parse(uploaded->body);
  EXPECT_EQ(object["size"], "14");
  EXPECT_TRUE(object.contains("crc32c"));
  EXPECT_TRUE(object.contains("generation"));

  auto range = client_->Send({.path = absl::StrCat("/storage/v1/b/", kBucket,
                                                   "/o/dir%2Fa.txt?alt=media"),
                              .headers = {"Range: bytes=7-13"}});
  ASSERT_TRUE(range.ok()) << range.status();
  EXPECT_EQ(range->status, 206);
  EXPECT_EQ(range->body, "storage");

  ASSERT_TRUE(Upload("dir/b.txt", "b").ok());
  ASSERT_TRUE(Upload("other.txt", "c").ok());
  auto listed = client_->Send(
      {.path = absl::StrCat("/storage/v1/b/", kBucket, "/o?prefix=dir/")});
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(Json::parse(listed->body)["items"].size(), 2u);

  auto deleted = client_->Send(
      {.method = "DELETE",
       .path = absl::StrCat("/storage/v1/b/", kBucket, "/o/other.txt")});
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  // The service answers 204 without a body; the emulator 200 with "null".
  EXPECT_EQ(deleted->status, 200);
}

TEST_F(StorageEmulatorTest, GenerationZeroRefusesAnOverwrite) {
  ASSERT_TRUE(Upload("once.txt", "first").ok());
  auto again = Upload("once.txt", "second", "&ifGenerationMatch=0");
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.status().message(), HasSubstr("HTTP 412"));
}

TEST_F(StorageEmulatorTest, AMissingObjectIsNotFound) {
  auto missing = client_->Send(
      {.path = absl::StrCat("/storage/v1/b/", kBucket, "/o/nothing-here")});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("HTTP 404"));
}

}  // namespace
}  // namespace gcpstream::rest
