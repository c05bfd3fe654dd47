// Access tokens against loopback fixtures: a token endpoint that verifies
// the service-account JWT with the key's public half, the refresh-token
// grant, a metadata server, the default lookup order, the cache (refresh
// ahead, one fetch under concurrency, an endpoint down), and no secret in
// any error or log line.

#include "gcpstream/auth/token_source.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/auth/cached_token_source.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/auth/credentials_options.h"
#include "gcpstream/testing/http_receiver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

namespace gcpstream::auth {
namespace {

namespace fs = std::filesystem;
using ::gcpstream::testing::HttpAnswer;
using ::gcpstream::testing::HttpReceiver;
using ::gcpstream::testing::ReceivedRequest;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

constexpr char kAccessToken[] = "ya29.planted-access-token";
constexpr char kRefreshToken[] = "1//planted-refresh-token";
constexpr char kClientSecret[] = "planted-client-secret";
constexpr char kEmail[] = "writer@shop.iam.gserviceaccount.com";

struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyDeleter>;

std::string PrivatePem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const auto length = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(length));
  BIO_free(bio);
  return pem;
}

bool Verifies(EVP_PKEY* key, absl::string_view signing_input,
              const std::string& signature) {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  const bool ok =
      EVP_DigestVerifyInit(context, nullptr, EVP_sha256(), nullptr, key) == 1 &&
      EVP_DigestVerify(
          context, reinterpret_cast<const unsigned char*>(signature.data()),
          signature.size(),
          reinterpret_cast<const unsigned char*>(signing_input.data()),
          signing_input.size()) == 1;
  EVP_MD_CTX_free(context);
  return ok;
}

// The value of `name` in a form-encoded body (values here need no decoding
// beyond what the test checks).
std::string FormField(const std::string& body, absl::string_view name) {
  for (absl::string_view pair : absl::StrSplit(body, '&')) {
    if (absl::ConsumePrefix(&pair, absl::StrCat(name, "="))) {
      return std::string(pair);
    }
  }
  return "";
}

class TokenSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    key_.reset(EVP_RSA_gen(2048));
    ASSERT_NE(key_, nullptr);
    dir_ = ::testing::TempDir() + "/tokens-" + std::to_string(getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    log_ = std::make_shared<std::ostringstream>();
    previous_ = spdlog::default_logger();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>(
        "captured", std::make_shared<spdlog::sinks::ostream_sink_mt>(*log_)));
    for (const char* variable : {"GOOGLE_APPLICATION_CREDENTIALS",
                                 "CLOUDSDK_CONFIG", "GCE_METADATA_HOST"}) {
      unsetenv(variable);
    }
  }
  void TearDown() override {
    spdlog::set_default_logger(previous_);
    // Nothing planted may appear in what was logged.
    for (const std::string& secret : Secrets()) {
      EXPECT_THAT(log_->str(), Not(HasSubstr(secret)));
    }
    fs::remove_all(dir_);
  }

  std::vector<std::string> Secrets() const {
    std::string pem = PrivatePem(key_.get());
    // A line from the middle of the key's base64 body.
    std::vector<std::string> lines = absl::StrSplit(pem, '\n');
    return {kAccessToken, kRefreshToken, kClientSecret, lines[3]};
  }

  void ExpectNoSecret(absl::string_view text) const {
    for (const std::string& secret : Secrets()) {
      EXPECT_THAT(text, Not(HasSubstr(secret)));
    }
  }

  std::string WriteJson(const std::string& name, const Json& json,
                        mode_t mode = 0600) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << json.dump();
    chmod(path.c_str(), mode);
    return path;
  }

  std::string ServiceAccountKey(const std::string& token_uri,
                                mode_t mode = 0600) const {
    return WriteJson("key.json",
                     {{"type", "service_account"},
                      {"project_id", "shop"},
                      {"private_key_id", "k1"},
                      {"private_key", PrivatePem(key_.get())},
                      {"client_email", kEmail},
                      {"token_uri", token_uri}},
                     mode);
  }

  // A token endpoint that accepts only JWTs this test's key signed.
  HttpAnswer VerifyJwt(const ReceivedRequest& request) {
    const std::string assertion = FormField(request.body, "assertion");
    std::vector<std::string> parts = absl::StrSplit(assertion, '.');
    std::string claims_json;
    std::string signature;
    if (parts.size() != 3 ||
        FormField(request.body, "grant_type") !=
            "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer" ||
        !absl::WebSafeBase64Unescape(parts[1], &claims_json) ||
        !absl::WebSafeBase64Unescape(parts[2], &signature) ||
        !Verifies(key_.get(), absl::StrCat(parts[0], ".", parts[1]),
                  signature)) {
      return {400,
              R"({"error":"invalid_grant","error_description":"bad JWT"})"};
    }
    const Json claims = Json::parse(claims_json);
    if (claims["iss"] != kEmail || claims["scope"] != kCloudPlatformScope ||
        claims["exp"].get<int64_t>() - claims["iat"].get<int64_t>() != 3600) {
      return {400, R"({"error":"invalid_grant","error_description":"claims"})"};
    }
    ++verified_;
    return {200, absl::StrCat(R"({"access_token":")", kAccessToken,
                              R"(","expires_in":3599,"token_type":"Bearer"})")};
  }

  Key key_;
  std::string dir_;
  std::shared_ptr<std::ostringstream> log_;
  std::shared_ptr<spdlog::logger> previous_;
  std::atomic<int> verified_{0};
};

