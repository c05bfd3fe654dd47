#include "gcpstream/auth/cached_token_source.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "spdlog/spdlog.h"

namespace gcpstream::auth {

CachedTokenSource::CachedTokenSource(std::unique_ptr<TokenSource> source,
                                     CachedTokenOptions options)
    : source_(std::move(source)),
      options_(options),
      clock_(options_.clock != nullptr ? *options_.clock
                                       : RealClock::Instance()) {}

CachedTokenSource::~CachedTokenSource() {
  if (background_.joinable()) background_.join();
}

int CachedTokenSource::fetches() const {
  absl::MutexLock lock(&mu_);
  return fetches_;
}

absl::StatusOr<AccessToken> CachedTokenSource::FetchWithRetries() {
  absl::StatusOr<RetryState> retry =
      RetryState::Create(options_.retry, clock_, DefaultUniformRandom());
  if (!retry.ok()) return retry.status();
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      ++fetches_;
    }
    absl::StatusOr<AccessToken> fetched = source_->Fetch();
    if (fetched.ok() ||
        fetched.status().code() != absl::StatusCode::kUnavailable) {
      return fetched;
    }
    RetryDecision decision =
        retry->OnFailure(fetched.status(), StatusClass::kTransient);
    if (decision.action != RetryDecision::Action::kRetryAfter) {
      return absl::UnauthenticatedError(absl::StrCat(
          "no access token for ", source_->Describe(), " after ",
          retry->attempts(), " attempts: ", fetched.status().message()));
    }
    absl::SleepFor(decision.delay);
  }
}

void CachedTokenSource::Store(const absl::StatusOr<AccessToken>& fetched) {
  fetching_ = false;
  if (fetched.ok()) {
    token_ = *fetched;
    last_error_ = absl::OkStatus();
  } else {
    last_error_ = fetched.status();
  }
}

absl::StatusOr<AccessToken> CachedTokenSource::Get() {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  if (token_.has_value() && token_->expiry > now) {
    if (token_->expiry - now < options_.refresh_ahead && !fetching_) {
      // Refresh in the background; callers keep the valid token meanwhile.
      fetching_ = true;
      if (background_.joinable()) background_.join();
      background_ = std::thread([this] {
        absl::StatusOr<AccessToken> fetched = FetchWithRetries();
        if (!fetched.ok()) {
          spdlog::warn("refreshing the access token ahead of expiry failed: {}",
                       std::string(fetched.status().message()));
        }
        absl::MutexLock inner(&mu_);
        Store(fetched);
      });
    }
    return *token_;
  }
  if (fetching_) {
    // Another caller (or the background refresh) is fetching: share it.
    mu_.Await(absl::Condition(this, &CachedTokenSource::NotFetching));
    if (token_.has_value() && token_->expiry > clock_.Now()) return *token_;
    if (!last_error_.ok()) return last_error_;
  }
  fetching_ = true;
  mu_.Unlock();
  absl::StatusOr<AccessToken> fetched = FetchWithRetries();
  mu_.Lock();
  Store(fetched);
  if (!fetched.ok()) return fetched.status();
  return *token_;
}

}  // namespace gcpstream::auth
