#ifndef GCPSTREAM_BIGQUERY_BIGQUERY_WRITE_ENGINE_H_
#define GCPSTREAM_BIGQUERY_BIGQUERY_WRITE_ENGINE_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/base/destination_states.h"
#include "gcpstream/base/failed_element.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/bigquery/bigquery_sink_options.h"
#include "gcpstream/bigquery/bigquery_write_stub.h"
#include "gcpstream/bigquery/row_serializer.h"
#include "gcpstream/bigquery/staged_files.h"
#include "gcpstream/bigquery/table_destination.h"
#include "gcpstream/bigquery/table_writer.h"
#include "gcpstream/bigquery/tables_client.h"
#include "gcpstream/bigquery/write_stream_admin.h"
#include "gcpstream/connector/completions.h"
#include "gcpstream/connector/in_flight.h"
#include "gcpstream/connector/retry.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/connector/writer_core.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::bigquery {

// A row the BigQuery sink could not write, or a record its resolver could
// not route. The payload is the row as JSON (column -> value), the
// resolver's payload for an unroutable record, or absent when the
// serializer failed.
struct BigQueryFailedElement : FailedElement {};

// The type-independent part of BigQuerySink's writer for the Storage Write
// API: per table its schema (read, or the table created, through the tables
// API) and open batch; per-row verdicts (row errors, or a refused request
// split until the refused row is alone) and retries. The connector kit
// holds the writer core, the in-flight caps, the timer and the completions.
//
// At-least-once (the default stream): one AppendRows connection shared by
// every table, requests pipelined on it and answered in order; a missing
// table is re-created. Exactly-once: per table and checkpoint a PENDING
// stream on a connection of its own, one append at a time with explicit
// offsets (a resend after an ambiguous end answers ALREADY_EXISTS: already
// written); PrepareCommit() finalizes the streams and hands them to the
// committer (BigQueryStreamCommitter), which makes them visible once the
// checkpoint is durable. File loads: per table an open newline-delimited
// JSON file, uploaded to the staging path when full, when the table idles
// or makes room, and at each checkpoint; PrepareCommit() hands the files to
// the committer (BigQueryLoadCommitter), which loads them.
//
// Threading: every public method runs on the writer's task thread; gRPC
// callbacks only post mails to its mailbox.
class BigQueryWriteEngine {
 public:
  using Handler = FailureHandler<BigQueryFailedElement>;

  // Checks `options`, opens the failure handler, the channel and the
  // tables API client.
  static absl::StatusOr<std::unique_ptr<BigQueryWriteEngine>> Create(
      BigQuerySinkOptions options, const runtime::SinkWriterContext& context,
      std::unique_ptr<Handler> handler);

  // Public for std::make_unique only: use Create().
  struct ConstructorKey {
    explicit ConstructorKey() = default;
  };
  BigQueryWriteEngine(ConstructorKey, BigQuerySinkOptions options,
                      const runtime::SinkWriterContext& context,
                      std::shared_ptr<grpc::Channel> channel,
                      rest::RestClientOptions tables);
  ~BigQueryWriteEngine();
  BigQueryWriteEngine(const BigQueryWriteEngine&) = delete;
  BigQueryWriteEngine& operator=(const BigQueryWriteEngine&) = delete;

  // The table's writer, its schema read (or the table created) on first
  // use; null once the writer failed (see failure()).
  TableWriter* Acquire(const TableDestination& table);

  // Takes `row`, encoded in the table's format, once there is room under
  // the in-flight caps; a row over 9 MiB is routed instead. Returns the
  // writer's first failure, if any.
  absl::Status Append(TableWriter& writer, std::string&& row,
                      const WriterContext& context);
  // A buffer for the next row (reused: Append takes its contents).
  std::string& row_buffer() { return row_buffer_; }

  absl::Status RouteSerializationFailure(const TableDestination& table,
                                         const absl::Status& status,
                                         const WriterContext& context) {
    return core_.RouteSerializationFailure(table.ResourceName(), status,
                                           context);
  }
  // The resolver's UnroutableRecord: routed with destination "unresolved".
  absl::Status RouteUnroutable(const TableDestination& table,
                               const WriterContext& context);
  absl::Status Fail(const absl::Status& status) { return core_.Fail(status); }
  void CountSkipped() { core_.CountSkipped(); }
  void CountIn() { core_.CountIn(); }

  const BigQuerySinkOptions& options() const { return options_; }
  RowFormatOptions format_options() const {
    return {.ignore_unknown_fields = options_.ignore_unknown_fields,
            .change_type_field = options_.change_type_field,
            .change_sequence_field = options_.change_sequence_field};
  }

  // Sends every batch and returns once every row is written or routed and
  // the failure handler is flushed; a non-final flush then releases tables
  // idle for longer than destination-idle-timeout.
  absl::Status Flush(bool end_of_input);
  // The input is dry: open batches go out now.
  absl::Status OnInputIdle();
  // Exactly-once: finalizes each table's stream of this checkpoint and
  // returns them as StreamCommittables (at-least-once: none). Called after
  // Flush(), so every row is appended.
  absl::StatusOr<std::vector<std::string>> PrepareCommit(int64_t checkpoint_id);
  // Cancels what is in flight and waits until gRPC let go of it.
  void Close();

  const absl::Status& failure() const { return core_.failure(); }
  int64_t in_flight_rows() const { return in_flight_->records(); }

