#ifndef GCPSTREAM_BIGTABLE_BIGTABLE_WRITE_ENGINE_H_
#define GCPSTREAM_BIGTABLE_BIGTABLE_WRITE_ENGINE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/base/destination_states.h"
#include "gcpstream/base/failed_element.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/bigtable/bigtable_sink_options.h"
#include "gcpstream/bigtable/bigtable_stub.h"
#include "gcpstream/bigtable/row_mutation.h"
#include "gcpstream/bigtable/table_batcher.h"
#include "gcpstream/bigtable/table_destination.h"
#include "gcpstream/bigtable/table_ensurer.h"
#include "gcpstream/connector/completions.h"
#include "gcpstream/connector/entry_outcomes.h"
#include "gcpstream/connector/in_flight.h"
#include "gcpstream/connector/retry.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/connector/writer_core.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::bigtable {

// An entry the Bigtable sink could not write. The payload is the entry in
// protobuf JSON form (bytes in base64); absent when the serializer failed.
struct BigtableFailedElement : FailedElement {
  std::optional<google::bigtable::v2::MutateRowsRequest::Entry> entry;
};

// The type-independent part of BigtableSink's writer: one TableBatcher per
// active table, MutateRows calls with per-entry verdicts and retries, and
// table creation. The connector kit holds the rest: the writer core
// (failure handler, metrics, rejection confirmation, first failure), the
// in-flight caps, the timer and the completions.
//
// Threading: every public method runs on the writer's task thread. gRPC
// callbacks only post a mail to the task's mailbox; the engine's state
// changes when the task runs it (inside Write or Flush while they wait, or
// between records).
class BigtableWriteEngine {
 public:
  using Handler = FailureHandler<BigtableFailedElement>;

  // Checks `options`, opens the failure handler and creates the channel.
  static absl::StatusOr<std::unique_ptr<BigtableWriteEngine>> Create(
      BigtableSinkOptions options, const runtime::SinkWriterContext& context,
      std::unique_ptr<Handler> handler);

  // Public for std::make_unique only: use Create().
  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  BigtableWriteEngine(ConstructorKey, BigtableSinkOptions options,
                      const runtime::SinkWriterContext& context,
                      std::shared_ptr<grpc::Channel> channel);
  ~BigtableWriteEngine();
  BigtableWriteEngine(const BigtableWriteEngine&) = delete;
  BigtableWriteEngine& operator=(const BigtableWriteEngine&) = delete;

  // Takes the entry for `table` once there is room under the in-flight
  // caps. An entry the service would refuse on its own (over a limit, a bad
  // timestamp) goes to the failure handler instead. Returns the first
  // failure of the writer, if any.
  absl::Status Write(RowMutationEntry entry, const TableDestination& table,
                     const WriterContext& context);
  absl::Status RouteSerializationFailure(const TableDestination& table,
                                         const absl::Status& status,
                                         const WriterContext& context) {
    return core_.RouteSerializationFailure(table.ResourceName(), status,
                                           context);
  }
  void CountSkipped() { core_.CountSkipped(); }
  void CountIn() { core_.CountIn(); }

  // Sends every batch and returns once every entry is written or routed and
  // the failure handler is flushed. A non-final flush then releases the
  // batchers of tables idle for longer than destination-idle-timeout.
  absl::Status Flush(bool end_of_input);
  // The input is dry: open batches go out now.
  absl::Status OnInputIdle();
  // Cancels what is in flight and waits until gRPC let go of it.
  void Close();

  const absl::Status& failure() const { return core_.failure(); }
  int64_t in_flight_entries() const { return in_flight_->records(); }
  size_t active_batchers() const { return batchers_.size(); }

 private:
  struct Call;
  using Calls = std::map<uint64_t, std::unique_ptr<Call>>;
  struct Metrics {
    std::shared_ptr<Gauge> parked_entries;
    std::shared_ptr<Counter> entries_resent;
    std::shared_ptr<Histogram> mutate_latency;
  };

  absl::Status Init(const runtime::SinkWriterContext& context,
                    std::unique_ptr<Handler> handler);
  absl::Status RegisterMetrics();
  absl::StatusOr<TableBatcher*> AcquireBatcher(const TableDestination& table);

  // Turns the batcher's open batch into a call and starts (or parks) it.
  void SendOpen(TableBatcher& batcher);
  void Send(TableBatcher& batcher, EntryBatch batch);
  void SendAllOpen();
  void StartAttempt(Call& call, TableBatcher& batcher);
  void OnMutateDone(uint64_t id, const absl::Status& status);
  // Every entry of the call is decided: frees the call.
  void Finish(Calls::iterator it, TableBatcher& batcher);
  // The call's entries at `indexes` go again, with the table's other
  // resends, after the table's backoff; the call is done.
  void ResendLater(Calls::iterator it, TableBatcher& batcher,
                   const std::vector<size_t>& indexes, const absl::Status& why);
  void OnRetriesDue(const TableDestination& table);
  void Park(Call& call);
  void OnTableReady(TableBatcher& batcher);
  // Fails the writer unless the table has every family `entries` name.
  bool CheckFamilies(const Call& call, const TableBatcher& batcher);
  absl::Status FatalEntry(const Call& call, size_t index,
                          const absl::Status& status) const;
  void Route(const Call& call, size_t index, const absl::Status& status);
  void Release(int64_t entries, int64_t bytes);

  const BigtableSinkOptions options_;
  runtime::MailboxExecutor executor_;
  std::unique_ptr<connector::TaskTimer> timer_;
  const Clock& clock_;
  connector::WriterCore<BigtableFailedElement> core_;
  std::optional<connector::InFlight> in_flight_;
  std::shared_ptr<grpc::Channel> channel_;
  std::shared_ptr<BigtableStub> stub_;
  Metrics metrics_;
  DestinationStates<TableDestination, TableBatcher> batchers_;
  connector::Completions completions_;
  std::optional<TableEnsurer> ensurer_;
  Calls calls_;  // In id (send) order.
  // The batcher the previous entry went to; null when unknown or possibly
  // released.
  TableBatcher* last_batcher_ = nullptr;
  uint64_t next_call_id_ = 0;
  int64_t parked_entries_ = 0;
  bool closed_ = false;
};

}  // namespace gcpstream::bigtable

#endif  // GCPSTREAM_BIGTABLE_BIGTABLE_WRITE_ENGINE_H_
