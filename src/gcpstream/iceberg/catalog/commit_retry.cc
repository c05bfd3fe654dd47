#include "gcpstream/iceberg/catalog/commit_retry.h"

#include <algorithm>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/base/backoff_policy.h"
#include "spdlog/spdlog.h"

namespace gcpstream::iceberg {
namespace {

std::optional<int64_t> IntProperty(
    const std::map<std::string, std::string>& properties,
    const std::string& key) {
  auto it = properties.find(key);
  int64_t value = 0;
  if (it == properties.end() || !absl::SimpleAtoi(it->second, &value)) {
    return std::nullopt;
  }
  return value;
}

absl::Duration Millis(std::optional<int64_t> value, absl::Duration fallback) {
  return value.has_value() ? absl::Milliseconds(std::max<int64_t>(*value, 1))
                           : fallback;
}

}  // namespace

CommitRetryOptions CommitRetryOptionsFor(
    const std::map<std::string, std::string>& table_properties) {
  CommitRetryOptions options;
  if (std::optional<int64_t> retries =
          IntProperty(table_properties, "commit.retry.num-retries")) {
    options.num_retries =
        static_cast<int32_t>(std::clamp<int64_t>(*retries, 0, 1'000'000));
  }
  options.min_wait =
      Millis(IntProperty(table_properties, "commit.retry.min-wait-ms"),
             options.min_wait);
  options.max_wait =
      std::max(options.min_wait,
               Millis(IntProperty(table_properties, "commit.retry.max-wait-ms"),
                      options.max_wait));
  options.total_timeout =
      Millis(IntProperty(table_properties, "commit.retry.total-timeout-ms"),
             options.total_timeout);
  return options;
}

bool IsRetryableCommitFailure(const absl::Status& status) {
  return status.code() == absl::StatusCode::kAborted ||
         status.code() == absl::StatusCode::kUnknown ||
         status.code() == absl::StatusCode::kUnavailable;
}

absl::Status RetryCommit(const CommitRetryOptions& options,
                         const std::function<absl::Status()>& attempt) {
  BackoffOptions backoff_options;
  backoff_options.initial_delay = options.min_wait;
  backoff_options.max_delay =
      std::max(options.max_wait, options.min_wait + absl::Milliseconds(1));
  absl::StatusOr<ExponentialBackoff> backoff =
      ExponentialBackoff::Create(backoff_options, DefaultUniformRandom());
  if (!backoff.ok()) return backoff.status();
  const absl::Time deadline = absl::Now() + options.total_timeout;
  for (int32_t attempts = 1;; ++attempts) {
    absl::Status status = attempt();
    if (status.ok() || !IsRetryableCommitFailure(status)) return status;
    const absl::Duration delay = backoff->NextDelay();
    if (attempts > options.num_retries || absl::Now() + delay > deadline) {
      return absl::Status(
          status.code(),
          absl::StrCat(status.message(), " (gave up after ", attempts,
                       attempts == 1 ? " attempt" : " attempts",
                       "; the table's commit.retry.* properties set the "
                       "budget)"));
    }
    spdlog::info("iceberg: commit attempt {} failed ({}); retrying in {}",
                 attempts, std::string(status.message()),
                 absl::FormatDuration(delay));
    absl::SleepFor(delay);
  }
}

}  // namespace gcpstream::iceberg
