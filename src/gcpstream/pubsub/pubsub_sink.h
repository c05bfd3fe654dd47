#ifndef GCPSTREAM_PUBSUB_PUBSUB_SINK_H_
#define GCPSTREAM_PUBSUB_PUBSUB_SINK_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/base/destination.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/pubsub/publish_engine.h"
#include "gcpstream/pubsub/pubsub_failed_element.h"
#include "gcpstream/pubsub/pubsub_message.h"
#include "gcpstream/pubsub/pubsub_sink_options.h"
#include "gcpstream/pubsub/topic_destination.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::pubsub {

// Makes each writer's failure handler (one per subtask). It gets the
// writer's context, e.g. to give a PubSubDeadLetterQueue its mailbox.
using PubSubFailureHandlerFactory =
    std::function<absl::StatusOr<std::unique_ptr<PublishEngine::Handler>>(
        const runtime::SinkWriterContext&)>;

// Publishes records to Pub/Sub: a fixed topic or one chosen per record by a
// DestinationResolver, with one publisher per active topic. At-least-once:
// Flush() (every checkpoint) returns once every message is acknowledged or
// routed, and a replay republishes (with new message ids). See
// docs/pubsub.md for options, ordering, failures and metrics.
template <typename T>
class PubSubSink final : public runtime::Sink<T> {
 public:
  using Resolver = DestinationResolver<T, TopicDestination>;

  // Every record to `topic`.
  PubSubSink(PubSubSinkOptions options, TopicDestination topic,
             AnyMessageSerializer<T> serializer,
             PubSubFailureHandlerFactory failure_handler = nullptr)
      : options_(std::move(options)),
        fixed_topic_(std::move(topic)),
        serializer_(std::move(serializer)),
        failure_handler_(std::move(failure_handler)) {}

  // Each record to the topic `resolver` names. The resolver is shared by
  // the sink's writers, each calling it on its own task thread: it must be
  // safe to call concurrently (a pure function of the record is).
  PubSubSink(PubSubSinkOptions options, std::shared_ptr<Resolver> resolver,
             AnyMessageSerializer<T> serializer,
             PubSubFailureHandlerFactory failure_handler = nullptr)
      : options_(std::move(options)),
        resolver_(std::move(resolver)),
        serializer_(std::move(serializer)),
        failure_handler_(std::move(failure_handler)) {}

  std::string name() const override { return options_.name; }

  absl::StatusOr<std::unique_ptr<runtime::SinkWriter<T>>> CreateWriter(
      const runtime::SinkWriterContext& context) override {
    if ((resolver_ == nullptr && !fixed_topic_.has_value()) || !serializer_) {
      return absl::InvalidArgumentError(
          absl::StrCat(options_.name,
                       ": a Pub/Sub sink needs a topic or a resolver, and "
                       "a serializer"));
    }
    if (fixed_topic_.has_value() && IsUnnamed(*fixed_topic_)) {
      return absl::InvalidArgumentError(absl::StrCat(
          options_.name, ": the topic needs a project and a topic id, got '",
          fixed_topic_->ResourceName(), "'"));
    }
    std::unique_ptr<PublishEngine::Handler> handler;
    if (failure_handler_) {
      absl::StatusOr<std::unique_ptr<PublishEngine::Handler>> made =
          failure_handler_(context);
      if (!made.ok()) return made.status();
      handler = *std::move(made);
    }
    absl::StatusOr<std::unique_ptr<PublishEngine>> engine =
        PublishEngine::Create(options_, context, std::move(handler));
    if (!engine.ok()) return engine.status();
    return std::make_unique<Writer>(fixed_topic_, resolver_, serializer_,
                                    *std::move(engine), options_.name);
  }

 private:
  class Writer final : public runtime::SinkWriter<T> {
   public:
    Writer(std::optional<TopicDestination> fixed_topic,
           std::shared_ptr<Resolver> resolver,
           AnyMessageSerializer<T> serializer,
           std::unique_ptr<PublishEngine> engine, std::string sink_name)
        : fixed_topic_(std::move(fixed_topic)),
          resolver_(std::move(resolver)),
          serializer_(std::move(serializer)),
          engine_(std::move(engine)),
          sink_name_(std::move(sink_name)) {
      if (fixed_topic_.has_value()) engine_->SetFixedTopic(*fixed_topic_);
    }

    absl::Status Write(const T& record, const WriterContext& context) override {
      engine_->CountIn();
      // A fixed topic is not copied per record.
      absl::StatusOr<TopicDestination> resolved;
      if (!fixed_topic_.has_value()) {
        resolved = ResolveDestination(*resolver_, record, context, sink_name_);
        if (!resolved.ok()) return resolved.status();
      }
      const TopicDestination& topic =
          fixed_topic_.has_value() ? *fixed_topic_ : *resolved;
      absl::StatusOr<Serialized> serialized =
          serializer_(record, context, engine_->StagedMessage());
      if (!serialized.ok()) {
        engine_->DiscardStaged();
        return engine_->RouteSerializationFailure(topic, serialized.status(),
                                                  context);
      }
      if (*serialized == Serialized::kSkip) {
        engine_->DiscardStaged();
        engine_->CountSkipped();
        return absl::OkStatus();
      }
      return engine_->PublishStaged(topic, context);
    }

    absl::Status Flush(bool end_of_input) override {
      return engine_->Flush(end_of_input);
    }

    void Close() override { engine_->Close(); }

    PublishEngine& engine() { return *engine_; }

   private:
    const std::optional<TopicDestination> fixed_topic_;
    std::shared_ptr<Resolver> resolver_;
    AnyMessageSerializer<T> serializer_;
    std::unique_ptr<PublishEngine> engine_;
    std::string sink_name_;
  };

  PubSubSinkOptions options_;
  // Set for a fixed topic; otherwise `resolver_` names each record's.
  std::optional<TopicDestination> fixed_topic_;
  std::shared_ptr<Resolver> resolver_;
  AnyMessageSerializer<T> serializer_;
  PubSubFailureHandlerFactory failure_handler_;
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBSUB_SINK_H_
