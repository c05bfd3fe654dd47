#ifndef GCPSTREAM_BIGQUERY_BIGQUERY_SINK_H_
#define GCPSTREAM_BIGQUERY_BIGQUERY_SINK_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/bigquery_load_committer.h"
#include "gcpstream/bigquery/bigquery_sink_options.h"
#include "gcpstream/bigquery/bigquery_stream_committer.h"
#include "gcpstream/bigquery/bigquery_write_engine.h"
#include "gcpstream/bigquery/row_serializer.h"
#include "gcpstream/bigquery/table_destination.h"
#include "gcpstream/connector/batching_sink.h"

namespace gcpstream::bigquery {

// What is BigQuery's in the kit's sink: the write engine, and a serializer
// that encodes each record straight into its table's open batch in the
// table's row format.
template <typename T>
struct BigQuerySinkTraits {
  using Engine = BigQueryWriteEngine;
  using Options = BigQuerySinkOptions;
  using Destination = TableDestination;
  using Serializer = std::shared_ptr<const RowSerializer<T>>;
  using FailedElement = BigQueryFailedElement;

  static absl::StatusOr<std::unique_ptr<Engine>> CreateEngine(
      const Options& options, const runtime::SinkWriterContext& context,
      std::unique_ptr<FailureHandler<FailedElement>> handler,
      const TableDestination* /*fixed*/) {
    return BigQueryWriteEngine::Create(options, context, std::move(handler));
  }

  // Exactly-once commits each checkpoint's streams, file loads load its
  // files; the default stream needs no committer.
  static std::unique_ptr<runtime::Committer> CreateCommitter(
      const Options& options) {
    switch (options.write_method) {
      case WriteMethod::kStorageApiExactlyOnce:
        return std::make_unique<BigQueryStreamCommitter>(options);
      case WriteMethod::kFileLoads:
        return std::make_unique<BigQueryLoadCommitter>(options);
      case WriteMethod::kStorageApiAtLeastOnce:
        break;
    }
    return nullptr;
  }

  static absl::Status WriteRecord(Engine& engine, const Serializer& serializer,
                                  const T& record,
                                  const TableDestination& table,
                                  const WriterContext& context) {
    if (table.unroutable()) return engine.RouteUnroutable(table, context);
    TableWriter* writer = engine.Acquire(table);
    if (writer == nullptr) return engine.failure();
    if (writer->format() == nullptr) {
      absl::StatusOr<std::shared_ptr<const RowFormat>> format =
          serializer->FormatFor(writer->schema(), engine.format_options());
      if (!format.ok()) {
        return engine.Fail(absl::Status(
            format.status().code(),
            absl::StrCat(engine.options().name, ": rows for table ",
                         table.Spec(), ": ", format.status().message())));
      }
      writer->set_format(*std::move(format));
    }
    std::string& row = engine.row_buffer();
    absl::StatusOr<bool> encoded =
        serializer->Encode(record, *writer->format(), context, row);
    if (!encoded.ok()) {
      return engine.RouteSerializationFailure(table, encoded.status(), context);
    }
    if (!*encoded) {
      engine.CountSkipped();
      return absl::OkStatus();
    }
    return engine.Append(*writer, std::move(row), context);
  }

  static absl::Status CheckFixed(const Options& options,
                                 const TableDestination& table) {
    if (table.unroutable()) {
      return absl::InvalidArgumentError(
          absl::StrCat(options.name, ": a fixed table cannot be unroutable"));
    }
    absl::Status status = CheckTableNamePart(table.project, "project");
    status.Update(CheckTableNamePart(table.dataset, "dataset"));
    status.Update(CheckTableNamePart(table.table, "table"));
    if (status.ok()) return status;
    return absl::InvalidArgumentError(
        absl::StrCat(options.name, ": ", status.message()));
  }
};

// Writes records to BigQuery through the Storage Write API: a fixed table
// or one chosen per record by a DestinationResolver (which may return
// TableDestination::Unroutable for a record that belongs nowhere).
// storage-api-at-least-once (default): the default stream; Flush() (every
// checkpoint) returns once every row is appended or routed, and a replay
// after a restart may append rows again. storage-api-exactly-once: PENDING
// streams committed by the sink's committer once their checkpoint is
// durable. file-loads: staged newline-delimited JSON files loaded by one
// load job per table once their checkpoint is durable. See
// docs/bigquery.md for options, failures and metrics.
template <typename T>
using BigQuerySink = connector::BatchingSink<T, BigQuerySinkTraits<T>>;

// Makes each writer's failure handler (one per subtask).
using BigQueryFailureHandlerFactory =
    connector::BatchingSink<int, BigQuerySinkTraits<int>>::HandlerFactory;

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_BIGQUERY_SINK_H_
