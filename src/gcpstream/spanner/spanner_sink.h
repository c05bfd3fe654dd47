#ifndef GCPSTREAM_SPANNER_SPANNER_SINK_H_
#define GCPSTREAM_SPANNER_SPANNER_SINK_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/runtime/sink.h"
#include "gcpstream/spanner/spanner_mutation.h"
#include "gcpstream/spanner/spanner_sink_options.h"
#include "gcpstream/spanner/spanner_write_engine.h"

namespace gcpstream::spanner {

// Turns a record into the mutation to write. nullopt skips the record; an
// error is a per-record serialization failure for the failure handler.
template <typename T>
using MutationSerializer =
    std::function<absl::StatusOr<std::optional<Mutation>>(
        const T&, const WriterContext&)>;

// Makes each writer's failure handler (one per subtask).
using SpannerFailureHandlerFactory =
    std::function<absl::StatusOr<std::unique_ptr<SpannerWriteEngine::Handler>>(
        const runtime::SinkWriterContext&)>;

// Writes the mutations a serializer builds from each record into one
// database; each mutation names its own table, so one sink writes many
// tables without a resolver. At-least-once: Flush() (every checkpoint)
// returns once every mutation is applied or routed. See docs/spanner.md.
template <typename T>
class SpannerSink final : public runtime::Sink<T> {
 public:
  SpannerSink(SpannerSinkOptions options, MutationSerializer<T> serializer,
              SpannerFailureHandlerFactory failure_handler = nullptr)
      : options_(std::move(options)),
        serializer_(std::move(serializer)),
        failure_handler_(std::move(failure_handler)) {}

  std::string name() const override { return options_.name; }

  absl::StatusOr<std::unique_ptr<runtime::SinkWriter<T>>> CreateWriter(
      const runtime::SinkWriterContext& context) override {
    if (!serializer_) {
      return absl::InvalidArgumentError(
          absl::StrCat(options_.name, ": a Spanner sink needs a serializer"));
    }
    std::unique_ptr<SpannerWriteEngine::Handler> handler;
    if (failure_handler_) {
      auto made = failure_handler_(context);
      if (!made.ok()) return made.status();
      handler = *std::move(made);
    }
    auto engine =
        SpannerWriteEngine::Create(options_, context, std::move(handler));
    if (!engine.ok()) return engine.status();
    return std::make_unique<Writer>(serializer_, *std::move(engine));
  }

 private:
  class Writer final : public runtime::SinkWriter<T> {
   public:
    Writer(MutationSerializer<T> serializer,
           std::unique_ptr<SpannerWriteEngine> engine)
        : serializer_(std::move(serializer)), engine_(std::move(engine)) {}

    absl::Status Write(const T& record, const WriterContext& context) override {
      engine_->CountIn();
      absl::StatusOr<std::optional<Mutation>> mutation =
          serializer_(record, context);
      if (!mutation.ok()) {
        return engine_->RouteSerializationFailure(mutation.status(), context);
      }
      if (!mutation->has_value()) {
        engine_->CountSkipped();
        return absl::OkStatus();
      }
      return engine_->Write(**std::move(mutation), context);
    }
    absl::Status Flush(bool end_of_input) override {
      return engine_->Flush(end_of_input);
    }
    void Close() override { engine_->Close(); }

   private:
    MutationSerializer<T> serializer_;
    std::unique_ptr<SpannerWriteEngine> engine_;
  };

  SpannerSinkOptions options_;
  MutationSerializer<T> serializer_;
  SpannerFailureHandlerFactory failure_handler_;
};

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SPANNER_SINK_H_
