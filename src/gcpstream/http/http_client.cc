#include "gcpstream/http/http_client.h"

#include <curl/curl.h>

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace gcpstream::http {
namespace {

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct HeaderListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// libcurl passes every header line of every response (an interim
// "100 Continue" too): a status line starts a new set.
size_t AppendHeader(char* data, size_t size, size_t count, void* out) {
  auto& headers =
      *static_cast<std::vector<std::pair<std::string, std::string>>*>(out);
  const absl::string_view line(data, size * count);
  if (absl::StartsWith(line, "HTTP/")) {
    headers.clear();
  } else if (const size_t colon = line.find(':');
             colon != absl::string_view::npos) {
    headers.emplace_back(
        absl::AsciiStrToLower(line.substr(0, colon)),
        std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  }
  return size * count;
}

// Failures where the request cannot have reached a server.
bool NothingWasSent(CURLcode code) {
  return code == CURLE_COULDNT_RESOLVE_HOST ||
         code == CURLE_COULDNT_RESOLVE_PROXY || code == CURLE_COULDNT_CONNECT ||
         code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL;
}

}  // namespace

std::string HttpResponse::Header(absl::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return "";
}

absl::StatusOr<HttpResponse> SendHttpRequest(const HttpRequest& request) {
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (curl == nullptr) {
    return absl::ResourceExhaustedError("cannot start an HTTP request");
  }
  std::unique_ptr<curl_slist, HeaderListDeleter> headers;
  std::vector<std::string> lines = request.headers;
  // Bodies go at once: no waiting for a "100 Continue" some servers never
  // send.
  lines.emplace_back("Expect:");
  for (const std::string& header : lines) {
    // On success the list now starts at `appended` (the same list); on
    // failure it is unchanged and still owned here.
    curl_slist* list = headers.release();
    curl_slist* appended = curl_slist_append(list, header.c_str());
    headers.reset(appended != nullptr ? appended : list);
    if (appended == nullptr) {
      return absl::ResourceExhaustedError("cannot build HTTP headers");
    }
  }
  HttpResponse response;
  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(  // NOLINT(google-runtime-int)
                       absl::ToInt64Milliseconds(request.timeout)));
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, AppendHeader);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &response.headers);
  if (request.method != "GET" && request.method != "HEAD") {
    curl_easy_setopt(handle, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
  }
  const CURLcode code = curl_easy_perform(handle);
  if (code != CURLE_OK) {
    const std::string what = absl::StrCat(request.method, " ",
                                          request.url_for_messages.empty()
                                              ? request.url
                                              : request.url_for_messages,
                                          ": ", curl_easy_strerror(code));
    if (NothingWasSent(code)) return absl::UnavailableError(what);
    return absl::UnknownError(
        absl::StrCat(what, " (the server may have acted on the request)"));
  }
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace gcpstream::http
