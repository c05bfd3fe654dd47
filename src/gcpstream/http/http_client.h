#ifndef GCPSTREAM_HTTP_HTTP_CLIENT_H_
#define GCPSTREAM_HTTP_HTTP_CLIENT_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gcpstream::http {

struct HttpResponse {
  long status = 0;  // NOLINT(google-runtime-int): libcurl's type.
  std::string body;
  // The final response's headers, names in lower case, in arrival order.
  std::vector<std::pair<std::string, std::string>> headers;

  // The first header of that name (lower case); empty when absent.
  std::string Header(absl::string_view name) const;
};

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  // What error messages call the URL when `url` must not be shown (a
  // resumable upload's session URI grants the upload to whoever holds it).
  std::string url_for_messages;
  // "Name: value" lines. Never logged: they may hold credentials.
  std::vector<std::string> headers;
  std::string body;
  absl::Duration timeout = absl::Seconds(60);
};

// One HTTP exchange (libcurl). Any status code is a response; the status
// is an error only when there is none: Unavailable when no connection was
// made (nothing was sent), Unknown when the exchange broke after the
// request may have reached the server (a timeout, a reset), since the
// server may have acted on it. Messages name the method and URL, never the
// headers.
absl::StatusOr<HttpResponse> SendHttpRequest(const HttpRequest& request);

}  // namespace gcpstream::http

#endif  // GCPSTREAM_HTTP_HTTP_CLIENT_H_
