#include "gcpstream/bigquery/bigquery_write_engine.h"

#include <algorithm>
#include <utility>

#include <grpcpp/client_context.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/bigquery/bigquery_classification.h"
#include "gcpstream/connector/rpc_observer.h"
#include "gcpstream/connector/task_wait.h"

namespace gcpstream::bigquery {
namespace {

using storage_v1::AppendRowsRequest;
using storage_v1::AppendRowsResponse;

constexpr connector::ConnectorName kBigQueryWriter{
    .name = "bigquery",
    .error_metric_prefix = "append_errors_",
    .error_metric_help =
        "AppendRows answers (in-stream errors, stream ends) with this code."};

// How long an AppendRows stream may stay open: the service closes idle
// ones after 10 minutes and any after a few days; a deadline bounds a hung
// stream, which is then reopened.
constexpr absl::Duration kStreamDeadline = absl::Hours(1);

// How long after the sink patched a table's schema the Storage Write API
// may still refuse rows with the new columns ("Input schema has more fields
// than BigQuery schema"): such refusals are retried, not routed.
constexpr absl::Duration kSchemaPropagation = absl::Minutes(10);

}  // namespace

// One AppendRows request through its attempts. Task thread only; gRPC
// holds its own serialized copy of the request once written.
struct BigQueryWriteEngine::Call {
  uint64_t id = 0;
  TableDestination table;
  std::shared_ptr<AppendRowsRequest> request;
  std::shared_ptr<const RowFormat> format;
  int64_t rows = 0;
  int64_t bytes = 0;
  // Exactly-once: the stream offset of the first row; -1 on the default
  // stream.
  int64_t offset = -1;
  // The connection it goes out on.
  std::string connection;
  // Sends so far of these rows (a split's halves inherit the count).
  int attempts = 0;
  absl::Time sent = absl::InfinitePast();
  // Made on the first transient failure.
  std::optional<connector::Retry> retry;
  connector::TaskTimer::Id retry_timer = 0;
};

absl::StatusOr<std::unique_ptr<BigQueryWriteEngine>>
BigQueryWriteEngine::Create(BigQuerySinkOptions options,
                            const runtime::SinkWriterContext& context,
                            std::unique_ptr<Handler> handler) {
  if (absl::Status status = CheckBigQuerySinkOptions(options); !status.ok()) {
    return status;
  }
  // File loads speak REST only.
  std::shared_ptr<grpc::Channel> channel;
  if (options.write_method != WriteMethod::kFileLoads) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> made =
        auth::MakeChannel(auth::Service::kBigQueryStorage, options.channel);
    if (!made.ok()) return made.status();
    channel = *std::move(made);
  }
  absl::StatusOr<rest::RestClientOptions> tables = TablesRestOptions(options);
  if (!tables.ok()) return tables.status();
  auto engine = std::make_unique<BigQueryWriteEngine>(
      ConstructorKey(), std::move(options), context, std::move(channel),
      *std::move(tables));
  if (absl::Status status = engine->Init(context, std::move(handler));
      !status.ok()) {
    return status;
  }
  return engine;
}

BigQueryWriteEngine::BigQueryWriteEngine(
    ConstructorKey, BigQuerySinkOptions options,
    const runtime::SinkWriterContext& context,
    std::shared_ptr<grpc::Channel> channel, rest::RestClientOptions tables)
    : options_(std::move(options)),
      executor_(context.mailbox),
      timer_(connector::MakeTimer(options_.make_timer, executor_)),
      clock_(options_.clock != nullptr ? *options_.clock : timer_->clock()),
      channel_(std::move(channel)),
      tables_([&] {
        // A REST backoff serves the mailbox, as every wait of a writer does.
        tables.sleep = [this](absl::Duration delay) {
          return connector::SleepOnTask(*timer_, executor_, delay,
                                        options_.name);
        };
        return rest::RestClient(std::move(tables));
      }()),
      writers_(DestinationStatesOptions{.idle_timeout =
                                            options_.destination_idle_timeout,
                                        .capacity = static_cast<size_t>(
                                            options_.max_active_destinations)},
               [this](const TableDestination& table) {
                 return MakeTableWriter(table);
               }),
      completions_(executor_),
      exactly_once_(options_.write_method ==
                    WriteMethod::kStorageApiExactlyOnce),
      file_loads_(options_.write_method == WriteMethod::kFileLoads) {}

