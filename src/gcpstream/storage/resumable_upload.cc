// StorageClient::UploadResumable: a session, then chunks; after a broken
// chunk the service says how much it kept and the upload goes on from
// there.

#include <algorithm>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gcpstream/base/status_class.h"
#include "gcpstream/storage/crc32c.h"
#include "gcpstream/storage/storage_client.h"

namespace gcpstream::storage {
namespace {

constexpr int64_t kChunkQuantum = int64_t{256} << 10;
constexpr long kResumeIncomplete = 308;  // NOLINT(google-runtime-int)

// The bytes the service holds, from a 308's "Range: bytes=0-N" (none
// without the header).
absl::StatusOr<int64_t> CommittedBytes(const http::HttpResponse& response) {
  const std::string range = response.Header("range");
  if (range.empty()) return 0;
  absl::string_view last = range;
  int64_t end = 0;
  if (!absl::ConsumePrefix(&last, "bytes=0-") ||
      !absl::SimpleAtoi(last, &end)) {
    return absl::InternalError(
        absl::StrCat("Cloud Storage answered a resumable upload with Range '",
                     range, "', not bytes=0-N"));
  }
  return end + 1;
}

// Failures after which the session may still be good: the exchange broke
// or the service was briefly unable. The rest end the upload.
bool Resumable(absl::StatusCode code) {
  return code == absl::StatusCode::kUnavailable ||
         code == absl::StatusCode::kUnknown ||
         code == absl::StatusCode::kDeadlineExceeded ||
         code == absl::StatusCode::kInternal ||
         code == absl::StatusCode::kResourceExhausted;
}

}  // namespace

absl::StatusOr<ObjectMetadata> StorageClient::UploadResumable(
    const std::string& bucket, const std::string& name, const std::string& data,
    const UploadOptions& options) {
  if (options.chunk_size <= 0 || options.chunk_size % kChunkQuantum != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a resumable upload's chunk size must be a positive "
                     "multiple of 256 KiB (262144 bytes), got ",
                     options.chunk_size));
  }
  const auto size = static_cast<int64_t>(data.size());
  const nlohmann::json metadata = {{"name", name},
                                   {"contentType", options.content_type},
                                   {"crc32c", Crc32cBase64(Crc32c(data))}};
  // Opening a session twice leaves an unused one, which expires.
  absl::StatusOr<http::HttpResponse> opened = client_.Send(
      {.method = "POST",
       .path = UploadPath(bucket, "resumable", options),
       .headers = {"Content-Type: application/json; charset=UTF-8",
                   absl::StrCat("X-Upload-Content-Type: ",
                                options.content_type),
                   absl::StrCat("X-Upload-Content-Length: ", size)},
       .body = metadata.dump(),
       .idempotent = true});
  if (!opened.ok()) return opened.status();
  const std::string session = opened->Header("location");
  if (session.empty()) {
    return absl::InternalError(
        absl::StrCat("Cloud Storage opened no upload session for gs://", bucket,
                     "/", name, " (no Location header)"));
  }
  const std::string session_name =
      absl::StrCat("the resumable upload of gs://", bucket, "/", name);
  auto new_retry = [&] {
    return RetryState::Create(client_.options().retry, RealClock::Instance(),
                              DefaultUniformRandom());
  };
  absl::StatusOr<RetryState> retry = new_retry();
  if (!retry.ok()) return retry.status();
  int64_t committed = 0;
  while (true) {
    const int64_t length = std::min(options.chunk_size, size - committed);
    const std::string range =
        size == 0 ? "bytes */0"
                  : absl::StrCat("bytes ", committed, "-",
                                 committed + length - 1, "/", size);
    absl::StatusOr<http::HttpResponse> sent =
        client_.Send({.method = "PUT",
                      .headers = {absl::StrCat("Content-Range: ", range)},
                      .body = data.substr(static_cast<size_t>(committed),
                                          static_cast<size_t>(length)),
                      .url = session,
                      .url_for_messages = session_name,
                      .retry = false});
    if (sent.ok() && sent->status != kResumeIncomplete) {
      return CheckUploaded(bucket, name, data, sent->body);
    }
    if (sent.ok()) {
      absl::StatusOr<int64_t> kept = CommittedBytes(*sent);
      if (!kept.ok()) return kept.status();
      if (*kept > committed) {
        // Progress: the failure budget starts again.
        retry = new_retry();
        if (!retry.ok()) return retry.status();
      }
      committed = *kept;
      continue;
    }
    if (!Resumable(sent.status().code())) return sent.status();
    RetryDecision decision =
        retry->OnFailure(sent.status(), StatusClass::kTransient);
    if (decision.action != RetryDecision::Action::kRetryAfter) {
      return decision.status;
    }
    if (absl::Status slept = client_.Sleep(decision.delay); !slept.ok()) {
      return slept;
    }
    // What did the service keep? An empty PUT asks without sending.
    absl::StatusOr<http::HttpResponse> status = client_.Send(
        {.method = "PUT",
         .headers = {absl::StrCat("Content-Range: bytes */", size)},
         .url = session,
         .url_for_messages = session_name});
    if (!status.ok()) return status.status();
    if (status->status != kResumeIncomplete) {
      return CheckUploaded(bucket, name, data, status->body);
    }
    absl::StatusOr<int64_t> kept = CommittedBytes(*status);
    if (!kept.ok()) return kept.status();
    committed = *kept;
  }
}

}  // namespace gcpstream::storage
