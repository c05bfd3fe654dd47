#ifndef GCPSTREAM_PUBSUB_PUBSUB_SINK_H_
#define GCPSTREAM_PUBSUB_PUBSUB_SINK_H_

#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/base/destination.h"
#include "gcpstream/connector/batching_sink.h"
#include "gcpstream/pubsub/publish_engine.h"
#include "gcpstream/pubsub/pubsub_failed_element.h"
#include "gcpstream/pubsub/pubsub_message.h"
#include "gcpstream/pubsub/pubsub_sink_options.h"
#include "gcpstream/pubsub/topic_destination.h"

namespace gcpstream::pubsub {

// What is Pub/Sub's in the kit's sink: the publish engine, and the in-place
// serializer (the record fills the engine's staged message, which the
// request then takes over without a copy).
template <typename T>
struct PubSubSinkTraits {
  using Engine = PublishEngine;
  using Options = PubSubSinkOptions;
  using Destination = TopicDestination;
  using Serializer = AnyMessageSerializer<T>;
  using FailedElement = PubSubFailedElement;

  static absl::StatusOr<std::unique_ptr<Engine>> CreateEngine(
      const Options& options, const runtime::SinkWriterContext& context,
      std::unique_ptr<FailureHandler<FailedElement>> handler,
      const TopicDestination* fixed) {
    absl::StatusOr<std::unique_ptr<Engine>> engine =
        PublishEngine::Create(options, context, std::move(handler));
    if (engine.ok() && fixed != nullptr) (*engine)->SetFixedTopic(*fixed);
    return engine;
  }

  static absl::Status WriteRecord(Engine& engine, const Serializer& serializer,
                                  const T& record,
                                  const TopicDestination& topic,
                                  const WriterContext& context) {
    absl::StatusOr<Serialized> serialized =
        serializer(record, context, engine.StagedMessage());
    if (!serialized.ok()) {
      engine.DiscardStaged();
      return engine.RouteSerializationFailure(topic, serialized.status(),
                                              context);
    }
    if (*serialized == Serialized::kSkip) {
      engine.DiscardStaged();
      engine.CountSkipped();
      return absl::OkStatus();
    }
    return engine.PublishStaged(topic, context);
  }

  static absl::Status CheckFixed(const Options& options,
                                 const TopicDestination& topic) {
    if (!IsUnnamed(topic)) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        options.name, ": the topic needs a project and a topic id, got '",
        topic.ResourceName(), "'"));
  }
};

// Publishes records to Pub/Sub: a fixed topic or one chosen per record by a
// DestinationResolver, with one publisher per active topic. At-least-once:
// Flush() (every checkpoint) returns once every message is acknowledged or
// routed, and a replay republishes (with new message ids). See
// docs/pubsub.md for options, ordering, failures and metrics.
template <typename T>
using PubSubSink = connector::BatchingSink<T, PubSubSinkTraits<T>>;

// Makes each writer's failure handler (one per subtask).
using PubSubFailureHandlerFactory =
    connector::BatchingSink<int, PubSubSinkTraits<int>>::HandlerFactory;

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBSUB_SINK_H_
