#include "gcpstream/auth/token_source.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/jwt.h"
#include "gcpstream/http/http_client.h"
#include "spdlog/spdlog.h"

namespace gcpstream::auth {
namespace {

using Json = nlohmann::json;

constexpr char kDefaultTokenUri[] = "https://oauth2.googleapis.com/token";
constexpr absl::Duration kTokenRequestTimeout = absl::Seconds(30);

// application/x-www-form-urlencoded.
std::string FormEncode(
    const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    for (const std::string* part : {&name, &value}) {
      for (const unsigned char c : *part) {
        if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' ||
            c == '~') {
          out += static_cast<char>(c);
        } else {
          absl::StrAppendFormat(&out, "%%%02X", c);
        }
      }
      if (part == &name) out += '=';
    }
  }
  return out;
}

// The token in a token endpoint's (or the metadata server's) answer. `who`
// names the credentials in errors; the body is never quoted whole, since a
// misbehaving server could echo a secret: only its error fields are.
absl::StatusOr<AccessToken> TokenFromResponse(
    const absl::StatusOr<http::HttpResponse>& response, const std::string& who,
    const std::string& endpoint, absl::string_view remedy) {
  if (!response.ok()) {
    return absl::UnavailableError(
        absl::StrCat("fetching an access token for ", who, " from ", endpoint,
                     " failed: ", response.status().message()));
  }
  Json body = Json::parse(response->body, nullptr, /*allow_exceptions=*/false);
  if (response->status != 200) {
    std::string reason;
    if (body.is_object()) {
      for (const char* field : {"error", "error_description"}) {
        if (body.contains(field) && body[field].is_string()) {
          absl::StrAppend(&reason, reason.empty() ? "" : ": ",
                          body[field].get<std::string>());
        }
      }
    }
    const bool transient = response->status >= 500 || response->status == 429 ||
                           response->status == 408;
    const std::string message =
        absl::StrCat(endpoint, " refused an access token for ", who, " (HTTP ",
                     response->status, reason.empty() ? "" : ", ", reason, ")",
                     transient ? "" : absl::StrCat("; ", remedy));
    return transient ? absl::UnavailableError(message)
                     : absl::UnauthenticatedError(message);
  }
  if (!body.is_object() || !body.contains("access_token") ||
      !body["access_token"].is_string() || !body.contains("expires_in") ||
      !body["expires_in"].is_number()) {
    return absl::UnavailableError(
        absl::StrCat(endpoint,
                     " answered without an access_token and "
                     "expires_in for ",
                     who));
  }
  return AccessToken{
      .value = body["access_token"].get<std::string>(),
      .expiry = absl::Now() + absl::Seconds(body["expires_in"].get<double>())};
}

class ServiceAccountSource final : public TokenSource {
 public:
  ServiceAccountSource(std::string path, std::string email, std::string key_id,
                       std::string private_key, std::string token_uri,
                       std::vector<std::string> scopes)
      : path_(std::move(path)),
        email_(std::move(email)),
        key_id_(std::move(key_id)),
        private_key_(std::move(private_key)),
        token_uri_(std::move(token_uri)),
        scopes_(std::move(scopes)) {}

  absl::StatusOr<AccessToken> Fetch() override {
    const int64_t now = absl::ToUnixSeconds(absl::Now());
    Json header = {{"alg", "RS256"}, {"typ", "JWT"}};
    if (!key_id_.empty()) header["kid"] = key_id_;
    const Json claims = {{"iss", email_},
                         {"scope", absl::StrJoin(scopes_, " ")},
                         {"aud", token_uri_},
                         {"iat", now},
                         {"exp", now + 3600}};
    absl::StatusOr<std::string> assertion =
        SignRs256Jwt(header, claims, private_key_);
    if (!assertion.ok()) {
      return absl::Status(
          assertion.status().code(),
          absl::StrCat(Describe(), ": ", assertion.status().message()));
    }
    http::HttpRequest request;
    request.method = "POST";
    request.url = token_uri_;
    request.headers = {"Content-Type: application/x-www-form-urlencoded"};
    request.body = FormEncode(
        {{"grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"},
         {"assertion", *assertion}});
    request.timeout = kTokenRequestTimeout;
    return TokenFromResponse(
        http::SendHttpRequest(request), Describe(), token_uri_,
        "check that the key is not deleted or disabled (gcloud iam "
        "service-accounts keys list) and that the account exists");
  }

  std::string Describe() const override {
    return absl::StrCat("service account ", email_, " (key file ", path_, ")");
  }

 private:
  std::string path_;
  std::string email_;
  std::string key_id_;
  std::string private_key_;
  std::string token_uri_;
  std::vector<std::string> scopes_;
};

class AuthorizedUserSource final : public TokenSource {
 public:
  AuthorizedUserSource(std::string path, std::string client_id,
                       std::string client_secret, std::string refresh_token,
                       std::string token_uri)
      : path_(std::move(path)),
        client_id_(std::move(client_id)),
        client_secret_(std::move(client_secret)),
        refresh_token_(std::move(refresh_token)),
        token_uri_(std::move(token_uri)) {}

  absl::StatusOr<AccessToken> Fetch() override {
    http::HttpRequest request;
    request.method = "POST";
    request.url = token_uri_;
    request.headers = {"Content-Type: application/x-www-form-urlencoded"};
    request.body = FormEncode({{"grant_type", "refresh_token"},
                               {"client_id", client_id_},
                               {"client_secret", client_secret_},
                               {"refresh_token", refresh_token_}});
    request.timeout = kTokenRequestTimeout;
    return TokenFromResponse(
        http::SendHttpRequest(request), Describe(), token_uri_,
        "the refresh token may have expired or been revoked: run `gcloud "
        "auth application-default login` again");
  }

