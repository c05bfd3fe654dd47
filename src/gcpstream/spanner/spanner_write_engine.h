#ifndef GCPSTREAM_SPANNER_SPANNER_WRITE_ENGINE_H_
#define GCPSTREAM_SPANNER_SPANNER_WRITE_ENGINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/base/failed_element.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/connector/batching_sink.h"
#include "gcpstream/connector/retry.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/connector/writer_core.h"
#include "gcpstream/runtime/sink.h"
#include "gcpstream/spanner/mutation_batch.h"
#include "gcpstream/spanner/schema_catalog.h"
#include "gcpstream/spanner/spanner_connection.h"
#include "gcpstream/spanner/spanner_mutation.h"
#include "gcpstream/spanner/spanner_sink_options.h"

namespace gcpstream::spanner {

// A mutation the Spanner sink could not write. The payload is
// Mutation::ToJson() (absent when the serializer failed); the attributes
// name the table and operation.
struct SpannerFailedElement : FailedElement {
  std::optional<Mutation> mutation;
};

// The type-independent part of SpannerSink's writer: the schema, batching,
// both write methods and their retries. The writer core (connector/) holds
// the failure handler, metrics and rejection confirmation. At most one
// request is in flight; while it is, the task thread serves its mailbox.
// Task thread only.
class SpannerWriteEngine {
 public:
  using Handler = FailureHandler<SpannerFailedElement>;

  // Opens a session, reads the schema and opens the failure handler.
  static absl::StatusOr<std::unique_ptr<SpannerWriteEngine>> Create(
      SpannerSinkOptions options, const runtime::SinkWriterContext& context,
      std::unique_ptr<Handler> handler);

  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  SpannerWriteEngine(ConstructorKey, SpannerSinkOptions options,
                     const runtime::SinkWriterContext& context);
  ~SpannerWriteEngine();
  SpannerWriteEngine(const SpannerWriteEngine&) = delete;
  SpannerWriteEngine& operator=(const SpannerWriteEngine&) = delete;

  // Encodes `mutation` against the schema (a value that does not fit is a
  // per-record failure) and buffers it, sending the batch first when the
  // mutation would push it past a limit or touches a key already in it.
  absl::Status Write(Mutation mutation, const connector::NoDestination&,
                     const WriterContext& context);
  // What a serializer that encodes records itself writes against: the
  // schema, and the open batch's arena (the proto must be allocated there).
  const SchemaCatalog& catalog() const { return *catalog_; }
  google::protobuf::Arena& arena() { return batch_->arena(); }
  // Write() of a mutation the serializer encoded itself on arena();
  // `build_typed` builds its typed form, should the write fail.
  absl::Status WriteEncoded(EncodedMutation encoded,
                            TypedMutationBuilder build_typed);
  absl::Status RouteSerializationFailure(const connector::NoDestination&,
                                         const absl::Status& status,
                                         const WriterContext& context) {
    return core_.RouteSerializationFailure(options_.database.ResourceName(),
                                           status, context);
  }
  void CountSkipped() { core_.CountSkipped(); }
  void CountIn() { core_.CountIn(); }

  // Sends the buffered batch and returns once every mutation is applied or
  // routed, and the failure handler is flushed.
  absl::Status Flush(bool end_of_input);
  // The input is dry: the open batch is sent now (and waited for).
  absl::Status OnInputIdle();
  void Close();

  WriteMethod write_method() const { return method_; }

 private:
  struct Metrics {
    std::shared_ptr<Counter> mutations_retried;
    std::shared_ptr<Counter> batches_sent;
    std::shared_ptr<Counter> write_method_fallbacks;
    std::shared_ptr<Gauge> buffered_mutations;
    std::shared_ptr<Gauge> buffered_cells;
    std::shared_ptr<Gauge> buffered_bytes;
    std::shared_ptr<Histogram> write_latency;
  };
  using Batch = std::vector<PendingMutation*>;

  absl::Status Init(const runtime::SinkWriterContext& context,
                    std::unique_ptr<Handler> handler);
  absl::Status RegisterMetrics();
  connector::RetryContext RetryContext() const;
  // Batches an encoded mutation (sending the open batch first when it does
  // not fit).
  absl::Status Enqueue(PendingMutation pending);
  absl::Status SendBatch();
  // Sends a taken batch; its arena lives until the batch is decided.
  absl::Status Send(MutationBatch::Taken batch);
  absl::Status SendViaBatchWrite(Batch batch);
  // One BatchWrite of `undecided`; leaves in it what must be sent again.
  // Sets `fell_back` when the service has no BatchWrite.
  connector::AttemptResult BatchWriteOnce(Batch& undecided, int attempts,
                                          bool& fell_back);
  absl::Status SendViaCommit(Batch batch);
  // Rejection confirmation: each mutation committed alone.
  absl::Status ConfirmEach(const Batch& batch);
  absl::Status CommitAlone(PendingMutation& pending);
  absl::Status Commit(const Batch& batch);
  void CountWritten(const PendingMutation& pending);
  void CountRetried(size_t mutations);
  absl::Status Route(const PendingMutation& pending, const absl::Status& status,
                     int attempts);
  absl::Status Refused(const PendingMutation& pending,
                       const absl::Status& status) const;
  absl::Status Undecided(const absl::Status& exhausted, size_t mutations) const;
  // " (FAILED_PRECONDITION; constraint-violation-policy=fail-job: ...)": the
  // code, the policy, and how to route such refusals when that would.
  std::string RefusalNote(absl::StatusCode code) const;
  void UpdateBufferGauges();

  const SpannerSinkOptions options_;
  runtime::MailboxExecutor executor_;
  std::unique_ptr<connector::TaskTimer> timer_;
  const ClassificationTable& table_;
  connector::WriterCore<SpannerFailedElement> core_;
  std::unique_ptr<SpannerConnection> connection_;
  std::optional<SchemaCatalog> catalog_;
  std::optional<MutationBatch> batch_;
  WriteMethod method_;
  Metrics spanner_metrics_;
  bool closed_ = false;
};

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SPANNER_WRITE_ENGINE_H_
