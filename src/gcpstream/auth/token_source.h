#ifndef GCPSTREAM_AUTH_TOKEN_SOURCE_H_
#define GCPSTREAM_AUTH_TOKEN_SOURCE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gcpstream::auth {

// An OAuth2 access token for REST calls ("Authorization: Bearer ...").
// Never logged.
struct AccessToken {
  std::string value;
  absl::Time expiry = absl::InfinitePast();
};

// Where access tokens come from: one exchange per Fetch(), no caching (see
// CachedTokenSource). Errors say which credentials failed and how to fix
// them, and never carry key material, tokens or refresh tokens. A failure
// that may pass (the endpoint unreachable, a 5xx, 429) is Unavailable;
// credentials the endpoint refuses are Unauthenticated.
class TokenSource {
 public:
  virtual ~TokenSource() = default;
  virtual absl::StatusOr<AccessToken> Fetch() = 0;
  // What the credentials are, for logs and errors: "service account
  // x@p.iam.gserviceaccount.com (key file /path)", never a secret.
  virtual std::string Describe() const = 0;
};

// The scope every Google Cloud API accepts.
inline constexpr char kCloudPlatformScope[] =
    "https://www.googleapis.com/auth/cloud-platform";

// The credentials in a JSON file: a service-account key (an RS256 JWT
// exchanged at the key's token_uri) or gcloud's authorized_user file (the
// refresh-token grant). An external_account file is refused as not
// supported yet. A world-readable key file logs a warning.
absl::StatusOr<std::unique_ptr<TokenSource>> TokenSourceFromFile(
    const std::string& path,
    std::vector<std::string> scopes = {kCloudPlatformScope});

// The metadata server of the VM, GKE node or Cloud Run instance the process
// runs on; GCE_METADATA_HOST names another (host:port, plaintext).
std::unique_ptr<TokenSource> MetadataTokenSource(
    std::vector<std::string> scopes = {kCloudPlatformScope});

// The lookup every Google client does: GOOGLE_APPLICATION_CREDENTIALS,
// then gcloud's application_default_credentials.json (under
// $CLOUDSDK_CONFIG, else ~/.config/gcloud), then the metadata server.
absl::StatusOr<std::unique_ptr<TokenSource>> DefaultTokenSource(
    std::vector<std::string> scopes = {kCloudPlatformScope});

}  // namespace gcpstream::auth

#endif  // GCPSTREAM_AUTH_TOKEN_SOURCE_H_
