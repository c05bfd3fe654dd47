#include "gcpstream/connector/option_table.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gcpstream::connector {

std::string DurationText(absl::Duration duration) {
  return absl::FormatDuration(duration);
}

absl::Status CheckRetryOptions(const RetryOptions& options) {
  absl::Status valid = ValidateRetryOptions(options);
  if (valid.ok()) return valid;
  return absl::InvalidArgumentError(absl::StrCat(
      "retry options (retry-max-attempts, retry-total-timeout, "
      "retry-initial-backoff, retry-max-backoff, retry-backoff-multiplier): ",
      valid.message()));
}

OptionTable<auth::ChannelOptions> ChannelOptionTable() {
  using O = auth::ChannelOptions;
  return OptionTable<O>({
      ScalarOption<O, std::string, std::optional<std::string>>(
          "endpoint",
          [](O& o) -> std::optional<std::string>& { return o.endpoint; },
          &OptionSource::String, "the service's production endpoint",
          "europe-west1-pubsub.googleapis.com:443"),
      StringOption<O>(
          "service-account-key-file",
          [](O& o) -> std::string& {
            return o.credentials.service_account_key_file;
          },
          "application-default credentials", "/var/secrets/gcp/key.json"),
      StringOption<O>(
          "quota-project",
          [](O& o) -> std::string& { return o.credentials.quota_project; },
          "the credentials' project", "billing-project"),
  });
}

OptionTable<RetryOptions> RetryOptionTable(const RetryOptions& defaults) {
  using R = RetryOptions;
  return OptionTable<R>({
      IntOption<R, int>(
          "retry-max-attempts", [](R& o) -> int& { return o.max_attempts; },
          absl::StrCat(defaults.max_attempts), "5", 1,
          std::numeric_limits<int>::max()),
      DurationOption<R>(
          "retry-total-timeout",
          [](R& o) -> absl::Duration& { return o.total_timeout; },
          DurationText(defaults.total_timeout), "2m"),
      DurationOption<R>(
          "retry-initial-backoff",
          [](R& o) -> absl::Duration& { return o.backoff.initial_delay; },
          DurationText(defaults.backoff.initial_delay), "200ms"),
      DurationOption<R>(
          "retry-max-backoff",
          [](R& o) -> absl::Duration& { return o.backoff.max_delay; },
          DurationText(defaults.backoff.max_delay), "30s"),
      DoubleOption<R>(
          "retry-backoff-multiplier",
          [](R& o) -> double& { return o.backoff.multiplier; },
          absl::StrFormat("%g", defaults.backoff.multiplier), "1.5"),
  });
}

}  // namespace gcpstream::connector
