#include "gcpstream/rest/rest_client.h"

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/auth/user_agent.h"
#include "gcpstream/rest/rest_target.h"
#include "gcpstream/testing/captured_log.h"
#include "gcpstream/testing/http_receiver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::rest {
namespace {

using ::gcpstream::testing::CapturedLog;
using ::gcpstream::testing::HttpAnswer;
using ::gcpstream::testing::HttpReceiver;
using ::gcpstream::testing::ReceivedRequest;
using ::testing::HasSubstr;
using ::testing::Not;

class FixedTokens final : public auth::TokenSource {
 public:
  explicit FixedTokens(absl::Status status = absl::OkStatus())
      : status_(std::move(status)) {}
  absl::StatusOr<auth::AccessToken> Fetch() override {
    if (!status_.ok()) return status_;
    return auth::AccessToken{.value = "planted-token",
                             .expiry = absl::Now() + absl::Hours(1)};
  }
  std::string Describe() const override { return "fixed tokens"; }

 private:
  absl::Status status_;
};

// Answers the scripted statuses in order, then 200.
struct Script {
  std::vector<int> statuses;
  std::atomic<size_t> next{0};
  HttpAnswer operator()(const ReceivedRequest&) {
    const size_t i = next++;
    if (i < statuses.size()) {
      return {statuses[i],
              absl::StrCat(R"({"error":{"code":)", statuses[i],
                           R"(,"message":"scripted refusal )", i, R"("}})")};
    }
    return {200, R"({"kind":"storage#object"})"};
  }
};

RestClientOptions Options(int port) {
  RestClientOptions options;
  options.endpoint = absl::StrCat("http://127.0.0.1:", port);
  options.retry.backoff.initial_delay = absl::Milliseconds(1);
  options.retry.backoff.max_delay = absl::Milliseconds(2);
  options.sleep = [](absl::Duration) { return absl::OkStatus(); };
  return options;
}

// Options that authenticate with FixedTokens' "planted-token".
RestClientOptions OptionsWithTokens(int port) {
  RestClientOptions options = Options(port);
  options.tokens = std::make_shared<auth::CachedTokenSource>(
      std::make_unique<FixedTokens>());
  return options;
}

TEST(RestClientTest, SendsTheBearerTokenUserAgentAndQuotaProject) {
  auto server = HttpReceiver::Start();
  ASSERT_TRUE(server.ok());
  RestClientOptions options = OptionsWithTokens((*server)->port());
  options.quota_project = "billing-project";
  RestClient client(options);
  auto response = client.Send({.path = "/storage/v1/b/bucket/o"});
  ASSERT_TRUE(response.ok()) << response.status();
  const ReceivedRequest request = (*server)->WaitFor(1, absl::Seconds(1))[0];
  EXPECT_EQ(request.target, "/storage/v1/b/bucket/o");
  EXPECT_EQ(request.headers.at("authorization"), "Bearer planted-token");
  EXPECT_EQ(request.headers.at("user-agent"), auth::UserAgent());
  EXPECT_THAT(auth::UserAgent(), ::testing::StartsWith("gcpstream/"));
  EXPECT_EQ(request.headers.at("x-goog-user-project"), "billing-project");
}

// SPDLOG_LEVEL=debug shows REST calls as it shows gRPC calls; the token in
// the Authorization header never appears.
TEST(RestClientTest, DebugLogsEachCallWithoutItsHeaders) {
  auto server = HttpReceiver::Start();
  ASSERT_TRUE(server.ok());
  RestClientOptions options = OptionsWithTokens((*server)->port());
  RestClient client(options);
  CapturedLog log(spdlog::level::debug);
  auto response = client.Send(
      {.method = "POST", .path = "/upload/x", .body = "0123456789"});
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_THAT(log.str(), HasSubstr(absl::StrCat(
                             "rest: POST http://127.0.0.1:", (*server)->port(),
                             "/upload/x start: 10 bytes")));
  EXPECT_THAT(log.str(), HasSubstr("/upload/x end: HTTP 200 after "));
  EXPECT_THAT(log.str(), Not(HasSubstr("planted-token")));
}

TEST(RestClientTest, WithoutTokensNoAuthorizationIsSent) {
  auto server = HttpReceiver::Start();
  ASSERT_TRUE(server.ok());
  RestClient client(Options((*server)->port()));
  ASSERT_TRUE(client.Send({.path = "/x"}).ok());
  EXPECT_FALSE((*server)->WaitFor(1, absl::Seconds(1))[0].headers.contains(
      "authorization"));
}

TEST(RestClientTest, TransientAnswersOfIdempotentRequestsAreRetried) {
  Script script{.statuses = {503, 500, 429, 408}};
  auto server = HttpReceiver::Start(std::ref(script));
  ASSERT_TRUE(server.ok());
  RestClient client(Options((*server)->port()));
  auto response = client.Send({.method = "PUT", .path = "/x"});
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ((*server)->WaitFor(5, absl::Seconds(1)).size(), 5u);
}

TEST(RestClientTest, ANonIdempotentPostIsRetriedOnlyWhenRefusedUntouched) {
  Script unavailable{.statuses = {503}};
  auto server = HttpReceiver::Start(std::ref(unavailable));
  ASSERT_TRUE(server.ok());
  RestClient client(Options((*server)->port()));
  auto response =
      client.Send({.method = "POST", .path = "/x", .idempotent = false});
  EXPECT_EQ(response.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(unavailable.next, 1u);

  Script quota{.statuses = {429}};
  auto quota_server = HttpReceiver::Start(std::ref(quota));
  ASSERT_TRUE(quota_server.ok());
  RestClient quota_client(Options((*quota_server)->port()));
  EXPECT_TRUE(
      quota_client.Send({.method = "POST", .path = "/x", .idempotent = false})
          .ok());
  EXPECT_EQ(quota.next, 2u);
}

TEST(RestClientTest, RefusalsCarryTheMappedCodeAndTheApisMessage) {
  Script script{.statuses = {404}};
  auto server = HttpReceiver::Start(std::ref(script));
  ASSERT_TRUE(server.ok());
  RestClientOptions options = OptionsWithTokens((*server)->port());
  RestClient client(options);
  auto response = client.Send({.path = "/storage/v1/b/b/o/missing"});
  EXPECT_EQ(response.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(response.status().message(), HasSubstr("HTTP 404"));
  EXPECT_THAT(response.status().message(), HasSubstr("scripted refusal 0"));
  EXPECT_THAT(response.status().message(), Not(HasSubstr("planted-token")));
  EXPECT_EQ(script.next, 1u);  // Not retried.
}

TEST(RestClientTest, RetriesEndWithTheLastErrorMarkedExhausted) {
  Script script{.statuses = {503, 503, 503, 503, 503, 503, 503, 503}};
  auto server = HttpReceiver::Start(std::ref(script));
  ASSERT_TRUE(server.ok());
  RestClientOptions options = Options((*server)->port());
  options.retry.max_attempts = 3;
  RestClient client(options);
  auto response = client.Send({.path = "/x"});
  EXPECT_EQ(response.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(IsRetryExhausted(response.status()));
  EXPECT_EQ(script.next, 3u);
}

TEST(RestClientTest, NoTokenIsUnauthenticatedAndNothingIsSent) {
  auto server = HttpReceiver::Start();
  ASSERT_TRUE(server.ok());
  RestClientOptions options = Options((*server)->port());
  options.tokens =
      std::make_shared<auth::CachedTokenSource>(std::make_unique<FixedTokens>(
          absl::UnauthenticatedError("refused: invalid_grant")));
  RestClient client(options);
  auto response = client.Send({.path = "/x"});
  EXPECT_EQ(response.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE((*server)->WaitFor(1, absl::Milliseconds(100)).empty());
}

TEST(RestClientTest, HttpStatusesMapToGrpcCodes) {
  const std::pair<int, absl::StatusCode> expected[] = {
      {200, absl::StatusCode::kOk},
      {308, absl::StatusCode::kOk},
      {400, absl::StatusCode::kInvalidArgument},
      {401, absl::StatusCode::kUnauthenticated},
      {403, absl::StatusCode::kPermissionDenied},
      {404, absl::StatusCode::kNotFound},
      {408, absl::StatusCode::kDeadlineExceeded},
      {409, absl::StatusCode::kAborted},
      {412, absl::StatusCode::kFailedPrecondition},
      {416, absl::StatusCode::kOutOfRange},
      {418, absl::StatusCode::kFailedPrecondition},
      {429, absl::StatusCode::kResourceExhausted},
      {499, absl::StatusCode::kCancelled},
      {500, absl::StatusCode::kInternal},
      {501, absl::StatusCode::kUnimplemented},
      {502, absl::StatusCode::kUnavailable},
      {503, absl::StatusCode::kUnavailable},
      {504, absl::StatusCode::kDeadlineExceeded},
      {599, absl::StatusCode::kUnavailable}};
  for (const auto& [status, code] : expected) {
    EXPECT_EQ(CodeOfHttpStatus(status), code) << status;
  }
}

TEST(RestTargetTest, AnEmulatorVariableMeansPlaintextWithoutCredentials) {
  setenv("GCPSTREAM_TEST_EMULATOR_HOST", "127.0.0.1:4443", 1);
  auto options = ResolveRestTarget(
      {.production_endpoint = "https://example.googleapis.com",
       .emulator_env = "GCPSTREAM_TEST_EMULATOR_HOST"},
      {});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->endpoint, "http://127.0.0.1:4443");
  EXPECT_EQ(options->tokens, nullptr);

  // An explicit endpoint wins.
  options = ResolveRestTarget(
      {.production_endpoint = "https://example.googleapis.com",
       .emulator_env = "GCPSTREAM_TEST_EMULATOR_HOST"},
      {.endpoint = "http://127.0.0.1:9000/"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->endpoint, "http://127.0.0.1:9000");
  unsetenv("GCPSTREAM_TEST_EMULATOR_HOST");
}

TEST(RestTargetTest, AKeyFileWithAPlaintextEndpointIsRefused) {
  auto options = ResolveRestTarget(
      {.production_endpoint = "https://example.googleapis.com",
       .emulator_env = ""},
      {.endpoint = "http://127.0.0.1:9000",
       .credentials = {.service_account_key_file = "/secrets/key.json"}});
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(),
              ::testing::HasSubstr("service-account-key-file"));
}

TEST(RestTargetTest, AnEndpointMustBeAUrl) {
  auto options = ResolveRestTarget(
      {.production_endpoint = "https://example.googleapis.com",
       .emulator_env = ""},
      {.endpoint = "storage.example.com:443"});
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(), ::testing::HasSubstr("https://"));
}

}  // namespace
}  // namespace gcpstream::rest
