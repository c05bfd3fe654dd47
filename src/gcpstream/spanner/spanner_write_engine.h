#ifndef GCPSTREAM_SPANNER_SPANNER_WRITE_ENGINE_H_
#define GCPSTREAM_SPANNER_SPANNER_WRITE_ENGINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/base/failed_element.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/rejection_confirmation.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/runtime/sink.h"
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
// both write methods, retries, rejection confirmation and the failure
// handler. At most one request is in flight; while it is, the task thread
// serves its mailbox. Task thread only.
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
                     const runtime::SinkWriterContext& context,
                     std::unique_ptr<Handler> handler);
  ~SpannerWriteEngine();
  SpannerWriteEngine(const SpannerWriteEngine&) = delete;
  SpannerWriteEngine& operator=(const SpannerWriteEngine&) = delete;

  // Encodes `mutation` against the schema (a value that does not fit is a
  // per-record failure) and buffers it, sending the batch first when the
  // mutation would push it past a limit or touches a key already in it.
  absl::Status Write(Mutation mutation, const WriterContext& context);
  absl::Status RouteSerializationFailure(const absl::Status& status,
                                         const WriterContext& context);
  void CountSkipped() { metrics_.records_skipped->Increment(); }
  void CountIn() { metrics_.records_in->Increment(); }

  // Sends the buffered batch and returns once every mutation is applied or
  // routed, and the failure handler is flushed.
  absl::Status Flush(bool end_of_input);
  void Close();

  WriteMethod write_method() const { return method_; }

 private:
  struct Pending {
    Mutation mutation;
    EncodedMutation encoded;
  };
  struct Metrics {
    std::shared_ptr<Counter> mutations_retried;
    std::shared_ptr<Counter> batches_sent;
    std::shared_ptr<Counter> write_method_fallbacks;
    std::shared_ptr<Gauge> buffered_mutations;
    std::shared_ptr<Gauge> buffered_cells;
    std::shared_ptr<Gauge> buffered_bytes;
  };

  absl::Status Init(const runtime::SinkWriterContext& context);
  absl::Status RegisterMetrics(const runtime::SinkWriterContext& context);
  // Keys a write or delete touches, for the one-mutation-per-key-per-batch
  // rule; nullopt when it cannot be known (a range delete, a write without
  // the whole key).
  std::optional<std::vector<std::string>> KeysOf(const Pending& pending) const;
  absl::Status SendBatch();
  absl::Status SendViaBatchWrite(std::vector<Pending*> batch);
  absl::Status SendViaCommit(std::vector<Pending*> batch);
  // Rejection confirmation: each mutation committed alone.
  absl::Status ConfirmEach(const std::vector<Pending*>& batch);
  absl::Status CommitAlone(Pending& pending);
  absl::Status Commit(const std::vector<Pending*>& batch);
  // Waits `delay` (serving the mailbox); Cancelled if the job is.
  absl::Status Sleep(absl::Duration delay);
  absl::Status Route(const Pending& pending, const absl::Status& status,
                     int attempts);
  absl::Status Fail(const absl::Status& status);
  absl::Status RetryExhausted(const RetryDecision& decision, size_t mutations);
  void CountError(const absl::Status& status);
  void UpdateBufferGauges();

  const SpannerSinkOptions options_;
  const Clock& clock_;
  runtime::MailboxExecutor executor_;
  const int subtask_index_;
  const ClassificationTable& table_;
  std::unique_ptr<Handler> handler_;
  std::unique_ptr<SpannerConnection> connection_;
  std::optional<SchemaCatalog> catalog_;
  std::optional<RejectionConfirmation> rejection_;
  WriteMethod method_;
  MetricsRegistry* registry_;
  MetricLabels labels_;
  SinkMetrics metrics_;
  Metrics spanner_metrics_;
  absl::flat_hash_map<absl::StatusCode, std::shared_ptr<Counter>> errors_;

  std::vector<Pending> batch_;
  absl::flat_hash_set<std::string> batch_keys_;
  // The batch holds a mutation whose keys are unknown: nothing may join it.
  bool batch_sealed_ = false;
  int64_t batch_cells_ = 0;
  int64_t batch_bytes_ = 0;
  absl::Status failure_;
  bool closed_ = false;
};

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SPANNER_WRITE_ENGINE_H_
