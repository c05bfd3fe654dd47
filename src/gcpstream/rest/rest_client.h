#ifndef GCPSTREAM_REST_REST_CLIENT_H_
#define GCPSTREAM_REST_REST_CLIENT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/auth/cached_token_source.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/http/http_client.h"

namespace gcpstream::rest {

// The gRPC code an HTTP status stands for, as Google's REST APIs document
// the mapping (docs/authentication.md, "REST calls"): 400 INVALID_ARGUMENT,
// 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404 NOT_FOUND, 408
// DEADLINE_EXCEEDED, 409 ABORTED, 412 FAILED_PRECONDITION, 416
// OUT_OF_RANGE, 429 RESOURCE_EXHAUSTED, 499 CANCELLED, 500 INTERNAL, 501
// UNIMPLEMENTED, 502 and 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED; other 4xx
// FAILED_PRECONDITION, other 5xx UNAVAILABLE; 2xx and 3xx OK.
absl::StatusCode CodeOfHttpStatus(long status);  // NOLINT(google-runtime-int)

struct RestClientOptions {
  // "https://storage.googleapis.com" or an emulator's "http://host:port".
  std::string endpoint;
  // Null: no Authorization header (emulators).
  std::shared_ptr<auth::CachedTokenSource> tokens;
  // x-goog-user-project: the project billed for the calls; empty for none.
  std::string quota_project;
  // Each attempt's deadline.
  absl::Duration request_timeout = absl::Seconds(60);
  // Transient failures (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED,
  // INTERNAL, and a lost response of an idempotent request) are retried.
  RetryOptions retry = {
      .max_attempts = 6,
      .total_timeout = absl::Minutes(2),
      .backoff = {.initial_delay = absl::Milliseconds(100),
                  .max_delay = absl::Seconds(10),
                  .multiplier = 2.0},
  };
  // How a backoff is waited out; null sleeps the calling thread. A
  // connector's writer passes a wait that serves its mailbox.
  std::function<absl::Status(absl::Duration)> sleep;
};

struct RestRequest {
  std::string method = "GET";
  // Appended to the endpoint: "/storage/v1/b/bucket/o?prefix=x".
  std::string path{};
  std::vector<std::string> headers{};  // "Name: value"; never logged.
  std::string body{};
  // Whether sending it twice has the effect of sending it once. GET, PUT,
  // DELETE and conditional writes are; a plain POST is not: it is not
  // resent after a failure that may have reached the server.
  bool idempotent = true;
  // Instead of endpoint + path: a URL the service handed out (a resumable
  // upload's session URI), which errors call `url_for_messages`.
  std::string url{};
  std::string url_for_messages{};
  // False: one attempt, whatever the failure; the caller recovers (a
  // resumable upload asks the service what it kept before resending).
  bool retry = true;
};

// Calls a Google REST API: bearer token, user agent
// "gcpstream/<version>", quota project, deadlines, retries, and errors as
// absl::Status with the gRPC code of the HTTP status and the API's own
// error message (never a header or a token). Thread-safe.
class RestClient {
 public:
  explicit RestClient(RestClientOptions options);

  // The response when its status is 2xx or 3xx; otherwise the status the
  // HTTP code maps to, after the retries that code allows.
  absl::StatusOr<http::HttpResponse> Send(const RestRequest& request) const;

  const RestClientOptions& options() const { return options_; }

  // Waits out a backoff the way the options say (`sleep`, else the
  // calling thread sleeps).
  absl::Status Sleep(absl::Duration delay) const;

 private:
  absl::StatusOr<http::HttpResponse> SendOnce(const RestRequest& request) const;

  const RestClientOptions options_;
};

}  // namespace gcpstream::rest

#endif  // GCPSTREAM_REST_REST_CLIENT_H_
