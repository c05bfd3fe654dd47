#ifndef GCPSTREAM_RUNTIME_SOURCE_H_
#define GCPSTREAM_RUNTIME_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/runtime/mailbox.h"

namespace gcpstream::runtime {

// A unit of input a reader owns (a file, a slice of a sequence, a
// subscription) with its progress, serialized by the source. Splits are what
// checkpoints store for sources: on restore every split resumes from the
// state recorded in the latest complete checkpoint.
struct Split {
  std::string id;     // Stable across restarts; unique within the source.
  std::string state;  // Opaque to the runtime.
};

// Where a reader emits records.
template <typename T>
class ReaderOutput {
 public:
  virtual ~ReaderOutput() = default;
  virtual void Collect(T value) = 0;
  // With an event time the source knows (e.g. a Pub/Sub publish time); a
  // watermark strategy's timestamp function, if any, takes precedence.
  virtual void Collect(T value, absl::Time event_time) = 0;
};

enum class InputStatus {
  kMoreAvailable,     // Call PollNext() again soon.
  kNothingAvailable,  // Nothing now; poll again after `retry_after` or a mail.
  kEndOfInput,        // Every split of this reader is exhausted.
};

struct PollResult {
  InputStatus status = InputStatus::kMoreAvailable;
  absl::Duration retry_after = absl::ZeroDuration();
};

struct SourceReaderContext {
  int subtask_index = 0;
  int parallelism = 1;
  std::string pipeline;
  // Post completions (e.g. "messages arrived") to wake the task thread.
  MailboxExecutor mailbox{nullptr};
  MetricsRegistry* metrics = nullptr;
  // The pipeline's checkpoint interval (infinite outside a pipeline). A
  // source that acts on completed checkpoints (e.g. acknowledges) can warn
  // when it is too long for what it holds.
  absl::Duration checkpoint_interval = absl::InfiniteDuration();
};

// Reads the splits assigned to one subtask. Every call happens on the
// subtask's task thread.
template <typename T>
class SourceReader {
 public:
  virtual ~SourceReader() = default;

  // Emits what is available now, bounded so the task can serve its mailbox
  // and checkpoints between calls (a few hundred to a few thousand records).
  virtual absl::StatusOr<PollResult> PollNext(ReaderOutput<T>& output) = 0;

  // The state of every split this reader owns, finished ones included, as of
  // the last record emitted.
  virtual absl::StatusOr<std::vector<Split>> SnapshotState(
      int64_t checkpoint_id) = 0;

  // Checkpoint `checkpoint_id` is durable: e.g. acknowledge what it covers.
  virtual absl::Status NotifyCheckpointComplete(int64_t /*checkpoint_id*/) {
    return absl::OkStatus();
  }

  // Releases resources. Persists nothing.
  virtual void Close() {}
};

template <typename T>
class Source {
 public:
  using RecordType = T;
  virtual ~Source() = default;

  virtual std::string name() const = 0;
  virtual bool bounded() const = 0;

  // The splits of a first start (no checkpoint yet); deterministic, so that
  // a process that crashes before its first checkpoint reads the same input
  // again. Assigned to readers round-robin in order.
  virtual absl::StatusOr<std::vector<Split>> PlanSplits(int parallelism) = 0;

  // A reader for `splits` (from PlanSplits or from a checkpoint).
  virtual absl::StatusOr<std::unique_ptr<SourceReader<T>>> CreateReader(
      const SourceReaderContext& context, std::vector<Split> splits) = 0;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_SOURCE_H_
