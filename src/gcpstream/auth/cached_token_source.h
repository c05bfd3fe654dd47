#ifndef GCPSTREAM_AUTH_CACHED_TOKEN_SOURCE_H_
#define GCPSTREAM_AUTH_CACHED_TOKEN_SOURCE_H_

#include <memory>
#include <optional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gcpstream/auth/token_source.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/retry_policy.h"

namespace gcpstream::auth {

struct CachedTokenOptions {
  // A token with less than this left is refreshed in the background while
  // callers keep using it.
  absl::Duration refresh_ahead = absl::Minutes(5);
  // Fetches that fail with Unavailable are retried on this budget; then
  // Get() answers Unauthenticated with the last error.
  RetryOptions retry = {
      .max_attempts = 5,
      .total_timeout = absl::Minutes(1),
      .backoff = {.initial_delay = absl::Milliseconds(200),
                  .max_delay = absl::Seconds(5),
                  .multiplier = 2.0},
  };
  // Token expiry is judged on this clock; null means RealClock.
  const Clock* clock = nullptr;
};

// Access tokens for every REST call of a process, from one TokenSource:
// thread-safe, one fetch at a time however many callers need a token (they
// share its result), and tokens refreshed before they expire on a
// background thread, so a connector's task thread waits for a token only
// for the first one or after a refresh failed.
class CachedTokenSource {
 public:
  explicit CachedTokenSource(std::unique_ptr<TokenSource> source,
                             CachedTokenOptions options = {});
  ~CachedTokenSource();
  CachedTokenSource(const CachedTokenSource&) = delete;
  CachedTokenSource& operator=(const CachedTokenSource&) = delete;

  // A token valid now. Unauthenticated (naming the credentials, never a
  // secret) when none could be had within the retry budget.
  absl::StatusOr<AccessToken> Get();

  // Fetches made so far (tests and metrics).
  int fetches() const;

 private:
  absl::StatusOr<AccessToken> FetchWithRetries();
  void Store(const absl::StatusOr<AccessToken>& fetched)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool NotFetching() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !fetching_;
  }

  const std::unique_ptr<TokenSource> source_;
  const CachedTokenOptions options_;
  const Clock& clock_;
  mutable absl::Mutex mu_;
  std::optional<AccessToken> token_ ABSL_GUARDED_BY(mu_);
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);
  bool fetching_ ABSL_GUARDED_BY(mu_) = false;
  int fetches_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread background_;
};

}  // namespace gcpstream::auth

#endif  // GCPSTREAM_AUTH_CACHED_TOKEN_SOURCE_H_