BigQueryWriteEngine::~BigQueryWriteEngine() { Close(); }

absl::Status BigQueryWriteEngine::Init(
    const runtime::SinkWriterContext& context,
    std::unique_ptr<Handler> handler) {
  if (absl::Status status = core_.Open(
          connector::WriterCoreOptions::For(kBigQueryWriter, options_,
                                            kBigQueryClassification, clock_),
          context, std::move(handler));
      !status.ok()) {
    return status;
  }
  in_flight_.emplace(
      connector::InFlightOptions{
          .max_records = options_.max_in_flight_rows,
          .max_bytes = options_.max_in_flight_bytes,
          .progress_timeout = options_.write_progress_timeout,
          .max_records_key = kMaxInFlightRowsKey,
          .max_bytes_key = kMaxInFlightBytesKey,
          .progress_timeout_key = kWriteProgressTimeoutKey,
          .completion = "AppendRows",
          .records = "rows"},
      core_, *timer_, executor_);
  if (exactly_once_) {
    admin_.emplace(
        channel_,
        WriteStreamAdminOptions{.retry = options_.retry,
                                .clock = &clock_,
                                .sleep = [this](absl::Duration delay) {
                                  return connector::SleepOnTask(
                                      *timer_, executor_, delay, options_.name);
                                }});
  }
  if (absl::Status registered = RegisterMetrics(); !registered.ok()) {
    return registered;
  }
  if (file_loads_) {
    absl::StatusOr<rest::RestClientOptions> storage =
        StorageRestOptions(options_);
    if (!storage.ok()) return storage.status();
    // A backoff serves the mailbox, as every wait of a writer does.
    storage->sleep = [this](absl::Duration delay) {
      return connector::SleepOnTask(*timer_, executor_, delay, options_.name);
    };
    absl::StatusOr<StagingLocation> location =
        ParseStagingPath(options_.staging_path);
    if (!location.ok()) return location.status();
    staged_.emplace(
        options_.name, context.subtask_index, *std::move(location),
        storage::StorageClient(rest::RestClient(*std::move(storage))),
        metrics_.staged);
  }
  return absl::OkStatus();
}

absl::Status BigQueryWriteEngine::RegisterMetrics() {
  connector::MetricSet set = core_.ConnectorMetrics();
  in_flight_->MirrorRecordsTo(set.AddGauge(
      "in_flight_rows", "Rows taken and not yet written or routed."));
  metrics_ = Metrics{
      .connections_open =
          set.AddGauge("append_streams_open", "Open AppendRows streams."),
      .connections_opened = set.AddCounter(
          "append_streams_opened",
          "AppendRows streams opened (the first, and one after each end)."),
      .appends_split = set.AddCounter(
          "appends_split",
          "Refused appends that named no row, sent again as two halves to "
          "find the refused row."),
      .rows_resent =
          set.AddCounter("rows_resent",
                         "Rows sent again after a refusal of others or a "
                         "transient failure."),
      .tables_created =
          set.AddCounter("tables_created", "Tables the sink created."),
      .schemas_updated = set.AddCounter(
          "table_schemas_updated",
          "Tables whose schema the sink patched (schema-update-options)."),
      .streams_created = set.AddCounter(
          "write_streams_created",
          "PENDING streams created (exactly-once: one per table and "
          "checkpoint with rows)."),
      .streams_finalized = set.AddCounter(
          "write_streams_finalized",
          "PENDING streams finalized and handed to the committer."),
      .appends_already_written = set.AddCounter(
          "appends_already_written",
          "Resent appends the service answered ALREADY_EXISTS: their rows "
          "were written by the send before (exactly-once)."),
      .append_latency = set.AddHistogram(
          "append_latency_seconds",
          "Seconds from writing an AppendRows request to its answer.",
          {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10,
           30, 60}),
  };
  std::shared_ptr<Counter> evicted = set.AddCounter(
      "tables_evicted",
      "Table writers released: idle for destination-idle-timeout, or the "
      "least recently used beyond max-active-destinations.");
  writers_.SetMetrics(std::make_shared<DestinationMetrics>(DestinationMetrics{
      .active = set.AddGauge("tables_active", "Tables with a writer."),
      .created = set.AddCounter("tables_opened", "Table writers opened."),
      .evicted_idle = evicted,
      .evicted_capacity = evicted,
  }));
  if (file_loads_) {
    metrics_.staged = StagedFiles::Metrics{
        .files = set.AddCounter(
            "files_staged",
            "Newline-delimited JSON files uploaded to the staging path "
            "(file-loads)."),
        .bytes = set.AddCounter("staged_bytes", "Bytes of the staged files."),
        .rows = set.AddCounter("rows_staged", "Rows in the staged files."),
    };
  }
  if (channel_ != nullptr) {
    stub_ = MakeBigQueryWriteStub(channel_, options_.make_stub,
                                  connector::LoggedAndTimed(options_.name, {}));
  }
  return set.status();
}

