// The Cloud Storage client against fake-gcs-server (started by the
// harness), and CRC32C mismatches against a loopback fake that corrupts
// what it serves.

#include "gcpstream/storage/storage_client.h"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/storage/crc32c.h"
#include "gcpstream/testing/http_receiver.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::storage {
namespace {

using ::gcpstream::testing::HttpAnswer;
using ::gcpstream::testing::HttpReceiver;
using ::gcpstream::testing::ReceivedRequest;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::json;

constexpr char kBucket[] = "storage-client-test";

rest::RestClientOptions Options(const std::string& endpoint) {
  rest::RestClientOptions options;
  options.endpoint = endpoint;
  options.retry.max_attempts = 2;
  options.sleep = [](absl::Duration) { return absl::OkStatus(); };
  return options;
}

TEST(Crc32cTest, MatchesTheStandardCheckValue) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c("56789", Crc32c("1234")), 0xE3069283u);
  // Cloud Storage's form: base64 of the big-endian bytes.
  EXPECT_EQ(Crc32cBase64(0xE3069283u), "4waSgw==");
}

class StorageClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = ::gcpstream::testing::TestEmulatorHost(
        emulators::EmulatorKind::kStorage);
    ASSERT_TRUE(host.ok()) << host.status();
    const std::string endpoint = absl::StrCat("http://", *host);
    rest::RestClient rest(Options(endpoint));
    auto created = rest.Send({.method = "POST",
                              .path = "/storage/v1/b?project=p",
                              .headers = {"Content-Type: application/json"},
                              .body = Json{{"name", kBucket}}.dump(),
                              .idempotent = false});
    ASSERT_TRUE(created.ok() ||
                created.status().code() == absl::StatusCode::kAborted)
        << created.status();
    client_.emplace(rest::RestClient(Options(endpoint)));
  }

  std::optional<StorageClient> client_;
};

TEST_F(StorageClientTest, UploadReadStatListComposeDelete) {
  const std::string name = "warehouse/db/t/data/part 0001.parquet";
  const std::string data = "PAR1 some bytes \r\n--not-a-boundary PAR1";
  auto uploaded = client_->Upload(kBucket, name, data);
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  EXPECT_EQ(uploaded->name, name);
  EXPECT_EQ(uploaded->size, static_cast<int64_t>(data.size()));
  ASSERT_TRUE(uploaded->crc32c.has_value());
  EXPECT_EQ(*uploaded->crc32c, Crc32c(data));

  auto read = client_->Read(kBucket, name);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, data);
  auto tail = client_->ReadRange(kBucket, name,
                                 static_cast<int64_t>(data.size()) - 4, 4);
  ASSERT_TRUE(tail.ok()) << tail.status();
  EXPECT_EQ(*tail, "PAR1");

  ASSERT_TRUE(
      client_
          ->Upload(kBucket, "warehouse/db/t/data/part 0002.parquet", "second")
          .ok());
  ASSERT_TRUE(client_->Upload(kBucket, "elsewhere.txt", "x").ok());
  auto listed = client_->List(kBucket, "warehouse/db/t/data/");
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::vector<std::string> names;
  for (const ObjectMetadata& object : *listed) names.push_back(object.name);
  EXPECT_THAT(names, ElementsAre("warehouse/db/t/data/part 0001.parquet",
                                 "warehouse/db/t/data/part 0002.parquet"));

  auto composed = client_->Compose(kBucket,
                                   {"warehouse/db/t/data/part 0001.parquet",
                                    "warehouse/db/t/data/part 0002.parquet"},
                                   "composed.bin");
  ASSERT_TRUE(composed.ok()) << composed.status();
  auto whole = client_->Read(kBucket, "composed.bin");
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(*whole, data + "second");

  ASSERT_TRUE(client_->Delete(kBucket, "elsewhere.txt").ok());
  EXPECT_EQ(client_->Stat(kBucket, "elsewhere.txt").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(StorageClientTest, GenerationZeroCreatesOnlyOnce) {
  UploadOptions once{.if_generation_match = 0};
  ASSERT_TRUE(client_->Upload(kBucket, "metadata/v1.json", "{}", once).ok());
  auto again = client_->Upload(kBucket, "metadata/v1.json", "{ }", once);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  auto kept = client_->Read(kBucket, "metadata/v1.json");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, "{}");
}

TEST(StorageClientCrcTest, CorruptedBytesAreDataLoss) {
  const std::string good = "the object as written";
  auto server = HttpReceiver::Start([&](const ReceivedRequest& request) {
    if (absl::StrContains(request.target, "alt=media")) {
      return HttpAnswer{200, "the object, tampered"};
    }
    return HttpAnswer{200, Json{{"bucket", "b"},
                                {"name", "o"},
                                {"size", std::to_string(good.size())},
                                {"generation", "7"},
                                {"crc32c", Crc32cBase64(Crc32c(good))}}
                               .dump()};
  });
  ASSERT_TRUE(server.ok());
  StorageClient client(rest::RestClient(
      Options(absl::StrCat("http://127.0.0.1:", (*server)->port()))));
  auto read = client.Read("b", "o");
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(), HasSubstr("gs://b/o"));
  EXPECT_THAT(read.status().message(), HasSubstr("CRC32C"));
}

TEST(StorageClientCrcTest, AnUploadAnsweredWithAnotherChecksumIsDataLoss) {
  auto server = HttpReceiver::Start([](const ReceivedRequest&) {
    return HttpAnswer{200, Json{{"bucket", "b"},
                                {"name", "o"},
                                {"size", "3"},
                                {"generation", "1"},
                                {"crc32c", Crc32cBase64(Crc32c("abd"))}}
                               .dump()};
  });
  ASSERT_TRUE(server.ok());
  StorageClient client(rest::RestClient(
      Options(absl::StrCat("http://127.0.0.1:", (*server)->port()))));
  auto uploaded = client.Upload("b", "o", "abc");
  EXPECT_EQ(uploaded.status().code(), absl::StatusCode::kDataLoss);
  const auto received = (*server)->WaitFor(1, absl::Seconds(1));
  ASSERT_EQ(received.size(), 1u);
  // The checksum went with the upload, for the service to verify too.
  EXPECT_THAT(received[0].body, HasSubstr(Crc32cBase64(Crc32c("abc"))));
  EXPECT_THAT(received[0].headers.at("content-type"),
              HasSubstr("multipart/related; boundary="));
}

}  // namespace
}  // namespace gcpstream::storage