  std::string Describe() const override {
    return absl::StrCat("gcloud user credentials (", path_, ")");
  }

 private:
  std::string path_;
  std::string client_id_;
  std::string client_secret_;
  std::string refresh_token_;
  std::string token_uri_;
};

class MetadataSource final : public TokenSource {
 public:
  MetadataSource(std::string host, std::vector<std::string> scopes)
      : host_(std::move(host)), scopes_(std::move(scopes)) {}

  absl::StatusOr<AccessToken> Fetch() override {
    http::HttpRequest request;
    request.url = absl::StrCat(
        "http://", host_,
        "/computeMetadata/v1/instance/service-accounts/default/token");
    if (!scopes_.empty()) {
      absl::StrAppend(&request.url, "?",
                      FormEncode({{"scopes", absl::StrJoin(scopes_, ",")}}));
    }
    request.headers = {"Metadata-Flavor: Google"};
    request.timeout = kTokenRequestTimeout;
    return TokenFromResponse(
        http::SendHttpRequest(request), Describe(), host_,
        "the instance's service account may lack the scope or be disabled");
  }

  std::string Describe() const override {
    return absl::StrCat("the metadata server's default service account (",
                        host_, ")");
  }

 private:
  std::string host_;
  std::vector<std::string> scopes_;
};

std::string StringField(const Json& json, const char* field) {
  return json.contains(field) && json[field].is_string()
             ? json[field].get<std::string>()
             : std::string();
}

}  // namespace

absl::StatusOr<std::unique_ptr<TokenSource>> TokenSourceFromFile(
    const std::string& path, std::vector<std::string> scopes) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("credentials file ", path, " cannot be read"));
  }
  std::stringstream text;
  text << in.rdbuf();
  const Json json =
      Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("credentials file ", path,
                     " is not a JSON object (a service-account "
                     "key or gcloud's application_default_credentials.json)"));
  }
  const std::string type = StringField(json, "type");
  if (type == "service_account") {
    struct stat info {};
    if (stat(path.c_str(), &info) == 0 && (info.st_mode & S_IROTH) != 0) {
      spdlog::warn(
          "service-account key file {} is readable by every user of this "
          "machine; chmod 600 it",
          path);
    }
    const std::string email = StringField(json, "client_email");
    const std::string key = StringField(json, "private_key");
    if (email.empty() || key.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "service-account key file ", path,
          " lacks client_email or private_key; download a new JSON key"));
    }
    std::string token_uri = StringField(json, "token_uri");
    if (token_uri.empty()) token_uri = kDefaultTokenUri;
    return std::unique_ptr<TokenSource>(std::make_unique<ServiceAccountSource>(
        path, email, StringField(json, "private_key_id"), key, token_uri,
        std::move(scopes)));
  }
  if (type == "authorized_user") {
    const std::string client_id = StringField(json, "client_id");
    const std::string client_secret = StringField(json, "client_secret");
    const std::string refresh_token = StringField(json, "refresh_token");
    if (client_id.empty() || client_secret.empty() || refresh_token.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "user credentials file ", path,
          " lacks client_id, client_secret or refresh_token; run `gcloud "
          "auth application-default login` again"));
    }
    std::string token_uri = StringField(json, "token_uri");
    if (token_uri.empty()) token_uri = kDefaultTokenUri;
    return std::unique_ptr<TokenSource>(std::make_unique<AuthorizedUserSource>(
        path, client_id, client_secret, refresh_token, token_uri));
  }
  if (type == "external_account" ||
      type == "external_account_authorized_user" ||
      type == "impersonated_service_account") {
    return absl::UnimplementedError(absl::StrCat(
        "credentials file ", path, " holds '", type,
        "' credentials (workload identity federation or impersonation), "
        "which gcpstream's REST clients do not support yet; use a "
        "service-account key, gcloud user credentials, or the metadata "
        "server (GKE workload identity)"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("credentials file ", path, " has type '", type,
                   "'; expected service_account or authorized_user"));
}

std::unique_ptr<TokenSource> MetadataTokenSource(
    std::vector<std::string> scopes) {
  const char* host = std::getenv("GCE_METADATA_HOST");
  return std::make_unique<MetadataSource>(
      host != nullptr && *host != '\0' ? host : "metadata.google.internal",
      std::move(scopes));
}

absl::StatusOr<std::unique_ptr<TokenSource>> DefaultTokenSource(
    std::vector<std::string> scopes) {
  if (const char* path = std::getenv("GOOGLE_APPLICATION_CREDENTIALS");
      path != nullptr && *path != '\0') {
    return TokenSourceFromFile(path, std::move(scopes));
  }
  std::string config;
  if (const char* dir = std::getenv("CLOUDSDK_CONFIG");
      dir != nullptr && *dir != '\0') {
    config = dir;
  } else if (const char* home = std::getenv("HOME");
             home != nullptr && *home != '\0') {
    config = absl::StrCat(home, "/.config/gcloud");
  }
  if (!config.empty()) {
    const std::string well_known =
        absl::StrCat(config, "/application_default_credentials.json");
    if (std::ifstream(well_known).good()) {
      return TokenSourceFromFile(well_known, std::move(scopes));
    }
  }
  return MetadataTokenSource(std::move(scopes));
}

}  // namespace gcpstream::auth