TableWriter* BigQueryWriteEngine::Acquire(const TableDestination& table) {
  if (core_.failed()) return nullptr;
  while (true) {
    absl::StatusOr<DestinationStates<TableDestination, TableWriter>::Acquired>
        acquired = writers_.Acquire(table, clock_.Now());
    if (!acquired.ok()) {
      core_.Fail(acquired.status());
      return nullptr;
    }
    if (!acquired->must_wait) return acquired->state;
    if (file_loads_) {
      // Every table has an open file: finishing one frees its table.
      if (absl::Status finished = FinishLeastRecentFile(); !finished.ok()) {
        core_.Fail(finished);
        return nullptr;
      }
      continue;
    }
    if (exactly_once_ && in_flight_->empty()) {
      // Nothing is out, yet no table is clean: each holds its stream of
      // this checkpoint, released only by the checkpoint.
      core_.Fail(absl::ResourceExhaustedError(absl::StrCat(
          options_.name, ": table ", table.Spec(), " needs a writer, but ",
          options_.max_active_destinations, " tables (option '",
          kMaxActiveDestinationsKey,
          "') already hold rows for this checkpoint, and under '",
          kWriteMethodOption.Name(WriteMethod::kStorageApiExactlyOnce),
          "' a table's stream is released only by the checkpoint: raise the "
          "option or checkpoint more often")));
      return nullptr;
    }
    // Every table has rows out: send them, and wait for one to clear.
    SendAllOpen();
    if (absl::Status waited = in_flight_->WaitUntil(
            [this] { return in_flight_->empty(); },
            absl::StrCat("a table to finish its appends (option '",
                         kMaxActiveDestinationsKey, "' reached)"));
        !waited.ok()) {
      // Failing the core makes the caller's write answer with this error
      // rather than dropping its record.
      core_.Fail(waited);
      return nullptr;
    }
  }
}

absl::Status BigQueryWriteEngine::RouteUnroutable(
    const TableDestination& table, const WriterContext& context) {
  if (core_.failed()) return core_.failure();
  BigQueryFailedElement failed;
  failed.destination = kUnresolvedDestination;
  failed.status = absl::InvalidArgumentError(
      absl::StrCat("record #", context.record_position,
                   " is unroutable: ", table.unroutable_record->reason));
  failed.payload = table.unroutable_record->payload;
  core_.Route(failed);
  return core_.failure();
}

absl::Status BigQueryWriteEngine::Append(TableWriter& writer, std::string&& row,
                                         const WriterContext& context) {
  if (core_.failed()) return core_.failure();
  if (file_loads_) return Stage(writer, row, context);
  const auto bytes = static_cast<int64_t>(row.size());
  if (bytes > kMaxRowBytes) {
    BigQueryFailedElement failed;
    failed.destination = writer.table().ResourceName();
    failed.status = absl::InvalidArgumentError(
        absl::StrCat("record #", context.record_position, ": its row is ",
                     bytes, " bytes, over the ", kMaxRowBytes,
                     " that fit in an AppendRows request (10 MB)"));
    failed.payload = writer.format()->RowAsJson(row);
    core_.Route(failed);
    return core_.failure();
  }
  if (absl::Status room =
          in_flight_->WaitForRoom(bytes, [this] { SendAllOpen(); });
      !room.ok()) {
    return room;
  }
  if (writer.open_rows() > 0 &&
      (writer.open_rows() + 1 > options_.max_batch_rows ||
       writer.open_bytes() + bytes > options_.max_batch_bytes)) {
    SendOpen(writer);
  }
  in_flight_->Add(1, bytes);
  writer.AddRow(std::move(row));
  if (writer.open_rows() >= options_.max_batch_rows) SendOpen(writer);
  return core_.failure();
}