TEST_F(TokenSourceTest, AServiceAccountKeyIsExchangedForAToken) {
  auto endpoint = HttpReceiver::Start(
      [this](const ReceivedRequest& request) { return VerifyJwt(request); });
  ASSERT_TRUE(endpoint.ok());
  auto source = TokenSourceFromFile(ServiceAccountKey(
      absl::StrCat("http://127.0.0.1:", (*endpoint)->port(), "/token")));
  ASSERT_TRUE(source.ok()) << source.status();
  absl::StatusOr<AccessToken> token = (*source)->Fetch();
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->value, kAccessToken);
  EXPECT_GT(token->expiry, absl::Now() + absl::Minutes(59));
  EXPECT_EQ(verified_, 1);
  EXPECT_THAT((*source)->Describe(), HasSubstr(kEmail));
  ExpectNoSecret((*source)->Describe());
  const auto received = (*endpoint)->WaitFor(1, absl::Seconds(1));
  EXPECT_EQ(received[0].headers.at("content-type"),
            "application/x-www-form-urlencoded");
}

TEST_F(TokenSourceTest, TheKeyFileOptionGivesEachGrpcCallTokenAndQuotaProject) {
  auto endpoint = HttpReceiver::Start(
      [this](const ReceivedRequest& request) { return VerifyJwt(request); });
  ASSERT_TRUE(endpoint.ok());
  const CredentialsOptions options{
      .service_account_key_file = ServiceAccountKey(
          absl::StrCat("http://127.0.0.1:", (*endpoint)->port(), "/token")),
      .quota_project = "billing-project"};
  auto tokens = TokensFor(options);
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  auto metadata = CallCredentialsMetadata(**tokens, options.quota_project);
  ASSERT_TRUE(metadata.ok()) << metadata.status();
  EXPECT_THAT(*metadata,
              ::testing::ElementsAre(
                  std::pair<std::string, std::string>(
                      "authorization", absl::StrCat("Bearer ", kAccessToken)),
                  std::pair<std::string, std::string>("x-goog-user-project",
                                                      "billing-project")));
  // Every client naming the same file shares one cache (one fetch).
  auto again = TokensFor(options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), tokens->get());
  ASSERT_TRUE(CallCredentialsMetadata(**again, "").ok());
  EXPECT_EQ(verified_, 1);
}

TEST_F(TokenSourceTest, AMissingKeyFileIsNamedWithItsOption) {
  auto tokens =
      TokensFor({.service_account_key_file = dir_ + "/no-such-key.json"});
  ASSERT_FALSE(tokens.ok());
  EXPECT_THAT(tokens.status().message(), HasSubstr("service-account-key-file"));
  EXPECT_THAT(tokens.status().message(), HasSubstr("no-such-key.json"));
}

