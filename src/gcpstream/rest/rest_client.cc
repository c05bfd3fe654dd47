#include "gcpstream/rest/rest_client.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/user_agent.h"
#include "gcpstream/base/status_class.h"
#include "spdlog/spdlog.h"

namespace gcpstream::rest {
namespace {

// The API's own words for a refusal: Google APIs answer
// {"error": {"code": 404, "message": "...", ...}}; anything else is not
// quoted (a body may echo what was sent).
std::string ApiMessage(const std::string& body) {
  const nlohmann::json json =
      nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_object() && json.contains("error")) {
    const nlohmann::json& error = json["error"];
    if (error.is_object() && error.contains("message") &&
        error["message"].is_string()) {
      return error["message"].get<std::string>();
    }
    if (error.is_string()) return error.get<std::string>();
  }
  return "";
}

bool Transient(absl::StatusCode code) {
  return code == absl::StatusCode::kUnavailable ||
         code == absl::StatusCode::kDeadlineExceeded ||
         code == absl::StatusCode::kResourceExhausted ||
         code == absl::StatusCode::kInternal;
}

}  // namespace

absl::StatusCode CodeOfHttpStatus(long status) {  // NOLINT(google-runtime-int)
  if (status >= 200 && status < 400) return absl::StatusCode::kOk;
  switch (status) {
    case 400:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 408:
      return absl::StatusCode::kDeadlineExceeded;
    case 409:
      return absl::StatusCode::kAborted;
    case 412:
      return absl::StatusCode::kFailedPrecondition;
    case 416:
      return absl::StatusCode::kOutOfRange;
    case 429:
      return absl::StatusCode::kResourceExhausted;
    case 499:
      return absl::StatusCode::kCancelled;
    case 500:
      return absl::StatusCode::kInternal;
    case 501:
      return absl::StatusCode::kUnimplemented;
    case 502:
    case 503:
      return absl::StatusCode::kUnavailable;
    case 504:
      return absl::StatusCode::kDeadlineExceeded;
    default:
      return status >= 500 ? absl::StatusCode::kUnavailable
                           : absl::StatusCode::kFailedPrecondition;
  }
}

RestClient::RestClient(RestClientOptions options)
    : options_(std::move(options)) {}

absl::StatusOr<http::HttpResponse> RestClient::SendOnce(
    const RestRequest& request) const {
  http::HttpRequest http_request;
  http_request.method = request.method;
  http_request.url = request.url.empty()
                         ? absl::StrCat(options_.endpoint, request.path)
                         : request.url;
  http_request.url_for_messages = request.url_for_messages;
  http_request.headers = request.headers;
  http_request.headers.push_back(
      absl::StrCat("User-Agent: ", auth::UserAgent()));
  if (!options_.quota_project.empty()) {
    http_request.headers.push_back(
        absl::StrCat("x-goog-user-project: ", options_.quota_project));
  }
  if (options_.tokens != nullptr) {
    absl::StatusOr<auth::AccessToken> token = options_.tokens->Get();
    if (!token.ok()) return token.status();
    http_request.headers.push_back(
        absl::StrCat("Authorization: Bearer ", token->value));
  }
  http_request.body = request.body;
  http_request.timeout = options_.request_timeout;
  // As the gRPC connectors log their calls (connector/rpc_observer.cc):
  // method, target and size; never headers, which carry the token.
  const std::string& shown =
      request.url.empty() ? http_request.url : request.url_for_messages;
  spdlog::debug("rest: {} {} start: {} bytes", request.method, shown,
                request.body.size());
  const absl::Time started = absl::Now();
  absl::StatusOr<http::HttpResponse> response =
      http::SendHttpRequest(http_request);
  spdlog::debug("rest: {} {} end: {} after {}", request.method, shown,
                response.ok() ? absl::StrCat("HTTP ", response->status)
                              : response.status().ToString(),
                absl::FormatDuration(absl::Now() - started));
  return response;
}

absl::StatusOr<http::HttpResponse> RestClient::Send(
    const RestRequest& request) const {
  absl::StatusOr<RetryState> retry = RetryState::Create(
      options_.retry, RealClock::Instance(), DefaultUniformRandom());
  if (!retry.ok()) return retry.status();
  while (true) {
    absl::StatusOr<http::HttpResponse> response = SendOnce(request);
    absl::Status failure;
    bool retryable = false;
    if (!response.ok()) {
      // No response. Unavailable: nothing was sent; Unknown: the exchange
      // broke after the request may have been acted on; Unauthenticated:
      // no token (already retried by the token cache).
      failure = response.status();
      retryable =
          failure.code() == absl::StatusCode::kUnavailable ||
          (failure.code() == absl::StatusCode::kUnknown && request.idempotent);
    } else {
      const absl::StatusCode code = CodeOfHttpStatus(response->status);
      if (code == absl::StatusCode::kOk) return response;
      const std::string message = ApiMessage(response->body);
      failure = absl::Status(
          code,
          absl::StrCat(request.method, " ",
                       request.url.empty()
                           ? absl::StrCat(options_.endpoint, request.path)
                           : request.url_for_messages,
                       ": HTTP ", response->status,
                       message.empty() ? "" : absl::StrCat(": ", message)));
      // 429 refuses before doing anything; other transient answers (408,
      // 5xx) may follow partial work: only idempotent requests go again.
      retryable = code == absl::StatusCode::kResourceExhausted ||
                  (request.idempotent && Transient(code));
    }
    if (!retryable || !request.retry) return failure;
    RetryDecision decision = retry->OnFailure(failure, StatusClass::kTransient);
    if (decision.action != RetryDecision::Action::kRetryAfter) {
      return decision.status;
    }
    if (absl::Status slept = Sleep(decision.delay); !slept.ok()) return slept;
  }
}

absl::Status RestClient::Sleep(absl::Duration delay) const {
  if (options_.sleep) return options_.sleep(delay);
  absl::SleepFor(delay);
  return absl::OkStatus();
}

}  // namespace gcpstream::rest
