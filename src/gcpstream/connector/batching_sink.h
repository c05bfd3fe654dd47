#ifndef GCPSTREAM_CONNECTOR_BATCHING_SINK_H_
#define GCPSTREAM_CONNECTOR_BATCHING_SINK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/destination.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::connector {

// The serializer convention of every sink (docs/adr/0002-connector-kit.md):
// a record becomes the service's unit (a mutation, a row, a task); nullopt
// skips the record (counted in records_skipped); an error is a per-record
// serialization failure for the failure handler. A connector may offer a
// faster in-place form on top (Pub/Sub fills the request's next message).
template <typename T, typename Out>
using Serializer = std::function<absl::StatusOr<std::optional<Out>>(
    const T&, const WriterContext&)>;

// For a sink whose records all go to one destination given in its options
// (Spanner: each mutation names its table in the one database).
struct NoDestination {
  static std::string ResourceName() { return {}; }
};

// The step every serializer-convention sink takes per record: serialize,
// then route the failure, count the skip, or hand the unit to the engine.
template <typename Engine, typename T, typename Out, typename D>
absl::Status SerializeThenWrite(Engine& engine,
                                const Serializer<T, Out>& serializer,
                                const T& record, const D& destination,
                                const WriterContext& context) {
  absl::StatusOr<std::optional<Out>> out = serializer(record, context);
  if (!out.ok()) {
    return engine.RouteSerializationFailure(destination, out.status(), context);
  }
  if (!out->has_value()) {
    engine.CountSkipped();
    return absl::OkStatus();
  }
  return engine.Write(**std::move(out), destination, context);
}

// A sink assembled from a connector's Traits: what differs per service
// (the engine, its options, destination, serializer and the per-record
// write) is in Traits; the sink shell, the writer, resolving, the failure
// handler factory and the input-idle hook are here. Traits provides:
//
//   using Engine;       // CountIn(), Flush(bool), OnInputIdle(), Close()
//   using Options;      // with a `name`
//   using Destination;  // a Destination, or NoDestination
//   using Serializer;
//   using FailedElement;
//   static absl::StatusOr<std::unique_ptr<Engine>> CreateEngine(
//       const Options&, const runtime::SinkWriterContext&,
//       std::unique_ptr<FailureHandler<FailedElement>>,
//       const Destination* fixed);   // null with a resolver
//   static absl::Status WriteRecord(Engine&, const Serializer&, const T&,
//                                   const Destination&, const WriterContext&);
//   static absl::Status CheckFixed(const Options&, const Destination&);
//
// and, for a two-phase sink, optionally:
//
//   Engine::PrepareCommit(int64_t) -> StatusOr<vector<string>>
//   static std::unique_ptr<runtime::Committer> CreateCommitter(
//       const Options&);                  // null: no committer
template <typename T, typename Traits>
class BatchingSink final : public runtime::Sink<T> {
 public:
  using Engine = typename Traits::Engine;
  using Options = typename Traits::Options;
  using Destination = typename Traits::Destination;
  using SerializerType = typename Traits::Serializer;
  using Handler = FailureHandler<typename Traits::FailedElement>;
  // Makes each writer's failure handler (one per subtask), from the
  // writer's context (e.g. to give a dead-letter queue its mailbox).
  using HandlerFactory = std::function<absl::StatusOr<std::unique_ptr<Handler>>(
      const runtime::SinkWriterContext&)>;
  using Resolver = DestinationResolver<T, Destination>;

  // Every record to `destination`.
  BatchingSink(Options options, Destination destination,
               SerializerType serializer, HandlerFactory handler = nullptr)
      : options_(std::move(options)),
        fixed_(std::move(destination)),
        serializer_(std::move(serializer)),
        handler_(std::move(handler)) {}

  // Records go where the options say (NoDestination sinks only).
  BatchingSink(Options options, SerializerType serializer,
               HandlerFactory handler =
                   nullptr) requires std::is_same_v<Destination, NoDestination>
      : BatchingSink(std::move(options), NoDestination(), std::move(serializer),
                     std::move(handler)) {}

