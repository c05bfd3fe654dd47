#include "gcpstream/rest/rest_target.h"

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::rest {
namespace {

std::string WithScheme(absl::string_view endpoint) {
  std::string url(endpoint);
  while (absl::EndsWith(url, "/")) url.pop_back();
  if (absl::StartsWith(url, "http://") || absl::StartsWith(url, "https://")) {
    return url;
  }
  return absl::StrCat("http://", url);
}

}  // namespace

absl::StatusOr<RestClientOptions> ResolveRestTarget(
    const RestService& service, const RestTargetOptions& options) {
  RestClientOptions client;
  std::string endpoint;
  if (!options.endpoint.empty()) {
    if (!absl::StartsWith(options.endpoint, "http://") &&
        !absl::StartsWith(options.endpoint, "https://")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "endpoint '", options.endpoint,
          "' is not a URL: write https://host[:port] (or http:// for a "
          "local server without credentials)"));
    }
    endpoint = WithScheme(options.endpoint);
  } else if (const char* emulator =
                 service.emulator_env.empty()
                     ? nullptr
                     : std::getenv(service.emulator_env.c_str());
             emulator != nullptr && *emulator != '\0') {
    endpoint = WithScheme(emulator);
  } else {
    endpoint = service.production_endpoint;
  }
  client.endpoint = endpoint;
  if (absl::StartsWith(endpoint, "http://")) {
    if (absl::Status refused =
            auth::CheckNoCredentialsForPlaintext(options.credentials, endpoint);
        !refused.ok()) {
      return refused;
    }
    return client;
  }
  absl::StatusOr<std::shared_ptr<auth::CachedTokenSource>> tokens =
      auth::TokensFor(options.credentials);
  if (!tokens.ok()) return tokens.status();
  client.tokens = *std::move(tokens);
  client.quota_project = options.credentials.quota_project;
  return client;
}

}  // namespace gcpstream::rest
