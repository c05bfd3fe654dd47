#ifndef GCPSTREAM_CLOUDTASKS_CLOUDTASKS_WRITE_ENGINE_H_
#define GCPSTREAM_CLOUDTASKS_CLOUDTASKS_WRITE_ENGINE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/base/failed_element.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/cloudtasks/cloudtasks_sink_options.h"
#include "gcpstream/cloudtasks/cloudtasks_stub.h"
#include "gcpstream/cloudtasks/queue_destination.h"
#include "gcpstream/cloudtasks/task_check.h"
#include "gcpstream/connector/completions.h"
#include "gcpstream/connector/in_flight.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/connector/writer_core.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::cloudtasks {

// A task the Cloud Tasks sink could not create. The payload is the task in
// protobuf JSON form (the body in base64); absent when the serializer
// failed.
struct CloudTasksFailedElement : FailedElement {
  std::optional<Task> task;
};

// The type-independent part of CloudTasksSink's writer: one CreateTask per
// record, retried per the failure table; no state per queue. The connector
// kit holds the writer core, the in-flight cap, the timer and the
// completions. Task thread only; gRPC callbacks post to the mailbox.
class CloudTasksWriteEngine {
 public:
  using Handler = FailureHandler<CloudTasksFailedElement>;

  // Checks `options`, opens the failure handler and creates the channels.
  static absl::StatusOr<std::unique_ptr<CloudTasksWriteEngine>> Create(
      CloudTasksSinkOptions options, const runtime::SinkWriterContext& context,
      std::unique_ptr<Handler> handler);

  // Public for std::make_unique only: use Create().
  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  CloudTasksWriteEngine(ConstructorKey, CloudTasksSinkOptions options,
                        const runtime::SinkWriterContext& context,
                        std::vector<std::shared_ptr<grpc::Channel>> channels);
  ~CloudTasksWriteEngine();
  CloudTasksWriteEngine(const CloudTasksWriteEngine&) = delete;
  CloudTasksWriteEngine& operator=(const CloudTasksWriteEngine&) = delete;

  // Creates `task` in `queue` once there is room under max-in-flight-tasks.
  // A task the service would refuse on its own goes to the failure handler.
  // `named`: the sink named it (task-id-extractor), so a resend is safe and
  // ALREADY_EXISTS means a replay found its task.
  absl::Status Write(Task task, const QueueDestination& queue, bool named,
                     const WriterContext& context);
  absl::Status RouteSerializationFailure(const QueueDestination& queue,
                                         const absl::Status& status,
                                         const WriterContext& context) {
    return core_.RouteSerializationFailure(queue.ResourceName(), status,
                                           context);
  }
  // Fails the writer (a record it cannot name, a serializer-named task).
  absl::Status Fail(const absl::Status& status) { return core_.Fail(status); }
  void CountSkipped() { core_.CountSkipped(); }
  void CountIn() { core_.CountIn(); }

  // Returns once every create is answered (created, deduplicated or
  // routed) and the failure handler is flushed.
  absl::Status Flush(bool end_of_input);
  absl::Status OnInputIdle() { return core_.failure(); }
  void Close();

  const absl::Status& failure() const { return core_.failure(); }
  const std::string& name() const { return options_.name; }

 private:
  struct Call;
  using Calls = std::map<uint64_t, std::unique_ptr<Call>>;
  struct Metrics {
    std::shared_ptr<Gauge> parked_tasks;
    std::shared_ptr<Counter> tasks_deduplicated;
    std::shared_ptr<Histogram> create_latency;
  };

  absl::Status Init(const runtime::SinkWriterContext& context,
                    std::unique_ptr<Handler> handler);
  absl::Status RegisterMetrics();
  void StartAttempt(Call& call);
  void OnCreateDone(uint64_t id, const absl::Status& status);
  void OnMissingQueue(Call& call, const absl::Status& status);
  void RetryLater(Call& call, const RetryDecision& decision);
  void OnRetryDue(uint64_t id);
  void Finish(Calls::iterator it);
  static CloudTasksFailedElement Failed(const Call& call,
                                        const absl::Status& status);

  const CloudTasksSinkOptions options_;
  runtime::MailboxExecutor executor_;
  std::unique_ptr<connector::TaskTimer> timer_;
  const Clock& clock_;
  connector::WriterCore<CloudTasksFailedElement> core_;
  std::optional<connector::InFlight> in_flight_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::shared_ptr<CloudTasksStub> stub_;
  Metrics metrics_;
  connector::Completions completions_;
  Calls calls_;
  uint64_t next_call_id_ = 0;
  int64_t parked_ = 0;
  bool closed_ = false;
};

}  // namespace gcpstream::cloudtasks

#endif  // GCPSTREAM_CLOUDTASKS_CLOUDTASKS_WRITE_ENGINE_H_
