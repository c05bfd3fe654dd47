#ifndef GCPSTREAM_AUTH_CREDENTIALS_OPTIONS_H_
#define GCPSTREAM_AUTH_CREDENTIALS_OPTIONS_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <grpcpp/security/credentials.h>

#include "absl/status/statusor.h"
#include "gcpstream/auth/cached_token_source.h"

namespace gcpstream::auth {

// Whose credentials one client uses, as every connector spells them
// (options `service-account-key-file` and `quota-project`). Empty: the
// process's application-default credentials, no quota project.
struct CredentialsOptions {
  // A service-account key (or gcloud authorized_user) file for this client
  // instead of the application-default credentials. Never with an
  // emulator: emulators take no credentials.
  std::string service_account_key_file{};
  // The project billed for the calls (`x-goog-user-project`), when it is
  // not the credentials' own project.
  std::string quota_project{};

  bool empty() const {
    return service_account_key_file.empty() && quota_project.empty();
  }
};

// The token cache for `options`: one per key file, and one for the
// application-default credentials, each shared by every client of the
// process that names the same. Errors name the option and the file.
absl::StatusOr<std::shared_ptr<CachedTokenSource>> TokensFor(
    const CredentialsOptions& options);

// Refuses credentials for a plaintext (emulator or test) target, naming the
// option and `target` (a host:port or URL).
absl::Status CheckNoCredentialsForPlaintext(const CredentialsOptions& options,
                                            const std::string& target);

// The metadata each gRPC call carries for these credentials:
// "authorization: Bearer <token>" and, when set, "x-goog-user-project".
// Unauthenticated (naming the credentials, never a secret) when no token
// can be had.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
CallCredentialsMetadata(CachedTokenSource& tokens,
                        const std::string& quota_project);

// gRPC call credentials from a token cache (CallCredentialsMetadata); a
// token that cannot be had fails the call with UNAUTHENTICATED.
class TokenCallCredentials final : public grpc::MetadataCredentialsPlugin {
 public:
  TokenCallCredentials(std::shared_ptr<CachedTokenSource> tokens,
                       std::string quota_project)
      : tokens_(std::move(tokens)), quota_project_(std::move(quota_project)) {}

  // Fetching may block: gRPC calls this off its event loop.
  bool IsBlocking() const override { return true; }
  const char* GetType() const override { return "gcpstream-token"; }
  grpc::Status GetMetadata(
      grpc::string_ref service_url, grpc::string_ref method_name,
      const grpc::AuthContext& channel_auth_context,
      std::multimap<grpc::string, grpc::string>* metadata) override;

 private:
  const std::shared_ptr<CachedTokenSource> tokens_;
  const std::string quota_project_;
};

}  // namespace gcpstream::auth

#endif  // GCPSTREAM_AUTH_CREDENTIALS_OPTIONS_H_