void BigQueryWriteEngine::SendAllOpen() {
  writers_.ForEach([this](const TableDestination&, TableWriter& writer) {
    SendOpen(writer);
  });
}

void BigQueryWriteEngine::SendOpen(TableWriter& writer) {
  if (writer.open_rows() == 0 || core_.failed()) return;
  int64_t rows = 0;
  int64_t bytes = 0;
  std::shared_ptr<AppendRowsRequest> request = writer.TakeOpen(rows, bytes);
  if (!exactly_once_) {
    StartCall(writer, std::move(request), rows, bytes, 0);
    return;
  }
  writer.ready().push_back(
      RowBatch{.request = std::move(request), .rows = rows, .bytes = bytes});
  Pump(writer);
}

void BigQueryWriteEngine::StartCall(TableWriter& writer,
                                    std::shared_ptr<AppendRowsRequest> request,
                                    int64_t rows, int64_t bytes, int attempts) {
  auto call = std::make_unique<Call>();
  call->id = next_call_id_++;
  call->table = writer.table();
  call->request = std::move(request);
  call->request->set_write_stream(writer.stream());
  if (exactly_once_) {
    call->offset = writer.stream_rows();
    call->request->mutable_offset()->set_value(call->offset);
    call->connection = writer.stream();
  }
  call->format = writer.format();
  call->rows = rows;
  call->bytes = bytes;
  call->attempts = attempts;
  Call& started = *call;
  calls_.emplace(started.id, std::move(call));
  writer.AppendStarted();
  Send(started);
}

BigQueryWriteEngine::Connection& BigQueryWriteEngine::OpenConnection(
    const std::string& key, const std::string& first_stream) {
  if (auto it = connections_.find(key); it != connections_.end()) {
    return it->second;
  }
  Connection& connection = connections_[key];
  connection.generation = next_generation_++;
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + kStreamDeadline));
  const uint64_t generation = connection.generation;
  connection.stream = stub_->AsyncAppendRows(
      std::move(context), first_stream,
      completions_.WrapEach<AppendRowsResponse>(
          [this, key, generation](AppendRowsResponse&& response) {
            OnResponse(key, generation, response);
          }),
      completions_.Wrap([this, key, generation](const absl::Status& status) {
        OnStreamDone(key, generation, status);
      }));
  metrics_.connections_opened->Increment();
  metrics_.connections_open->Set(static_cast<int64_t>(connections_.size()));
  return connection;
}

void BigQueryWriteEngine::CloseConnection(const std::string& key) {
  auto it = connections_.find(key);
  if (it == connections_.end()) return;
  // Its `done` finds no connection of its generation and is ignored.
  it->second.stream->Cancel();
  connections_.erase(it);
  metrics_.connections_open->Set(static_cast<int64_t>(connections_.size()));
}

void BigQueryWriteEngine::Send(Call& call) {
  if (core_.failed()) return;
  TableWriter* writer = WriterOf(call);
  Connection& connection =
      OpenConnection(call.connection, call.request->write_stream());
  // Every request names its stream and carries its writer schema. The
  // service needs the schema only first on a connection and ignores it
  // after; the emulator forgets it with any refused request, which would
  // refuse the requests already sent behind that one. A few hundred bytes
  // per request of up to 9 MiB buy robustness against both.
  if (writer != nullptr && !call.request->proto_rows().has_writer_schema()) {
    *call.request->mutable_proto_rows()->mutable_writer_schema() =
        *writer->writer_schema();
  }
  if (call.attempts > 0) metrics_.rows_resent->Increment(call.rows);
  ++call.attempts;
  call.sent = clock_.Now();
  core_.metrics().requests->Increment();
  connection.pending.push_back(call.id);
  connection.stream->Write(call.request);
}

TableWriter* BigQueryWriteEngine::WriterOf(const Call& call) const {
  return writers_.Find(call.table);
}