TEST_F(TokenSourceTest, AKeyFileWithAnEmulatorIsRefused) {
  setenv("PUBSUB_EMULATOR_HOST", "127.0.0.1:8085", 1);
  auto channel = MakeChannel(
      Service::kPubSub,
      {.credentials = {.service_account_key_file =
                           ServiceAccountKey("http://127.0.0.1:1/token")}});
  unsetenv("PUBSUB_EMULATOR_HOST");
  EXPECT_EQ(channel.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(channel.status().message(),
              HasSubstr("service-account-key-file is set but 127.0.0.1:8085"));
}

TEST_F(TokenSourceTest, AWorldReadableKeyFileWarns) {
  auto source =
      TokenSourceFromFile(ServiceAccountKey("http://127.0.0.1:1", 0644));
  ASSERT_TRUE(source.ok());
  EXPECT_THAT(log_->str(), HasSubstr("readable by every user"));
}

TEST_F(TokenSourceTest, ABadKeyIsAClearErrorWithoutKeyMaterial) {
  const std::string path =
      WriteJson("bad.json", {{"type", "service_account"},
                             {"client_email", kEmail},
                             {"private_key",
                              "-----BEGIN PRIVATE KEY-----\nplanted-"
                              "broken-key\n-----END PRIVATE KEY-----\n"},
                             {"token_uri", "http://127.0.0.1:1/token"}});
  auto source = TokenSourceFromFile(path);
  ASSERT_TRUE(source.ok());
  absl::StatusOr<AccessToken> token = (*source)->Fetch();
  EXPECT_EQ(token.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(token.status().message(), HasSubstr("not an RSA private key"));
  EXPECT_THAT(token.status().message(), Not(HasSubstr("planted-broken-key")));
}

TEST_F(TokenSourceTest, UserCredentialsUseTheRefreshTokenGrant) {
  bool expired = false;
  auto endpoint = HttpReceiver::Start([&](const ReceivedRequest& request) {
    if (FormField(request.body, "grant_type") != "refresh_token" ||
        FormField(request.body, "client_secret") != kClientSecret) {
      return HttpAnswer{400, R"({"error":"invalid_request"})"};
    }
    if (expired) {
      return HttpAnswer{
          400, R"({"error":"invalid_grant",)"
               R"("error_description":"Token has been expired or revoked."})"};
    }
    return HttpAnswer{200, absl::StrCat(R"({"access_token":")", kAccessToken,
                                        R"(","expires_in":3600})")};
  });
  ASSERT_TRUE(endpoint.ok());
  const std::string path = WriteJson(
      "adc.json",
      {{"type", "authorized_user"},
       {"client_id", "client.apps.googleusercontent.com"},
       {"client_secret", kClientSecret},
       {"refresh_token", kRefreshToken},
       {"token_uri",
        absl::StrCat("http://127.0.0.1:", (*endpoint)->port(), "/token")}});
  auto source = TokenSourceFromFile(path);
  ASSERT_TRUE(source.ok()) << source.status();
  absl::StatusOr<AccessToken> token = (*source)->Fetch();
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->value, kAccessToken);

  expired = true;
  token = (*source)->Fetch();
  EXPECT_EQ(token.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(token.status().message(), HasSubstr("expired or revoked"));
  EXPECT_THAT(token.status().message(),
              HasSubstr("gcloud auth application-default login"));
  ExpectNoSecret(token.status().message());
}

TEST_F(TokenSourceTest, TheMetadataServerServesTheDefaultAccount) {
  auto metadata = HttpReceiver::Start([](const ReceivedRequest& request) {
    if (!request.headers.contains("metadata-flavor") ||
        !absl::StartsWith(
            request.target,
            "/computeMetadata/v1/instance/service-accounts/default/token")) {
      return HttpAnswer{403, ""};
    }
    return HttpAnswer{200, absl::StrCat(R"({"access_token":")", kAccessToken,
                                        R"(","expires_in":1800})")};
  });
  ASSERT_TRUE(metadata.ok());
  setenv("GCE_METADATA_HOST",
         absl::StrCat("127.0.0.1:", (*metadata)->port()).c_str(), 1);
  // No file anywhere: the lookup ends at the metadata server.
  setenv("CLOUDSDK_CONFIG", dir_.c_str(), 1);
  auto source = DefaultTokenSource();
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_THAT((*source)->Describe(), HasSubstr("metadata server"));
  absl::StatusOr<AccessToken> token = (*source)->Fetch();
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->value, kAccessToken);
  EXPECT_THAT((*metadata)->WaitFor(1, absl::Seconds(1))[0].target,
              HasSubstr("scopes=https%3A%2F%2Fwww.googleapis.com"));
}

