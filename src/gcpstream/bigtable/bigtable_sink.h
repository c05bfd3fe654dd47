#ifndef GCPSTREAM_BIGTABLE_BIGTABLE_SINK_H_
#define GCPSTREAM_BIGTABLE_BIGTABLE_SINK_H_

#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/bigtable/bigtable_sink_options.h"
#include "gcpstream/bigtable/bigtable_write_engine.h"
#include "gcpstream/bigtable/row_mutation.h"
#include "gcpstream/bigtable/table_destination.h"
#include "gcpstream/connector/batching_sink.h"

namespace gcpstream::bigtable {

// What is Bigtable's in the kit's sink: the write engine and the entry
// serializer.
template <typename T>
struct BigtableSinkTraits {
  using Engine = BigtableWriteEngine;
  using Options = BigtableSinkOptions;
  using Destination = TableDestination;
  using Serializer = connector::Serializer<T, RowMutationEntry>;
  using FailedElement = BigtableFailedElement;

  static absl::StatusOr<std::unique_ptr<Engine>> CreateEngine(
      const Options& options, const runtime::SinkWriterContext& context,
      std::unique_ptr<FailureHandler<FailedElement>> handler,
      const TableDestination* /*fixed*/) {
    return BigtableWriteEngine::Create(options, context, std::move(handler));
  }

  static absl::Status WriteRecord(Engine& engine, const Serializer& serializer,
                                  const T& record,
                                  const TableDestination& table,
                                  const WriterContext& context) {
    return connector::SerializeThenWrite(engine, serializer, record, table,
                                         context);
  }

  static absl::Status CheckFixed(const Options& options,
                                 const TableDestination& table) {
    absl::Status status = CheckResourceNameComponent(table.project, "project");
    status.Update(CheckResourceNameComponent(table.instance, "instance"));
    status.Update(CheckResourceNameComponent(table.table, "table"));
    if (status.ok()) return status;
    return absl::InvalidArgumentError(
        absl::StrCat(options.name, ": ", status.message()));
  }
};

// Writes records to Bigtable: a fixed table or one chosen per record by a
// DestinationResolver, with one batcher per active table. At-least-once:
// Flush() (every checkpoint) returns once every entry is written or
// routed. With explicit cell timestamps a replay rewrites the same cell
// versions, so the table ends as if each record was written once. See
// docs/bigtable.md for options, idempotence, failures and metrics.
template <typename T>
using BigtableSink = connector::BatchingSink<T, BigtableSinkTraits<T>>;

// Makes each writer's failure handler (one per subtask).
using BigtableFailureHandlerFactory =
    connector::BatchingSink<int, BigtableSinkTraits<int>>::HandlerFactory;

}  // namespace gcpstream::bigtable

#endif  // GCPSTREAM_BIGTABLE_BIGTABLE_SINK_H_
