#include "gcpstream/cloudtasks/task_check.h"

#include <openssl/sha.h>

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace gcpstream::cloudtasks {
namespace {

namespace v2 = ::google::cloud::tasks::v2;

absl::Status Refused(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("task field '", field, "' ", what));
}

absl::Status CheckHeaders(
    const google::protobuf::Map<std::string, std::string>& headers,
    absl::string_view field) {
  for (const auto& [name, value] : headers) {
    const std::string lower = absl::AsciiStrToLower(name);
    if (lower == "host" || lower == "content-length" || lower == "user-agent" ||
        absl::StartsWith(lower, "x-cloudtasks-") ||
        absl::StartsWith(lower, "x-google-") ||
        absl::StartsWith(lower, "x-appengine-")) {
      return Refused(
          absl::StrCat(field, "[", name, "]"),
          "is a header Cloud Tasks sets itself (Host, Content-Length, "
          "User-Agent, X-CloudTasks-*, X-Google-*, X-AppEngine-*); remove it");
    }
    if (name.empty()) return Refused(field, "has a header without a name");
  }
  return absl::OkStatus();
}

absl::Status CheckBody(v2::HttpMethod method, const std::string& body,
                       absl::string_view field) {
  if (body.empty() || method == v2::HTTP_METHOD_UNSPECIFIED ||
      method == v2::POST || method == v2::PUT || method == v2::PATCH) {
    return absl::OkStatus();
  }
  return Refused(
      field, absl::StrCat("is set, but method ", v2::HttpMethod_Name(method),
                          " carries no body (POST, PUT or PATCH "
                          "do)"));
}

absl::Status CheckHttp(const v2::HttpRequest& http) {
  const std::string& url = http.url();
  absl::string_view rest = url;
  if (!absl::ConsumePrefix(&rest, "https://") &&
      !absl::ConsumePrefix(&rest, "http://")) {
    return Refused("http_request.url",
                   absl::StrCat("must be an http:// or https:// URL, got '",
                                url.substr(0, 100), "'"));
  }
  if (rest.empty() || rest.front() == '/' || rest.front() == ':') {
    return Refused("http_request.url",
                   absl::StrCat("has no host: '", url.substr(0, 100), "'"));
  }
  if (url.size() > kMaxUrlLength) {
    return Refused("http_request.url",
                   absl::StrCat("has ", url.size(),
                                " characters; the limit is ", kMaxUrlLength));
  }
  if (absl::Status status =
          CheckHeaders(http.headers(), "http_request.headers");
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckBody(http.http_method(), http.body(), "http_request.body");
      !status.ok()) {
    return status;
  }
  if (http.has_oidc_token() &&
      http.oidc_token().service_account_email().empty()) {
    return Refused("http_request.oidc_token.service_account_email",
                   "is empty: an OIDC token names the service account it is "
                   "minted for");
  }
  if (http.has_oauth_token() &&
      http.oauth_token().service_account_email().empty()) {
    return Refused("http_request.oauth_token.service_account_email",
                   "is empty: an OAuth token names the service account it is "
                   "minted for");
  }
  return absl::OkStatus();
}

absl::Status CheckAppEngine(const v2::AppEngineHttpRequest& app_engine) {
  if (!app_engine.relative_uri().empty() &&
      app_engine.relative_uri().front() != '/') {
    return Refused("app_engine_http_request.relative_uri",
                   absl::StrCat("must start with '/', got '",
                                app_engine.relative_uri().substr(0, 100), "'"));
  }
  if (absl::Status status =
          CheckHeaders(app_engine.headers(), "app_engine_http_request.headers");
      !status.ok()) {
    return status;
  }
  return CheckBody(app_engine.http_method(), app_engine.body(),
                   "app_engine_http_request.body");
}

}  // namespace

absl::Status CheckTask(const Task& task) {
  absl::Status status;
  switch (task.message_type_case()) {
    case Task::kHttpRequest:
      status = CheckHttp(task.http_request());
      break;
    case Task::kAppEngineHttpRequest:
      status = CheckAppEngine(task.app_engine_http_request());
      break;
    default:
      return absl::InvalidArgumentError(
          "the task has no target: set http_request or "
          "app_engine_http_request");
  }
  if (!status.ok()) return status;
  const size_t bytes = task.ByteSizeLong();
  if (static_cast<int64_t>(bytes) > kMaxTaskBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the task has ", bytes, " bytes; Cloud Tasks' limit is ",
                     kMaxTaskBytes));
  }
  return absl::OkStatus();
}

std::string TaskIdOf(absl::string_view key) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(),
         digest.data());
  return absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(digest.data()), digest.size()));
}

}  // namespace gcpstream::cloudtasks