void BigQueryWriteEngine::OnResponse(const std::string& key,
                                     uint64_t generation,
                                     const AppendRowsResponse& response) {
  auto connection = connections_.find(key);
  if (connection == connections_.end() ||
      connection->second.generation != generation || core_.failed()) {
    return;
  }
  in_flight_->OnProgress();
  std::deque<uint64_t>& pending = connection->second.pending;
  if (pending.empty()) return;  // An answer to nothing sent.
  const uint64_t id = pending.front();
  pending.pop_front();
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  Call& call = *it->second;
  metrics_.append_latency->Observe(
      absl::ToDoubleSeconds(clock_.Now() - call.sent));
  if (!response.has_error()) {
    OnAppended(it);
    return;
  }
  if (call.offset >= 0 &&
      response.error().code() ==
          static_cast<int>(absl::StatusCode::kAlreadyExists)) {
    // A resend of an append whose first send was written before its
    // answer was lost: the rows at these offsets are these rows.
    metrics_.appends_already_written->Increment();
    OnAppended(it);
    return;
  }
  if (response.row_errors_size() > 0) {
    OnRowErrors(it, response);
    return;
  }
  OnFailure(it,
            absl::Status(static_cast<absl::StatusCode>(response.error().code()),
                         response.error().message()));
}

void BigQueryWriteEngine::OnAppended(Calls::iterator it) {
  Call& call = *it->second;
  core_.rejection().OnSuccess();
  core_.metrics().records_written->Increment(call.rows);
  core_.metrics().bytes_written->Increment(call.bytes);
  if (TableWriter* writer = WriterOf(call);
      writer != nullptr && call.offset >= 0) {
    writer->OnAppended(call.rows);
  }
  Finish(it);
}

void BigQueryWriteEngine::OnStreamDone(const std::string& key,
                                       uint64_t generation,
                                       const absl::Status& status) {
  auto connection = connections_.find(key);
  if (connection == connections_.end() ||
      connection->second.generation != generation) {
    return;
  }
  std::deque<uint64_t> pending = std::move(connection->second.pending);
  connections_.erase(connection);
  metrics_.connections_open->Set(static_cast<int64_t>(connections_.size()));
  if (core_.failed()) return;
  in_flight_->OnProgress();
  // The stream ended with calls unanswered: each may or may not have been
  // appended.
  const absl::Status why =
      status.ok() ? absl::UnavailableError(
                        "the AppendRows stream ended before answering")
                  : status;
  for (const uint64_t id : pending) {
    auto it = calls_.find(id);
    if (it == calls_.end() || core_.failed()) continue;
    OnFailure(it, why);
  }
}

void BigQueryWriteEngine::OnRowErrors(Calls::iterator it,
                                      const AppendRowsResponse& response) {
  Call& call = *it->second;
  std::vector<bool> refused(static_cast<size_t>(call.rows), false);
  for (const storage_v1::RowError& error : response.row_errors()) {
    if (error.index() < 0 || error.index() >= call.rows) continue;
    const absl::Status status = absl::InvalidArgumentError(
        absl::StrCat("row refused by BigQuery: ", error.message()));
    core_.CountError(status);
    if (refused[static_cast<size_t>(error.index())]) continue;
    refused[static_cast<size_t>(error.index())] = true;
    RouteRow(call, static_cast<int>(error.index()), status);
    if (core_.failed()) return;
  }
  // The service appended none of the request's rows: the others go again.
  auto rest = std::make_shared<AppendRowsRequest>();
  int64_t rows = 0;
  int64_t bytes = 0;
  int64_t routed_bytes = 0;
  auto& serialized = *call.request->mutable_proto_rows()
                          ->mutable_rows()
                          ->mutable_serialized_rows();
  for (int i = 0; i < serialized.size(); ++i) {
    if (refused[static_cast<size_t>(i)]) {
      routed_bytes += static_cast<int64_t>(serialized[i].size());
      continue;
    }
    bytes += static_cast<int64_t>(serialized[i].size());
    ++rows;
    rest->mutable_proto_rows()->mutable_rows()->add_serialized_rows(
        std::move(serialized[i]));
  }
  in_flight_->Release(call.rows - rows, routed_bytes);
  TableWriter* writer = WriterOf(call);
  const int attempts = call.attempts;
  const Calls::iterator done = it;
  call.rows = 0;
  call.bytes = 0;
  if (writer != nullptr) writer->AppendEnded();
  calls_.erase(done);
  if (writer == nullptr) return;
  if (rows > 0) {
    // Exactly-once: at the same offset, since none of the rows was written.
    StartCall(*writer, std::move(rest), rows, bytes, attempts);
  } else if (exactly_once_) {
    AfterAppend(*writer);
  }
}

