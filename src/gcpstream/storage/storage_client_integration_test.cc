// The Cloud Storage client against fake-gcs-server (started by the
// harness), and CRC32C mismatches against a loopback fake that corrupts
// what it serves.

#include "gcpstream/storage/storage_client.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
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

// Bytes no chunk boundary hides: every position differs from its
// neighbours.
std::string Patterned(size_t size) {
  std::string data(size, '\0');
  for (size_t i = 0; i < size; ++i) {
    data[i] = static_cast<char>((i * 131 + i / 251) % 256);
  }
  return data;
}

TEST_F(StorageClientTest, EveryUploadTypeRoundTrips) {
  const std::string data = Patterned(600 * 1024 + 17);
  for (const auto& [type, label] :
       std::vector<std::pair<UploadType, std::string>>{
           {UploadType::kSimple, "simple"},
           {UploadType::kMultipart, "multipart"},
           {UploadType::kResumable, "resumable"}}) {
    SCOPED_TRACE(label);
    const std::string name = absl::StrCat("uploads/", label, ".bin");
    auto uploaded = client_->Upload(
        kBucket, name, data, {.type = type, .chunk_size = int64_t{256} * 1024});
    ASSERT_TRUE(uploaded.ok()) << uploaded.status();
    EXPECT_EQ(uploaded->size, static_cast<int64_t>(data.size()));
    auto read = client_->Read(kBucket, name);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_TRUE(*read == data);
  }
  // An empty object is a session and one final, empty chunk.
  auto empty = client_->Upload(kBucket, "uploads/empty.bin", "",
                               {.type = UploadType::kResumable});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->size, 0);
}

TEST_F(StorageClientTest, AResumableUploadKeepsTheGenerationCondition) {
  UploadOptions once{.if_generation_match = 0,
                     .type = UploadType::kResumable,
                     .chunk_size = int64_t{256} * 1024};
  const std::string first = Patterned(size_t{300} * 1024);
  ASSERT_TRUE(client_->Upload(kBucket, "resumable/once", first, once).ok());
  auto again = client_->Upload(kBucket, "resumable/once", "other", once);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  auto kept = client_->Read(kBucket, "resumable/once");
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(*kept == first);
}

TEST_F(StorageClientTest, BadChunkSizeIsRefusedBeforeAnyRequest) {
  auto refused =
      client_->Upload(kBucket, "never", "x",
                      {.type = UploadType::kResumable, .chunk_size = 1000});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("256 KiB"));
}

// The service's side of a resumable session, as a fake that loses the
// second chunk halfway: the connection breaks after it stored the first
// 100 KiB of that chunk. fake-gcs-server cannot stand in here: it
// finalizes an upload when asked for its status.
class BrokenChunkService {
 public:
  explicit BrokenChunkService(std::string expected)
      : expected_(std::move(expected)) {}

  HttpAnswer Answer(const ReceivedRequest& request) {
    if (request.method == "POST") {
      return HttpAnswer{
          .status = 200,
          .body = "",
          .headers = {absl::StrCat("Location: http://127.0.0.1:", port,
                                   "/session/secret-upload-id")}};
    }
    const std::string range = request.headers.at("content-range");
    if (absl::StartsWith(range, "bytes */")) {
      ++status_queries;
      return Incomplete();
    }
    int64_t first = 0;
    int64_t last = 0;
    int64_t total = 0;
    const std::vector<std::string> numbers = absl::StrSplit(
        absl::StripPrefix(range, "bytes "), absl::ByAnyChar("-/"));
    if (numbers.size() != 3 || !absl::SimpleAtoi(numbers[0], &first) ||
        !absl::SimpleAtoi(numbers[1], &last) ||
        !absl::SimpleAtoi(numbers[2], &total)) {
      return HttpAnswer{400, "bad Content-Range"};
    }
    chunk_offsets.push_back(first);
    if (first != static_cast<int64_t>(stored_.size())) {
      return HttpAnswer{400, "chunk does not start where the data ends"};
    }
    if (chunk_offsets.size() == 2) {
      stored_ += request.body.substr(0, size_t{100} * 1024);
      return HttpAnswer{.status = 0, .body = "", .drop_connection = true};
    }
    stored_ += request.body;
    if (static_cast<int64_t>(stored_.size()) < total) return Incomplete();
    return HttpAnswer{200, Json{{"bucket", "b"},
                                {"name", "o"},
                                {"size", std::to_string(stored_.size())},
                                {"generation", "1"},
                                {"crc32c", Crc32cBase64(Crc32c(stored_))}}
                               .dump()};
  }

