// How a REST catalog is authenticated (catalog-auth): Google access tokens
// from the application-default credentials (here a loopback metadata
// server), the quota project and the user agent on every request; the
// option's errors.

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gcpstream/auth/user_agent.h"
#include "gcpstream/iceberg/catalog/catalog_spec.h"
#include "gcpstream/testing/http_receiver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::gcpstream::testing::HttpAnswer;
using ::gcpstream::testing::HttpReceiver;
using ::gcpstream::testing::ReceivedRequest;
using ::testing::HasSubstr;

constexpr char kToken[] = "ya29.planted-catalog-token";

TEST(RestCatalogAuthTest, GoogleTokensQuotaProjectAndUserAgentReachTheCatalog) {
  auto metadata_server = HttpReceiver::Start([](const ReceivedRequest&) {
    return HttpAnswer{200, absl::StrCat(R"({"access_token":")", kToken,
                                        R"(","expires_in":3600})")};
  });
  ASSERT_TRUE(metadata_server.ok());
  auto catalog_server = HttpReceiver::Start([](const ReceivedRequest& request) {
    if (!request.headers.contains("authorization")) {
      return HttpAnswer{401, R"({"error":{"message":"no token"}})"};
    }
    return HttpAnswer{200, R"({"defaults":{},"overrides":{}})"};
  });
  ASSERT_TRUE(catalog_server.ok());
  // No credentials file anywhere: the lookup ends at the metadata server.
  const std::string empty_config = ::testing::TempDir() + "/no-gcloud-config";
  std::filesystem::create_directories(empty_config);
  unsetenv("GOOGLE_APPLICATION_CREDENTIALS");
  setenv("CLOUDSDK_CONFIG", empty_config.c_str(), 1);
  setenv("GCE_METADATA_HOST",
         absl::StrCat("127.0.0.1:", (*metadata_server)->port()).c_str(), 1);

  auto catalog = OpenCatalog(
      {.catalog = absl::StrCat("http://127.0.0.1:", (*catalog_server)->port()),
       .rest_warehouse = "gs://lake",
       .token_env = "",
       .catalog_auth = "google",
       .credentials = {.quota_project = "billing-project"}});
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  const auto requests = (*catalog_server)->WaitFor(1, absl::Seconds(2));
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "/v1/config?warehouse=gs%3A%2F%2Flake");
  EXPECT_EQ(requests[0].headers.at("authorization"),
            absl::StrCat("Bearer ", kToken));
  EXPECT_EQ(requests[0].headers.at("x-goog-user-project"), "billing-project");
  EXPECT_EQ(requests[0].headers.at("user-agent"), auth::UserAgent());

  // Without catalog-auth a plain http catalog gets no token.
  auto plain = OpenCatalog(
      {.catalog = absl::StrCat("http://127.0.0.1:", (*catalog_server)->port()),
       .rest_warehouse = "",
       .token_env = "",
       .catalog_auth = "",
       .credentials = {}});
  EXPECT_EQ(plain.status().code(), absl::StatusCode::kUnauthenticated)
      << plain.status();
}

TEST(RestCatalogAuthTest, AGoogleApisCatalogTakesGoogleTokensByDefault) {
  // The key file is looked for before anything is sent: no request leaves
  // the machine.
  auto catalog = OpenCatalog(
      {.catalog = "https://biglake.googleapis.com/iceberg/v1/restcatalog",
       .rest_warehouse = "gs://lake",
       .token_env = "",
       .catalog_auth = "",
       .credentials = {.service_account_key_file = "/no/such/key.json"}});
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(),
              HasSubstr("service-account-key-file"));
  EXPECT_THAT(catalog.status().message(), HasSubstr("/no/such/key.json"));
}

TEST(RestCatalogAuthTest, ConflictingOrUnknownSettingsAreRefused) {
  setenv("GCPSTREAM_TEST_CATALOG_TOKEN", "static", 1);
  auto both = OpenCatalog({.catalog = "http://127.0.0.1:1",
                           .rest_warehouse = "",
                           .token_env = "GCPSTREAM_TEST_CATALOG_TOKEN",
                           .catalog_auth = "google",
                           .credentials = {}});
  EXPECT_EQ(both.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(both.status().message(), HasSubstr("keep one"));
  auto unknown = OpenCatalog({.catalog = "http://127.0.0.1:1",
                              .rest_warehouse = "",
                              .token_env = "",
                              .catalog_auth = "oauth",
                              .credentials = {}});
  EXPECT_THAT(unknown.status().message(), HasSubstr("google, none"));
  auto filesystem = OpenCatalog({.catalog = ::testing::TempDir(),
                                 .rest_warehouse = "",
                                 .token_env = "",
                                 .catalog_auth = "google",
                                 .credentials = {}});
  EXPECT_THAT(filesystem.status().message(),
              HasSubstr("apply to REST catalogs only"));
}

}  // namespace
}  // namespace gcpstream::iceberg
