#ifndef GCPSTREAM_SPANNER_SPANNER_SINK_H_
#define GCPSTREAM_SPANNER_SPANNER_SINK_H_

#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/connector/batching_sink.h"
#include "gcpstream/spanner/schema_catalog.h"
#include "gcpstream/spanner/spanner_mutation.h"
#include "gcpstream/spanner/spanner_sink_options.h"
#include "gcpstream/spanner/spanner_write_engine.h"

namespace gcpstream::spanner {

// Turns a record into the mutation to write. nullopt skips the record; an
// error is a per-record serialization failure for the failure handler.
template <typename T>
using MutationSerializer = connector::Serializer<T, Mutation>;

// Builds a record's wire mutation straight from the record, against the
// writer's schema, on `arena` (the open batch's), skipping the typed
// Mutation and its copies (pipeline files do, for their cost per record).
// nullopt declines: the record takes the MutationSerializer's path, which
// also says why a record does not fit (a declined record's partial proto
// stays on the arena until its batch is freed).
template <typename T>
using WireEncoder = std::function<std::optional<EncodedMutation>(
    const T& record, const WriterContext& context, const SchemaCatalog& catalog,
    google::protobuf::Arena& arena)>;

// What SpannerSink takes: a MutationSerializer (or any callable that
// converts to one), and optionally a WireEncoder that agrees with it: each
// proto it builds is exactly SchemaCatalog::Encode of the mutation the
// serializer builds from the same record. The typed mutation is then built
// only for a write that fails, to report it.
template <typename T>
class SpannerSerializer {
 public:
  template <typename F>
  requires std::is_constructible_v<MutationSerializer<T>, F>
  // NOLINTNEXTLINE(google-explicit-constructor): callers pass a lambda.
  SpannerSerializer(F to_mutation)
      : parts_(std::make_shared<const Parts>(
            Parts{MutationSerializer<T>(std::move(to_mutation)), nullptr})) {}
  SpannerSerializer(MutationSerializer<T> to_mutation, WireEncoder<T> encoder)
      : parts_(std::make_shared<const Parts>(
            Parts{std::move(to_mutation), std::move(encoder)})) {
    static_assert(std::is_copy_constructible_v<T>,
                  "a wire encoder keeps a copy of the record to build the "
                  "typed mutation of a failed write");
  }

  explicit operator bool() const { return parts_->to_mutation != nullptr; }

  absl::Status Write(SpannerWriteEngine& engine, const T& record,
                     const WriterContext& context) const {
    if constexpr (std::is_copy_constructible_v<T>) {
      if (parts_->encoder != nullptr) {
        std::optional<EncodedMutation> encoded =
            parts_->encoder(record, context, engine.catalog(), engine.arena());
        if (encoded.has_value()) {
          return engine.WriteEncoded(*encoded,
                                     [parts = parts_, record, context] {
                                       return parts->Typed(record, context);
                                     });
        }
      }
    }
    return connector::SerializeThenWrite(engine, parts_->to_mutation, record,
                                         connector::NoDestination(), context);
  }

 private:
  struct Parts {
    MutationSerializer<T> to_mutation;
    WireEncoder<T> encoder;

    absl::StatusOr<Mutation> Typed(const T& record,
                                   const WriterContext& context) const {
      absl::StatusOr<std::optional<Mutation>> built =
          to_mutation(record, context);
      if (!built.ok()) return built.status();
      if (!built->has_value()) {
        return absl::InternalError(
            "the serializer skips a record its wire encoder encoded");
      }
      return **std::move(built);
    }
  };
  std::shared_ptr<const Parts> parts_;
};

// What is Spanner's in the kit's sink: the write engine. The database is in
// the options, and each mutation names its table: no destination per record.
template <typename T>
struct SpannerSinkTraits {
  using Engine = SpannerWriteEngine;
  using Options = SpannerSinkOptions;
  using Destination = connector::NoDestination;
  using Serializer = SpannerSerializer<T>;
  using FailedElement = SpannerFailedElement;

  static absl::StatusOr<std::unique_ptr<Engine>> CreateEngine(
      const Options& options, const runtime::SinkWriterContext& context,
      std::unique_ptr<FailureHandler<FailedElement>> handler,
      const Destination* /*fixed*/) {
    return SpannerWriteEngine::Create(options, context, std::move(handler));
  }
  static absl::Status WriteRecord(Engine& engine, const Serializer& serializer,
                                  const T& record, const Destination&,
                                  const WriterContext& context) {
    return serializer.Write(engine, record, context);
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