 private:
  struct Call;
  using Calls = std::map<uint64_t, std::unique_ptr<Call>>;
  // An AppendRows stream calls go out on: at-least-once one for every
  // table (key ""), exactly-once one per PENDING stream (key: its name).
  struct Connection {
    uint64_t generation = 0;
    std::shared_ptr<AppendRowsStream> stream;
    // Calls written and not yet answered, in write order.
    std::deque<uint64_t> pending;
  };
  struct Metrics {
    std::shared_ptr<Gauge> connections_open;
    std::shared_ptr<Counter> connections_opened;
    std::shared_ptr<Counter> appends_split;
    std::shared_ptr<Counter> rows_resent;
    std::shared_ptr<Counter> tables_created;
    std::shared_ptr<Counter> schemas_updated;
    std::shared_ptr<Counter> streams_created;
    std::shared_ptr<Counter> streams_finalized;
    std::shared_ptr<Counter> appends_already_written;
    std::shared_ptr<Histogram> append_latency;
    StagedFiles::Metrics staged{};  // File loads only.
  };

  absl::Status Init(const runtime::SinkWriterContext& context,
                    std::unique_ptr<Handler> handler);
  absl::Status RegisterMetrics();
  // bigquery_tables.cc.
  absl::StatusOr<std::unique_ptr<TableWriter>> MakeTableWriter(
      const TableDestination& table);
  // The table's schema: read, or the table (and its dataset) created.
  absl::StatusOr<TableSchema> EnsureTable(const TableDestination& table);

  // File loads (bigquery_file_loads.cc): the row as a line of the table's
  // open file, routed when it has no JSON form; a full file is uploaded.
  absl::Status Stage(TableWriter& writer, const std::string& row,
                     const WriterContext& context);
  // Uploads the table's open file, if it has rows.
  absl::Status FinishFile(TableWriter& writer);
  // Makes room: the file of the least recently used table with one.
  absl::Status FinishLeastRecentFile();
  // The files of tables unused for destination-idle-timeout.
  absl::Status FinishIdleFiles();
  absl::StatusOr<std::vector<std::string>> PrepareLoads();
  // Exactly-once (bigquery_exactly_once.cc, with Pump and AfterAppend):
  // finalizes the checkpoint's streams into StreamCommittables.
  absl::StatusOr<std::vector<std::string>> PrepareStreams(
      int64_t checkpoint_id);

  void SendOpen(TableWriter& writer);
  void SendAllOpen();
  // Exactly-once: starts the table's next ready batch unless an append is
  // out, once the table has an append connection (max-append-connections),
  // creating the checkpoint's stream first.
  void Pump(TableWriter& writer);
  // Exactly-once, after one of the table's appends ended: the next batch,
  // or the connection to a waiting table.
  void AfterAppend(TableWriter& writer);
  // A new call for `rows` of `writer`'s table, started now.
  void StartCall(TableWriter& writer,
                 std::shared_ptr<storage_v1::AppendRowsRequest> request,
                 int64_t rows, int64_t bytes, int attempts);
  void Send(Call& call);
  Connection& OpenConnection(const std::string& key,
                             const std::string& first_stream);
  void CloseConnection(const std::string& key);
  void OnResponse(const std::string& key, uint64_t generation,
                  const storage_v1::AppendRowsResponse& response);
  void OnStreamDone(const std::string& key, uint64_t generation,
                    const absl::Status& status);
  void OnAppended(Calls::iterator it);
  void OnRowErrors(Calls::iterator it,
                   const storage_v1::AppendRowsResponse& response);
  void OnFailure(Calls::iterator it, const absl::Status& status);
  void OnMissingTable(Call& call, const absl::Status& status);
  // A refusal of new columns soon after this writer added them: the
  // service's schema has not reached the Storage Write API yet.
  bool IsSchemaNotYetPropagated(const Call& call,
                                const absl::Status& status) const;
  // Sends the call's rows as two calls (a refusal with no row named).
  void Split(Calls::iterator it);
  void RetryLater(Call& call, const absl::Status& status);
  void OnRetryDue(uint64_t id);
  void RouteRow(const Call& call, int index, const absl::Status& status);
  void Finish(Calls::iterator it);
  TableWriter* WriterOf(const Call& call) const;

  const BigQuerySinkOptions options_;
  runtime::MailboxExecutor executor_;
  std::unique_ptr<connector::TaskTimer> timer_;
  const Clock& clock_;
  connector::WriterCore<BigQueryFailedElement> core_;
  std::optional<connector::InFlight> in_flight_;
  std::shared_ptr<grpc::Channel> channel_;
  std::shared_ptr<BigQueryWriteStub> stub_;
  TablesClient tables_;
  Metrics metrics_;
  DestinationStates<TableDestination, TableWriter> writers_;
  connector::Completions completions_;
  const bool exactly_once_;
  std::optional<WriteStreamAdmin> admin_;  // Exactly-once only.
  const bool file_loads_;
  std::optional<StagedFiles> staged_;  // File loads only.
  // File loads: bytes in open files, over every table.
  int64_t open_file_bytes_ = 0;
  std::map<std::string, Connection> connections_;
  // Exactly-once: tables holding an append connection, and tables waiting
  // for one, first come first served.
  int64_t tables_appending_ = 0;
  std::deque<TableDestination> waiting_tables_;
  uint64_t next_generation_ = 1;
  Calls calls_;
  uint64_t next_call_id_ = 0;
  std::string row_buffer_;
  bool closed_ = false;
};

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_BIGQUERY_WRITE_ENGINE_H_