  // Each record to the destination `resolver` names. The resolver is
  // shared by the sink's writers, each calling it on its own task thread:
  // it must be safe to call concurrently (a pure function of the record is).
  BatchingSink(Options options, std::shared_ptr<Resolver> resolver,
               SerializerType serializer, HandlerFactory handler = nullptr)
      : options_(std::move(options)),
        resolver_(std::move(resolver)),
        serializer_(std::move(serializer)),
        handler_(std::move(handler)) {}

  std::string name() const override { return options_.name; }

  std::unique_ptr<runtime::Committer> CreateCommitter() override {
    if constexpr (requires(const Options& options) {
                    Traits::CreateCommitter(options);
                  }) {
      return Traits::CreateCommitter(options_);
    } else {
      return nullptr;
    }
  }

  absl::StatusOr<std::unique_ptr<runtime::SinkWriter<T>>> CreateWriter(
      const runtime::SinkWriterContext& context) override {
    if ((resolver_ == nullptr && !fixed_.has_value()) || !serializer_) {
      return absl::InvalidArgumentError(
          absl::StrCat(options_.name,
                       ": the sink needs a destination or a resolver, and "
                       "a serializer"));
    }
    if (fixed_.has_value()) {
      if (absl::Status valid = Traits::CheckFixed(options_, *fixed_);
          !valid.ok()) {
        return valid;
      }
    }
    std::unique_ptr<Handler> handler;
    if (handler_) {
      absl::StatusOr<std::unique_ptr<Handler>> made = handler_(context);
      if (!made.ok()) return made.status();
      handler = *std::move(made);
    }
    auto writer =
        std::make_unique<Writer>(fixed_, resolver_, serializer_, options_.name);
    absl::StatusOr<std::unique_ptr<Engine>> engine = Traits::CreateEngine(
        options_, context, std::move(handler), writer->fixed());
    if (!engine.ok()) return engine.status();
    writer->set_engine(*std::move(engine));
    return writer;
  }

 private:
  class Writer final : public runtime::SinkWriter<T> {
   public:
    Writer(std::optional<Destination> fixed, std::shared_ptr<Resolver> resolver,
           SerializerType serializer, std::string sink_name)
        : fixed_(std::move(fixed)),
          resolver_(std::move(resolver)),
          serializer_(std::move(serializer)),
          sink_name_(std::move(sink_name)) {}

    absl::Status Write(const T& record, const WriterContext& context) override {
      engine_->CountIn();
      if (fixed_.has_value()) {  // Not copied per record.
        return Traits::WriteRecord(*engine_, serializer_, record, *fixed_,
                                   context);
      }
      absl::StatusOr<Destination> resolved =
          ResolveDestination(*resolver_, record, context, sink_name_);
      if (!resolved.ok()) return resolved.status();
      return Traits::WriteRecord(*engine_, serializer_, record, *resolved,
                                 context);
    }
    absl::Status Flush(bool end_of_input) override {
      return engine_->Flush(end_of_input);
    }
    absl::Status OnInputIdle() override { return engine_->OnInputIdle(); }
    absl::StatusOr<std::vector<std::string>> PrepareCommit(
        int64_t checkpoint_id) override {
      if constexpr (requires(Engine & engine) {
                      engine.PrepareCommit(checkpoint_id);
                    }) {
        return engine_->PrepareCommit(checkpoint_id);
      } else {
        return std::vector<std::string>();
      }
    }
    void Close() override { engine_->Close(); }

    // Stable for the writer's life: engines may recognise it by address.
    const Destination* fixed() const {
      return fixed_.has_value() ? &*fixed_ : nullptr;
    }
    void set_engine(std::unique_ptr<Engine> engine) {
      engine_ = std::move(engine);
    }

   private:
    const std::optional<Destination> fixed_;
    std::shared_ptr<Resolver> resolver_;
    SerializerType serializer_;
    std::string sink_name_;
    std::unique_ptr<Engine> engine_;
  };

  Options options_;
  // Set for a fixed destination; otherwise `resolver_` names each record's.
  std::optional<Destination> fixed_;
  std::shared_ptr<Resolver> resolver_;
  SerializerType serializer_;
  HandlerFactory handler_;
};

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_BATCHING_SINK_H_