void BigQueryWriteEngine::OnFailure(Calls::iterator it,
                                    const absl::Status& status) {
  Call& call = *it->second;
  core_.CountError(status);
  if (call.offset >= 0 && (status.code() == absl::StatusCode::kNotFound ||
                           status.code() == absl::StatusCode::kOutOfRange)) {
    // The stream is gone with its rows, or holds other rows than this
    // writer appended: nothing here can repair either. The job restarts
    // from its last checkpoint and writes the rows to a new stream.
    core_.Fail(absl::Status(
        status.code(),
        absl::StrCat(options_.name, ": appending at offset ", call.offset,
                     " of stream ", call.request->write_stream(), " (table ",
                     call.table.Spec(), ") failed: ", status.message(),
                     status.code() == absl::StatusCode::kOutOfRange
                         ? "; the writer's offset is past the stream's end"
                         : "")));
    return;
  }
  if (status.code() == absl::StatusCode::kNotFound) {
    OnMissingTable(call, status);
    return;
  }
  if (IsSchemaNotYetPropagated(call, status)) {
    RetryLater(call, status);
    return;
  }
  switch (kBigQueryClassification.ClassifyRequest(status)) {
    case StatusClass::kPerRecord: {
      if (call.rows > 1) {
        Split(it);
        return;
      }
      RejectionConfirmation::Verdict verdict =
          core_.rejection().OnSingleResult(status);
      if (verdict.kind != ConfirmationVerdict::kRouted) {
        core_.Fail(verdict.status);
        return;
      }
      RouteRow(call, 0, status);
      in_flight_->Release(call.rows, call.bytes);
      call.rows = 0;
      call.bytes = 0;
      Finish(it);
      return;
    }
    case StatusClass::kTransient:
      RetryLater(call, status);
      return;
    case StatusClass::kFatal:
      break;
  }
  core_.Fail(absl::Status(
      status.code(),
      absl::StrCat(options_.name, ": appending to table ", call.table.Spec(),
                   " failed: ", status.message())));
}

bool BigQueryWriteEngine::IsSchemaNotYetPropagated(
    const Call& call, const absl::Status& status) const {
  if (status.code() != absl::StatusCode::kInvalidArgument) return false;
  const TableWriter* writer = WriterOf(call);
  return writer != nullptr &&
         clock_.Now() - writer->schema_updated_at < kSchemaPropagation &&
         absl::StrContains(absl::AsciiStrToLower(status.message()), "schema");
}

void BigQueryWriteEngine::OnMissingTable(Call& call,
                                         const absl::Status& status) {
  if (options_.create_disposition == CreateDisposition::kCreateNever) {
    core_.Fail(absl::NotFoundError(absl::StrCat(
        options_.name, ": table ", call.table.Spec(),
        " does not exist (NOT_FOUND) and option '",
        kCreateDispositionOption.key(), "' is '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateNever),
        "'; create the table. The service said: ", status.message())));
    return;
  }
  // The table went away after the writer saw it: make it again (with the
  // sink's schema), then resend on the retry budget.
  absl::StatusOr<TableSchema> schema = EnsureTable(call.table);
  if (!schema.ok()) {
    core_.Fail(schema.status());
    return;
  }
  RetryLater(call, absl::UnavailableError(
                       absl::StrCat("table ", call.table.Spec(),
                                    " was missing: ", status.message())));
}

void BigQueryWriteEngine::Split(Calls::iterator it) {
  Call& call = *it->second;
  metrics_.appends_split->Increment();
  TableWriter* writer = WriterOf(call);
  auto& serialized = *call.request->mutable_proto_rows()
                          ->mutable_rows()
                          ->mutable_serialized_rows();
  const int half = serialized.size() / 2;
  std::shared_ptr<AppendRowsRequest> halves[2] = {
      std::make_shared<AppendRowsRequest>(),
      std::make_shared<AppendRowsRequest>()};
  int64_t rows[2] = {0, 0};
  int64_t bytes[2] = {0, 0};
  for (int i = 0; i < serialized.size(); ++i) {
    const int side = i < half ? 0 : 1;
    bytes[side] += static_cast<int64_t>(serialized[i].size());
    ++rows[side];
    halves[side]->mutable_proto_rows()->mutable_rows()->add_serialized_rows(
        std::move(serialized[i]));
  }
  const int attempts = call.attempts;
  if (writer != nullptr) writer->AppendEnded();
  calls_.erase(it);
  if (writer == nullptr) return;
  if (exactly_once_) {
    // One append at a time: the second half waits its turn, first in line.
    writer->ready().push_front(RowBatch{
        .request = std::move(halves[1]), .rows = rows[1], .bytes = bytes[1]});
    StartCall(*writer, std::move(halves[0]), rows[0], bytes[0], attempts);
    return;
  }
  for (int side = 0; side < 2; ++side) {
    StartCall(*writer, std::move(halves[side]), rows[side], bytes[side],
              attempts);
  }
}

