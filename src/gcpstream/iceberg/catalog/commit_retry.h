#ifndef GCPSTREAM_ICEBERG_CATALOG_COMMIT_RETRY_H_
#define GCPSTREAM_ICEBERG_CATALOG_COMMIT_RETRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gcpstream::iceberg {

// How often a commit that lost a race is recomputed and tried again: the
// table's `commit.retry.*` properties, Iceberg's defaults where unset.
struct CommitRetryOptions {
  int32_t num_retries = 4;                            // num-retries
  absl::Duration min_wait = absl::Milliseconds(100);  // min-wait-ms
  absl::Duration max_wait = absl::Seconds(60);        // max-wait-ms
  absl::Duration total_timeout = absl::Minutes(30);   // total-timeout-ms
};

// The table's retry properties; values that make no sense are clamped
// (waits and the budget to at least 1 ms, retries to at least 0, the
// longest wait to at least the shortest) rather than refused, since the
// table's owner set them for every writer.
CommitRetryOptions CommitRetryOptionsFor(
    const std::map<std::string, std::string>& table_properties);

// Whether a commit that failed with `status` may be tried again: it lost a
// race (Aborted), its outcome is unknown (Unknown: the attempt must look
// for its own commit first) or nothing was reached (Unavailable).
bool IsRetryableCommitFailure(const absl::Status& status);

// Runs `attempt` until it succeeds, fails for good, or the retries or the
// time budget are spent (then the last failure, with the attempt count).
// Waits grow exponentially with jitter between attempts.
absl::Status RetryCommit(const CommitRetryOptions& options,
                         const std::function<absl::Status()>& attempt);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_CATALOG_COMMIT_RETRY_H_
