#ifndef GCPSTREAM_BASE_DEAD_LETTER_H_
#define GCPSTREAM_BASE_DEAD_LETTER_H_

#include <map>
#include <string>

#include "absl/strings/string_view.h"
#include "gcpstream/base/failed_element.h"

namespace gcpstream {

// Dead-letter metadata names. The first five are spelled as the widely used
// Java connectors spell them, so existing dead-letter consumers keep working;
// the last two are ours.
inline constexpr char kDlqConnector[] = "dlq-connector";
inline constexpr char kDlqDestination[] = "dlq-destination";
inline constexpr char kDlqError[] = "dlq-error";
inline constexpr char kDlqTimestamp[] = "dlq-timestamp";
inline constexpr char kDlqSubtask[] = "dlq-subtask";
inline constexpr char kDlqErrorCode[] = "dlq-error-code";
inline constexpr char kDlqAttempts[] = "dlq-attempts";

// dlq-error is at most this many bytes, "..." included.
inline constexpr size_t kDlqErrorMaxBytes = 1024;

// The message cut to kDlqErrorMaxBytes with a "..." suffix when longer, at a
// UTF-8 character boundary so the attribute stays valid text.
std::string TruncateDlqError(absl::string_view message);

// ISO-8601 UTC with milliseconds: 2026-12-02T16:15:45.123Z.
std::string Iso8601(absl::Time time);

// The dlq-* attributes describing `failure`.
std::map<std::string, std::string> DeadLetterAttributes(
    const FailedElement& failure);

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_DEAD_LETTER_H_
