#ifndef GCPSTREAM_CONNECTOR_IN_FLIGHT_H_
#define GCPSTREAM_CONNECTOR_IN_FLIGHT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/connector/task_wait.h"
#include "gcpstream/connector/writer_core.h"
#include "gcpstream/runtime/mailbox.h"

namespace gcpstream::connector {

struct InFlightOptions {
  // Records and bytes sent (or waiting out a backoff) and not yet resolved.
  // A record larger than max_bytes still goes into an empty writer.
  int64_t max_records = 1000;
  int64_t max_bytes = int64_t{64} << 20;
  // A wait fails the writer when nothing resolves for this long.
  absl::Duration progress_timeout = absl::Minutes(10);
  // For errors: the option keys of the caps and of the timeout, and what
  // completes ("publish", "write").
  std::string max_records_key{};
  std::string max_bytes_key{};
  std::string progress_timeout_key{};
  std::string completion = "request";
  // What the records are called in errors ("messages", "rows").
  std::string records = "records";
};

// In-flight accounting under two caps, and the waits of a writer that sends
// asynchronously: for room under the caps, and for everything to resolve
// (Flush). A wait serves the task's mailbox, so completions that free room
// run inside it; it fails the writer with DeadlineExceeded, naming the
// timeout option, when no completion arrives for progress_timeout, and
// returns Cancelled when the job is cancelled. Task thread only.
class InFlight {
 public:
  // `core` latches failures and owns the in-flight gauges; `timer` measures
  // the progress timeout. Both must outlive this object.
  InFlight(InFlightOptions options, WriterCoreBase& core, TaskTimer& timer,
           runtime::MailboxExecutor executor)
      : options_(std::move(options)),
        core_(core),
        timer_(timer),
        executor_(executor) {}

  int64_t records() const { return records_; }
  int64_t bytes() const { return bytes_; }
  bool empty() const { return records_ == 0; }

  bool HasRoom(int64_t bytes) const {
    return records_ == 0 || (records_ + 1 <= options_.max_records &&
                             bytes_ + bytes <= options_.max_bytes);
  }
  void Add(int64_t records, int64_t bytes);
  // Resolved records (written, routed or dropped): frees room, and counts as
  // progress.
  void Release(int64_t records, int64_t bytes);
  // A completion arrived (answers that resolve nothing yet, such as a
  // retry's failure, still show the service is alive).
  void OnProgress() { last_progress_ = timer_.clock().Now(); }
  // Also published to this gauge (e.g. a connector's own name for it).
  void MirrorRecordsTo(std::shared_ptr<Gauge> gauge) {
    mirrors_.push_back(std::move(gauge));
  }

  // Waits until one more record of `bytes` fits. `before_wait` runs first
  // when it does not (to send open batches, which would otherwise never
  // complete).
  template <typename BeforeWait>
  absl::Status WaitForRoom(int64_t bytes, BeforeWait before_wait) {
    if (HasRoom(bytes)) return absl::OkStatus();
    before_wait();
    return WaitUntil(
        [&] { return HasRoom(bytes); },
        absl::StrCat("room under ", options_.max_records_key, "/-bytes"));
  }

  // Waits until `done()` or the writer failed; `what` names the wait in
  // errors. Returns the writer's failure, or Cancelled.
  template <typename Done>
  absl::Status WaitUntil(Done done, const std::string& what) {
    OnProgress();
    while (!core_.failed()) {
      const absl::Time deadline = last_progress_ + options_.progress_timeout;
      const WaitResult result = WaitOnTask(
          timer_, executor_, [&] { return done() || core_.failed(); },
          deadline);
      if (result == WaitResult::kDone) break;
      if (result == WaitResult::kCancelled) {
        return absl::CancelledError(
            absl::StrCat(core_.sink_name(), ": stopped waiting for ", what,
                         " because the job was cancelled"));
      }
      // A completion since the wait began moved the deadline.
      if (timer_.clock().Now() < last_progress_ + options_.progress_timeout) {
        continue;
      }
      core_.Fail(TimedOut(what));
    }
    return core_.failure();
  }

 private:
  absl::Status TimedOut(const std::string& what) const;
  void Publish();

  const InFlightOptions options_;
  WriterCoreBase& core_;
  TaskTimer& timer_;
  runtime::MailboxExecutor executor_;
  std::vector<std::shared_ptr<Gauge>> mirrors_;
  int64_t records_ = 0;
  int64_t bytes_ = 0;
  absl::Time last_progress_ = absl::InfinitePast();
};

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_IN_FLIGHT_H_