TEST_F(TokenSourceTest, TheLookupPrefersTheVariableThenGcloudsFile) {
  setenv("GCE_METADATA_HOST", "127.0.0.1:1", 1);
  setenv("CLOUDSDK_CONFIG", dir_.c_str(), 1);
  WriteJson("application_default_credentials.json",
            {{"type", "authorized_user"},
             {"client_id", "c"},
             {"client_secret", kClientSecret},
             {"refresh_token", kRefreshToken}});
  auto from_gcloud = DefaultTokenSource();
  ASSERT_TRUE(from_gcloud.ok()) << from_gcloud.status();
  EXPECT_THAT((*from_gcloud)->Describe(), HasSubstr("gcloud user credentials"));
  setenv("GOOGLE_APPLICATION_CREDENTIALS",
         ServiceAccountKey("http://127.0.0.1:1").c_str(), 1);
  auto from_variable = DefaultTokenSource();
  ASSERT_TRUE(from_variable.ok()) << from_variable.status();
  EXPECT_THAT((*from_variable)->Describe(), HasSubstr(kEmail));
  unsetenv("GOOGLE_APPLICATION_CREDENTIALS");
}

TEST_F(TokenSourceTest, ExternalAccountsAreRefusedAsNotSupportedYet) {
  auto source = TokenSourceFromFile(WriteJson(
      "external.json",
      {{"type", "external_account"}, {"audience", "//iam.googleapis.com/x"}}));
  EXPECT_EQ(source.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(source.status().message(), HasSubstr("not support yet"));
}

TEST_F(TokenSourceTest, TheCacheRefreshesAheadInTheBackground) {
  auto endpoint = HttpReceiver::Start(
      [this](const ReceivedRequest& request) { return VerifyJwt(request); });
  ASSERT_TRUE(endpoint.ok());
  auto source = TokenSourceFromFile(ServiceAccountKey(
      absl::StrCat("http://127.0.0.1:", (*endpoint)->port(), "/token")));
  ASSERT_TRUE(source.ok());
  // Every token is inside the refresh window at once.
  CachedTokenSource cache(*std::move(source),
                          {.refresh_ahead = absl::Hours(2)});
  ASSERT_TRUE(cache.Get().ok());
  ASSERT_TRUE(cache.Get().ok());  // Valid: returned, and refreshed behind.
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (cache.fetches() < 2 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(cache.fetches(), 2);
}

TEST_F(TokenSourceTest, ConcurrentCallersShareOneFetch) {
  auto endpoint = HttpReceiver::Start([this](const ReceivedRequest& request) {
    absl::SleepFor(absl::Milliseconds(200));
    return VerifyJwt(request);
  });
  ASSERT_TRUE(endpoint.ok());
  auto source = TokenSourceFromFile(ServiceAccountKey(
      absl::StrCat("http://127.0.0.1:", (*endpoint)->port(), "/token")));
  ASSERT_TRUE(source.ok());
  CachedTokenSource cache(*std::move(source));
  std::vector<std::thread> callers;
  callers.reserve(8);
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    callers.emplace_back([&] {
      if (cache.Get().ok()) ++ok;
    });
  }
  for (std::thread& caller : callers) caller.join();
  EXPECT_EQ(ok, 8);
  EXPECT_EQ(cache.fetches(), 1);
  EXPECT_EQ(verified_, 1);
}

TEST_F(TokenSourceTest, AnEndpointDownIsUnauthenticatedAfterTheBudget) {
  // Nothing listens on the receiver's port once it is gone.
  int port = 0;
  {
    auto gone = HttpReceiver::Start();
    ASSERT_TRUE(gone.ok());
    port = (*gone)->port();
  }
  auto source = TokenSourceFromFile(
      ServiceAccountKey(absl::StrCat("http://127.0.0.1:", port, "/token")));
  ASSERT_TRUE(source.ok());
  CachedTokenSource cache(
      *std::move(source),
      {.retry = {.max_attempts = 3,
                 .total_timeout = absl::Seconds(10),
                 .backoff = {.initial_delay = absl::Milliseconds(1),
                             .max_delay = absl::Milliseconds(5),
                             .multiplier = 2}}});
  absl::StatusOr<AccessToken> token = cache.Get();
  EXPECT_EQ(token.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(token.status().message(), HasSubstr("after 3 attempts"));
  EXPECT_THAT(token.status().message(), HasSubstr(kEmail));
  ExpectNoSecret(token.status().message());
  EXPECT_EQ(cache.fetches(), 3);
}

}  // namespace
}  // namespace gcpstream::auth
