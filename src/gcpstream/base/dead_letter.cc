#include "gcpstream/base/dead_letter.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace gcpstream {

std::string TruncateDlqError(absl::string_view message) {
  if (message.size() <= kDlqErrorMaxBytes) return std::string(message);
  constexpr absl::string_view kEllipsis = "...";
  size_t cut = kDlqErrorMaxBytes - kEllipsis.size();
  // Step back over UTF-8 continuation bytes (10xxxxxx) so no character is
  // split.
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return absl::StrCat(message.substr(0, cut), kEllipsis);
}

std::string Iso8601(absl::Time time) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E3SZ", time, absl::UTCTimeZone());
}

std::map<std::string, std::string> DeadLetterAttributes(
    const FailedElement& failure) {
  return {
      {kDlqConnector, failure.connector},
      {kDlqDestination, failure.destination},
      {kDlqError, TruncateDlqError(failure.status.message())},
      {kDlqTimestamp, Iso8601(failure.failure_time)},
      {kDlqSubtask, absl::StrCat(failure.subtask_index)},
      {kDlqErrorCode, absl::StatusCodeToString(failure.status.code())},
      {kDlqAttempts, absl::StrCat(failure.attempts)},
  };
}

}  // namespace gcpstream
