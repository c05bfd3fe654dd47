#include "gcpstream/auth/credentials_options.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gcpstream/auth/token_source.h"

namespace gcpstream::auth {
namespace {

// Token caches by key file ("" for the application-default credentials).
struct TokenCaches {
  absl::Mutex mu;
  std::map<std::string, std::shared_ptr<CachedTokenSource>> by_file
      ABSL_GUARDED_BY(mu);
};

TokenCaches& Caches() {
  static TokenCaches caches;
  return caches;
}

}  // namespace

absl::StatusOr<std::shared_ptr<CachedTokenSource>> TokensFor(
    const CredentialsOptions& options) {
  TokenCaches& caches = Caches();
  absl::MutexLock lock(&caches.mu);
  const std::string& file = options.service_account_key_file;
  if (auto found = caches.by_file.find(file); found != caches.by_file.end()) {
    return found->second;
  }
  absl::StatusOr<std::unique_ptr<TokenSource>> source =
      file.empty() ? DefaultTokenSource() : TokenSourceFromFile(file);
  if (!source.ok()) {
    if (file.empty()) return source.status();
    return absl::Status(
        source.status().code(),
        absl::StrCat("service-account-key-file: ", source.status().message()));
  }
  auto tokens = std::make_shared<CachedTokenSource>(*std::move(source));
  caches.by_file.emplace(file, tokens);
  return tokens;
}

absl::Status CheckNoCredentialsForPlaintext(const CredentialsOptions& options,
                                            const std::string& target) {
  if (options.service_account_key_file.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "service-account-key-file is set but ", target,
      " is an emulator or plaintext endpoint, which takes no credentials: "
      "remove service-account-key-file, or unset the *_EMULATOR_HOST "
      "variable (or the plaintext endpoint) to reach the service"));
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
CallCredentialsMetadata(CachedTokenSource& tokens,
                        const std::string& quota_project) {
  absl::StatusOr<AccessToken> token = tokens.Get();
  if (!token.ok()) return token.status();
  std::vector<std::pair<std::string, std::string>> metadata = {
      {"authorization", absl::StrCat("Bearer ", token->value)}};
  if (!quota_project.empty()) {
    metadata.emplace_back("x-goog-user-project", quota_project);
  }
  return metadata;
}

grpc::Status TokenCallCredentials::GetMetadata(
    grpc::string_ref /*service_url*/, grpc::string_ref /*method_name*/,
    const grpc::AuthContext& /*channel_auth_context*/,
    std::multimap<grpc::string, grpc::string>* metadata) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> pairs =
      CallCredentialsMetadata(*tokens_, quota_project_);
  if (!pairs.ok()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        std::string(pairs.status().message()));
  }
  metadata->insert(pairs->begin(), pairs->end());
  return grpc::Status::OK;
}

}  // namespace gcpstream::auth
