#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/chaos/fault_schedule.h"
#include "gtest/gtest.h"

namespace gcpstream::chaos {

FaultSchedule::FaultSchedule(testing::FaultProxy& proxy,
                             std::shared_ptr<Counter> checkpoints)
    : proxy_(proxy), checkpoints_(std::move(checkpoints)) {
  thread_ = std::thread([this] { Run(); });
}

FaultSchedule::~FaultSchedule() {
  if (thread_.joinable()) thread_.join();
}

std::vector<InjectedFault> FaultSchedule::Finish() {
  if (thread_.joinable()) thread_.join();
  absl::MutexLock lock(&mu_);
  return faults_;
}

absl::Duration FaultSchedule::WaitForCheckpoint(uint64_t seen,
                                                absl::Time since) {
  const absl::Time give_up = since + absl::Seconds(30);
  while (checkpoints_->Value() <= seen) {
    if (absl::Now() >= give_up) return absl::InfiniteDuration();
    absl::SleepFor(absl::Milliseconds(10));
  }
  return absl::Now() - since;
}

void FaultSchedule::Run() {
  const absl::Time start = absl::Now();
  auto at = [start](absl::Duration offset) {
    absl::SleepFor(start + offset - absl::Now());
  };
  struct Step {
    absl::Duration at;
    absl::Duration lasts;
    std::string what;
  };
  const std::vector<Step> steps = {
      {absl::Milliseconds(1500), absl::ZeroDuration(), "connection reset"},
      {absl::Seconds(3), absl::Seconds(5), "blackhole"},
      {absl::Seconds(9), absl::Seconds(2), "latency 200ms"},
      {absl::Seconds(12), absl::ZeroDuration(), "connection reset"},
  };
  for (const Step& step : steps) {
    at(step.at);
    if (step.what == "blackhole") {
      proxy_.Blackhole(step.lasts);
    } else if (step.what == "latency 200ms") {
      proxy_.SetLatency(absl::Milliseconds(200));
    } else {
      proxy_.ResetConnections();
    }
    absl::SleepFor(step.lasts);
    proxy_.SetLatency(absl::ZeroDuration());
    // Recovery: from the fault's end to the first checkpoint that began
    // after it (one in flight across the fault proves nothing).
    const absl::Time ended = absl::Now();
    const uint64_t seen = checkpoints_->Value();
    const absl::Duration recovery =
        WaitForCheckpoint(seen + 1, ended);  // Past the one in flight.
    absl::MutexLock lock(&mu_);
    faults_.push_back(InjectedFault{.what = step.what,
                                    .at = step.at,
                                    .lasted = step.lasts,
                                    .recovery = recovery});
  }
}

std::shared_ptr<Counter> CheckpointsCompleted(MetricsRegistry& metrics,
                                              const std::string& pipeline) {
  // The coordinator's own series, shared by name, help and labels.
  auto counter = metrics.GetCounter(
      "checkpoints_completed", "Checkpoints made durable",
      MetricLabels{pipeline, "checkpoint-coordinator", 0, std::nullopt});
  return counter.ok() ? *counter : std::make_shared<Counter>();
}

void Report(const std::string& summary,
            const std::vector<InjectedFault>& faults) {
  std::string out = absl::StrCat("chaos ", summary, "\n");
  for (const InjectedFault& fault : faults) {
    absl::StrAppend(
        &out, "  ", fault.what, " at ", absl::FormatDuration(fault.at), " for ",
        absl::FormatDuration(fault.lasted), ": checkpointing again after ",
        fault.recovery == absl::InfiniteDuration()
            ? "more than 30s"
            : absl::FormatDuration(
                  absl::Trunc(fault.recovery, absl::Milliseconds(10))),
        "\n");
    EXPECT_NE(fault.recovery, absl::InfiniteDuration())
        << "no checkpoint after the " << fault.what;
  }
  std::cout << out;
}

}  // namespace gcpstream::chaos
