#ifndef GCPSTREAM_RUNTIME_SINK_H_
#define GCPSTREAM_RUNTIME_SINK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/runtime/mailbox.h"

namespace gcpstream::runtime {

struct SinkWriterContext {
  int subtask_index = 0;
  int parallelism = 1;
  std::string pipeline;
  std::string sink_name;
  // Completions of asynchronous sends are posted here; Flush() waits on it.
  MailboxExecutor mailbox{nullptr};
  MetricsRegistry* metrics = nullptr;
  // Writer states from the checkpoint being restored (empty on a first
  // start). With the same parallelism, subtask i gets what subtask i saved.
  std::vector<std::string> restored_states;
};

// Writes one subtask's records. Every call happens on the task thread.
template <typename T>
class SinkWriter {
 public:
  virtual ~SinkWriter() = default;

  // May send asynchronously; a failure of an earlier send may surface here.
  virtual absl::Status Write(const T& record, const WriterContext& context) = 0;

  // Returns only when every record written before it is acknowledged by the
  // destination, skipped, or handed to the failure handler (whose own Flush
  // has made it durable). `end_of_input` is true for the last flush.
  virtual absl::Status Flush(bool end_of_input) = 0;

  // The input is momentarily dry: send partial batches now rather than at
  // the next full batch, batch timer or checkpoint, so a trickle of records
  // is not held back. Called between records, often; must be cheap when
  // there is nothing to send.
  virtual absl::Status OnInputIdle() { return absl::OkStatus(); }

  // State to keep in the checkpoint (called right after Flush()).
  virtual absl::StatusOr<std::string> SnapshotState(int64_t /*checkpoint_id*/) {
    return std::string();
  }

  // Two-phase sinks: what the committer must make visible once checkpoint
  // `checkpoint_id` is durable (called after SnapshotState()).
  virtual absl::StatusOr<std::vector<std::string>> PrepareCommit(
      int64_t /*checkpoint_id*/) {
    return std::vector<std::string>();
  }

  // Releases resources. Persists nothing.
  virtual void Close() {}
};

// Where a committer runs, for its logs and metrics.
struct CommitterContext {
  std::string pipeline;
  std::string sink_name;
  MetricsRegistry* metrics = nullptr;  // Null: none.
};

// Makes committables visible after their checkpoint completed. Commit() runs
// again for the same committables after a crash between "checkpoint durable"
// and "commit done", so it must be idempotent.
class Committer {
 public:
  virtual ~Committer() = default;
  // Called once, before the first Commit().
  virtual void Bind(const CommitterContext& /*context*/) {}
  virtual absl::Status Commit(int64_t checkpoint_id,
                              const std::vector<std::string>& committables) = 0;
};

template <typename T>
class Sink {
 public:
  virtual ~Sink() = default;
  virtual std::string name() const = 0;
  virtual absl::StatusOr<std::unique_ptr<SinkWriter<T>>> CreateWriter(
      const SinkWriterContext& context) = 0;
  // Only two-phase sinks have one.
  virtual std::unique_ptr<Committer> CreateCommitter() { return nullptr; }
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_SINK_H_