  const std::string& stored() const { return stored_; }

  int port = 0;
  int status_queries = 0;
  std::vector<int64_t> chunk_offsets;

 private:
  HttpAnswer Incomplete() const {
    HttpAnswer answer{.status = 308, .body = ""};
    if (!stored_.empty()) {
      answer.headers.push_back(
          absl::StrCat("Range: bytes=0-", stored_.size() - 1));
    }
    return answer;
  }

  const std::string expected_;
  std::string stored_;
};

TEST(StorageClientResumableTest, ABrokenChunkResumesWhereTheServiceStopped) {
  const std::string data = Patterned(1024 * 1024 + 5);
  BrokenChunkService service(data);
  auto server = HttpReceiver::Start(
      [&](const ReceivedRequest& request) { return service.Answer(request); });
  ASSERT_TRUE(server.ok());
  service.port = (*server)->port();
  StorageClient client(rest::RestClient(
      Options(absl::StrCat("http://127.0.0.1:", service.port))));
  auto uploaded = client.Upload(
      "b", "o", data,
      {.type = UploadType::kResumable, .chunk_size = int64_t{256} * 1024});
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  EXPECT_TRUE(service.stored() == data);
  EXPECT_EQ(service.status_queries, 1);
  // The third chunk starts where the service's copy ended, mid-chunk.
  EXPECT_THAT(service.chunk_offsets,
              ElementsAre(0, 256 * 1024, 356 * 1024, 612 * 1024, 868 * 1024));
}

TEST(StorageClientResumableTest, TheSessionUriStaysOutOfErrors) {
  auto server = HttpReceiver::Start([&](const ReceivedRequest& request) {
    if (request.method == "POST") {
      return HttpAnswer{.status = 200,
                        .body = "",
                        .headers = {"Location: http://127.0.0.1:1/"
                                    "session/secret-upload-id"}};
    }
    return HttpAnswer{403, "{}"};
  });
  ASSERT_TRUE(server.ok());
  StorageClient client(rest::RestClient(
      Options(absl::StrCat("http://127.0.0.1:", (*server)->port()))));
  auto uploaded =
      client.Upload("b", "o", "abc", {.type = UploadType::kResumable});
  ASSERT_FALSE(uploaded.ok());
  EXPECT_THAT(uploaded.status().message(),
              HasSubstr("the resumable upload of gs://b/o"));
  EXPECT_THAT(std::string(uploaded.status().message()),
              ::testing::Not(HasSubstr("secret-upload-id")));
}

TEST(StorageClientCrcTest, ASimpleUploadStoredDamagedIsDeletedAndDataLoss) {
  auto server = HttpReceiver::Start([](const ReceivedRequest& request) {
    if (request.method == "DELETE") return HttpAnswer{204, ""};
    return HttpAnswer{200, Json{{"bucket", "b"},
                                {"name", "o"},
                                {"size", "3"},
                                {"generation", "42"},
                                {"crc32c", Crc32cBase64(Crc32c("abd"))}}
                               .dump()};
  });
  ASSERT_TRUE(server.ok());
  StorageClient client(rest::RestClient(
      Options(absl::StrCat("http://127.0.0.1:", (*server)->port()))));
  auto uploaded = client.Upload("b", "o", "abc", {.type = UploadType::kSimple});
  EXPECT_EQ(uploaded.status().code(), absl::StatusCode::kDataLoss);
  const auto received = (*server)->WaitFor(2, absl::Seconds(2));
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[1].method, "DELETE");
  EXPECT_THAT(received[1].target, HasSubstr("ifGenerationMatch=42"));
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