void BigQueryWriteEngine::RetryLater(Call& call, const absl::Status& status) {
  if (!call.retry.has_value()) {
    // Cannot fail: the retry options were checked in Create(). The default
    // stream is at-least-once: a resend after an ambiguous end is allowed.
    call.retry.emplace(*connector::Retry::Create(
        options_.retry, clock_, connector::Idempotency::kIdempotent));
  }
  RetryDecision decision =
      call.retry->OnFailure(status, StatusClass::kTransient);
  if (decision.action != RetryDecision::Action::kRetryAfter) {
    core_.Fail(connector::Reworded(
        decision.status, absl::StrCat(options_.name, ": appending ", call.rows,
                                      " rows to table ", call.table.Spec(),
                                      " failed: ", decision.status.message())));
    return;
  }
  core_.metrics().request_retries->Increment();
  call.retry_timer = timer_->Schedule(decision.delay,
                                      [this, id = call.id] { OnRetryDue(id); });
}

void BigQueryWriteEngine::OnRetryDue(uint64_t id) {
  auto it = calls_.find(id);
  if (it == calls_.end() || core_.failed()) return;
  it->second->retry_timer = 0;
  Send(*it->second);
}

void BigQueryWriteEngine::RouteRow(const Call& call, int index,
                                   const absl::Status& status) {
  BigQueryFailedElement failed;
  failed.destination = call.table.ResourceName();
  failed.status = status;
  failed.attempts = call.attempts;
  const std::string& row =
      call.request->proto_rows().rows().serialized_rows(index);
  failed.payload = call.format != nullptr ? call.format->RowAsJson(row) : row;
  core_.Route(failed);
}

void BigQueryWriteEngine::Finish(Calls::iterator it) {
  Call& call = *it->second;
  if (call.rows > 0) in_flight_->Release(call.rows, call.bytes);
  TableWriter* writer = WriterOf(call);
  calls_.erase(it);
  if (writer == nullptr) return;
  writer->AppendEnded();
  if (exactly_once_) AfterAppend(*writer);
}

absl::Status BigQueryWriteEngine::Flush(bool end_of_input) {
  const absl::Time started = clock_.Now();
  if (core_.failed()) return core_.failure();
  SendAllOpen();
  if (absl::Status drained =
          in_flight_->WaitUntil([this] { return in_flight_->empty(); },
                                "every row to be appended (Flush)");
      !drained.ok()) {
    return drained;
  }
  if (!end_of_input) {
    if (file_loads_) {
      if (absl::Status finished = FinishIdleFiles(); !finished.ok()) {
        return core_.Fail(finished);
      }
    }
    if (absl::Status swept = writers_.SweepIdle(clock_.Now()); !swept.ok()) {
      return core_.Fail(swept);
    }
  }
  return core_.FinishFlush(started);
}

absl::StatusOr<std::vector<std::string>> BigQueryWriteEngine::PrepareCommit(
    int64_t checkpoint_id) {
  if (file_loads_) return PrepareLoads();
  if (exactly_once_) return PrepareStreams(checkpoint_id);
  return std::vector<std::string>();
}

absl::Status BigQueryWriteEngine::OnInputIdle() {
  if (core_.failed()) return core_.failure();
  SendAllOpen();
  return core_.failure();
}

void BigQueryWriteEngine::Close() {
  if (closed_) return;
  closed_ = true;
  timer_->CancelAll();
  for (auto& [key, connection] : connections_) connection.stream->Cancel();
  completions_.Close();
  connections_.clear();
  calls_.clear();
  (void)writers_.ReleaseAll();
  core_.Close();
}

}  // namespace gcpstream::bigquery
