#ifndef GCPSTREAM_SPANNER_SPANNER_SINK_H_
#define GCPSTREAM_SPANNER_SPANNER_SINK_H_

#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/connector/batching_sink.h"
#include "gcpstream/spanner/spanner_mutation.h"
#include "gcpstream/spanner/spanner_sink_options.h"
#include "gcpstream/spanner/spanner_write_engine.h"

namespace gcpstream::spanner {

// Turns a record into the mutation to write. nullopt skips the record; an
// error is a per-record serialization failure for the failure handler.
template <typename T>
using MutationSerializer = connector::Serializer<T, Mutation>;

// What is Spanner's in the kit's sink: the write engine. The database is in
// the options, and each mutation names its table: no destination per record.
template <typename T>
struct SpannerSinkTraits {
  using Engine = SpannerWriteEngine;
  using Options = SpannerSinkOptions;
  using Destination = connector::NoDestination;
  using Serializer = MutationSerializer<T>;
  using FailedElement = SpannerFailedElement;

  static absl::StatusOr<std::unique_ptr<Engine>> CreateEngine(
      const Options& options, const runtime::SinkWriterContext& context,
      std::unique_ptr<FailureHandler<FailedElement>> handler,
      const Destination* /*fixed*/) {
    return SpannerWriteEngine::Create(options, context, std::move(handler));
  }
  static absl::Status WriteRecord(Engine& engine, const Serializer& serializer,
                                  const T& record, const Destination& database,
                                  const WriterContext& context) {
    return connector::SerializeThenWrite(engine, serializer, record, database,
                                         context);
  }
  static absl::Status CheckFixed(const Options&, const Destination&) {
    return absl::OkStatus();
  }
};

// Writes the mutations a serializer builds from each record into one
// database; each mutation names its own table, so one sink writes many
// tables without a resolver. At-least-once: Flush() (every checkpoint)
// returns once every mutation is applied or routed. See docs/spanner.md.
template <typename T>
using SpannerSink = connector::BatchingSink<T, SpannerSinkTraits<T>>;

// Makes each writer's failure handler (one per subtask).
using SpannerFailureHandlerFactory =
    connector::BatchingSink<int, SpannerSinkTraits<int>>::HandlerFactory;

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SPANNER_SINK_H_
