#include "gcpstream/runtime/job_health.h"

#include "absl/strings/str_cat.h"

namespace gcpstream::runtime {

void JobHealth::RunStarted() {
  absl::MutexLock lock(&mu_);
  phase_ = Phase::kRunning;
  attempt_running_ = false;
  run_started_ = clock_->Now();
  last_checkpoint_.reset();
  failure_.clear();
}

void JobHealth::AttemptRunning() {
  absl::MutexLock lock(&mu_);
  attempt_running_ = true;
}

void JobHealth::AttemptEnded() {
  absl::MutexLock lock(&mu_);
  attempt_running_ = false;
}

void JobHealth::CheckpointCompleted() {
  absl::MutexLock lock(&mu_);
  last_checkpoint_ = clock_->Now();
}

void JobHealth::FailedForGood(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  phase_ = Phase::kFailed;
  attempt_running_ = false;
  failure_ = status.ToString();
}

void JobHealth::RunEnded() {
  absl::MutexLock lock(&mu_);
  if (phase_ == Phase::kRunning) phase_ = Phase::kEnded;
  attempt_running_ = false;
}

HealthVerdict JobHealth::Liveness() const {
  absl::MutexLock lock(&mu_);
  switch (phase_) {
    case Phase::kNotStarted:
      return {true, "starting"};
    case Phase::kFailed:
      return {false, absl::StrCat("the job failed for good: ", failure_)};
    case Phase::kEnded:
      return {true, "the job ended"};
    case Phase::kRunning:
      break;
  }
  const absl::Time now = clock_->Now();
  const absl::Time since = last_checkpoint_.value_or(run_started_);
  const std::string which = last_checkpoint_.has_value()
                                ? "since the last completed checkpoint"
                                : "since the job started, with no checkpoint";
  const absl::Duration quiet = now - since;
  if (quiet > bound_) {
    return {false, absl::StrCat(absl::FormatDuration(quiet), " ", which,
                                " (the bound is ", absl::FormatDuration(bound_),
                                ", health-checkpoint-timeout)")};
  }
  return {true,
          absl::StrCat("running; ", absl::FormatDuration(quiet), " ", which)};
}

HealthVerdict JobHealth::Readiness() const {
  absl::MutexLock lock(&mu_);
  if (attempt_running_) return {true, "sources open"};
  switch (phase_) {
    case Phase::kNotStarted:
      return {false, "starting"};
    case Phase::kRunning:
      return {false, "opening sources (or waiting to restart)"};
    case Phase::kFailed:
      return {false, "the job failed for good"};
    case Phase::kEnded:
      return {false, "the job ended"};
  }
  return {false, "unknown"};
}

}  // namespace gcpstream::runtime
