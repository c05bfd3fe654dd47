// `type: pubsub` for pipeline files: the Pub/Sub sink (topic template, data,
// attributes and ordering key mapped from record fields) and the Pub/Sub
// source (each message's data parsed as one JSON record). See
// docs/pipeline-yaml.md.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/destination_template.h"
#include "gcpstream/config/failure_handler_config.h"
#include "gcpstream/config/field_path.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/pubsub/pubsub_source.h"

namespace gcpstream::config {
namespace {

using ::google::pubsub::v1::PubsubMessage;

// How a record becomes a message, and which topic it goes to.
struct MessageMapping {
  std::string project;
  DestinationTemplate topic;
  std::optional<FieldPath> data = std::nullopt;  // nullopt: whole record.
  std::vector<std::pair<std::string, FieldPath>> attributes = {};
  std::optional<FieldPath> ordering_key = std::nullopt;
};

absl::StatusOr<std::optional<FieldPath>> ReadPath(OptionMap& options,
                                                  absl::string_view key) {
  absl::StatusOr<std::optional<std::string>> text = options.String(key);
  if (!text.ok()) return text.status();
  if (!text->has_value()) return std::optional<FieldPath>();
  absl::StatusOr<FieldPath> path = FieldPath::Parse(**text);
  if (!path.ok()) {
    return ConfigError(options.PositionOf(key),
                       absl::StrCat(options.what(), ": option '", key,
                                    "': ", path.status().message()));
  }
  return std::optional<FieldPath>(*std::move(path));
}

absl::StatusOr<MessageMapping> ReadMessageMapping(OptionMap& options) {
  absl::StatusOr<std::string> project = RequiredProject(options);
  if (!project.ok()) return project.status();
  absl::StatusOr<std::string> topic = options.RequiredString("topic");
  if (!topic.ok()) return topic.status();
  absl::StatusOr<DestinationTemplate> parsed =
      DestinationTemplate::Parse(*topic);
  if (!parsed.ok()) {
    return ConfigError(options.PositionOf("topic"),
                       absl::StrCat(options.what(), ": option 'topic': ",
                                    parsed.status().message()));
  }
  MessageMapping mapping{.project = *project, .topic = *std::move(parsed)};
  absl::StatusOr<std::optional<FieldPath>> data = ReadPath(options, "data");
  if (!data.ok()) return data.status();
  mapping.data = *std::move(data);
  absl::StatusOr<std::optional<FieldPath>> key =
      ReadPath(options, "ordering-key");
  if (!key.ok()) return key.status();
  mapping.ordering_key = *std::move(key);
  absl::StatusOr<std::optional<OptionMap>> attributes =
      options.Map("attributes");
  if (!attributes.ok()) return attributes.status();
  if (attributes->has_value()) {
    // Every key is an attribute name: read them all as field paths.
    for (const std::string& name : (*attributes)->Keys()) {
      absl::StatusOr<std::optional<FieldPath>> path =
          ReadPath(**attributes, name);
      if (!path.ok()) return path.status();
      mapping.attributes.emplace_back(name, **std::move(path));
    }
  }
  return mapping;
}

// Fills the sink's `message` in place.
absl::Status ToMessage(const MessageMapping& mapping, const Record& record,
                       const WriterContext& context, PubsubMessage& message) {
  // A topic that cannot be named for this record fails the record.
  if (!mapping.topic.constant()) {
    std::string topic;
    if (absl::Status named = mapping.topic.RenderTo(
            record, context.event_time.value_or(absl::InfinitePast()), topic);
        !named.ok()) {
      return named;
    }
  }
  std::string& data = *message.mutable_data();
  data.clear();
  if (mapping.data.has_value()) {
    absl::StatusOr<json::JsonValue> field = mapping.data->Find(record);
    if (!field.ok()) return field.status();
    AppendPayloadText(*field, data);
  } else {
    record.root().AppendCompact(data);
  }
  for (const auto& [name, path] : mapping.attributes) {
    absl::StatusOr<json::JsonValue> value = path.Find(record);
    if (!value.ok()) return value.status();
    std::string& attribute = (*message.mutable_attributes())[name];
    attribute.clear();
    if (absl::Status text = AppendFieldText(*value, path.text(), attribute);
        !text.ok()) {
      return text;
    }
  }
  if (mapping.ordering_key.has_value()) {
    absl::StatusOr<json::JsonValue> value = mapping.ordering_key->Find(record);
    if (!value.ok()) return value.status();
    std::string& key = *message.mutable_ordering_key();
    key.clear();
    if (absl::Status text =
            AppendFieldText(*value, mapping.ordering_key->text(), key);
        !text.ok()) {
      return text;
    }
  }
  return absl::OkStatus();
}

auto Serializer(std::shared_ptr<const MessageMapping> mapping) {
  return [mapping = std::move(mapping)](
             const Record& record, const WriterContext& context,
             PubsubMessage& message) -> absl::StatusOr<pubsub::Serialized> {
    absl::Status filled = ToMessage(*mapping, record, context, message);
    if (!filled.ok()) return WithRecord(filled, record);
    return pubsub::Serialized::kPublish;
  };
}

absl::StatusOr<std::shared_ptr<runtime::Sink<Record>>> PubSubSink(
    OptionMap& options, const BuildEnvironment& environment) {
  absl::StatusOr<MessageMapping> mapping = ReadMessageMapping(options);
  if (!mapping.ok()) return mapping.status();
  pubsub::PubSubSinkOptions sink;
  sink.name = environment.name;
  if (absl::Status read = pubsub::PubSubSinkOptionTable().Read(options, sink);
      !read.ok()) {
    return read;
  }
  if (absl::Status valid = pubsub::CheckPubSubSinkOptions(sink); !valid.ok()) {
    return ConfigError(options.position(),
                       absl::StrCat(options.what(), ": ", valid.message()));
  }
  // The service refuses a keyed publish to a publisher without ordering;
  // said here, `validate` catches it before any record is read.
  if (mapping->ordering_key.has_value() && !sink.enable_message_ordering) {
    return ConfigError(
        options.PositionOf("ordering-key"),
        absl::StrCat(options.what(),
                     ": option 'ordering-key' needs "
                     "'enable-message-ordering: true' (keyed messages are "
                     "published in order per key only by an ordering "
                     "publisher)"));
  }
  absl::StatusOr<FailureHandlerSpec> handler = ReadFailureHandler(options);
  if (!handler.ok()) return handler.status();
  auto shared = std::make_shared<const MessageMapping>(*std::move(mapping));
  if (shared->topic.constant()) {
    return std::make_shared<pubsub::PubSubSink<Record>>(
        sink, pubsub::TopicDestination(shared->project, shared->topic.text()),
        Serializer(shared),
        MakeFailureHandlerFactory<pubsub::PubSubFailedElement>(
            *std::move(handler)));
  }
  auto resolver = MakeResolver<Record, pubsub::TopicDestination>(
      [shared](const Record& record, const WriterContext& context)
          -> absl::StatusOr<pubsub::TopicDestination> {
        absl::StatusOr<std::string> topic = shared->topic.Render(
            record, context.event_time.value_or(absl::InfinitePast()));
        // A record whose topic cannot be named is refused by the serializer
        // (routed per the failure handler); its failure names the template.
        return pubsub::TopicDestination(
            shared->project, topic.ok() ? *topic : shared->topic.text());
      });
  return std::make_shared<pubsub::PubSubSink<Record>>(
      sink, std::move(resolver), Serializer(shared),
      MakeFailureHandlerFactory<pubsub::PubSubFailedElement>(
          *std::move(handler)));
}

absl::StatusOr<std::shared_ptr<runtime::Source<Record>>> PubSubSource(
    OptionMap& options, const BuildEnvironment& environment) {
  pubsub::PubSubSourceOptions source;
  source.name = environment.name;
  absl::StatusOr<std::string> project = RequiredProject(options);
  if (!project.ok()) return project.status();
  absl::StatusOr<std::vector<std::string>> subscriptions =
      options.RequiredStringList("subscriptions");
  if (!subscriptions.ok()) return subscriptions.status();
  for (const std::string& name : *subscriptions) {
    source.subscriptions.push_back(
        pubsub::SubscriptionSpec{.project = *project, .subscription = name});
  }
  absl::StatusOr<std::optional<std::string>> start =
      options.String(pubsub::kStartPositionKey);
  if (!start.ok()) return start.status();
  if (start->has_value()) {
    absl::StatusOr<pubsub::StartPosition> position =
        pubsub::StartPosition::Parse(**start);
    if (!position.ok()) {
      return ConfigError(
          options.PositionOf(pubsub::kStartPositionKey),
          absl::StrCat(options.what(), ": ", position.status().message()));
    }
    source.start_position = *position;
  }
  for (absl::Status status : {
           AssignIfSet(options.Enum(pubsub::kOrderingModeOption),
                       source.ordering_mode),
           AssignIfSet(
               options.Enum(pubsub::kDeserializationFailurePolicyOption),
               source.deserialization_failure_policy),
           AssignIfSet(options.Int(pubsub::kMaxOutstandingMessagesKey),
                       source.max_outstanding_messages),
           AssignIfSet(options.Int(pubsub::kMaxOutstandingBytesKey),
                       source.max_outstanding_bytes),
           AssignIfSet(options.Duration(pubsub::kStreamAckDeadlineKey),
                       source.stream_ack_deadline),
           AssignIfSet(options.Duration(pubsub::kMaxLeaseExtensionKey),
                       source.max_lease_extension),
           AssignIfSet(options.Duration(pubsub::kFirstCheckpointTimeoutKey),
                       source.first_checkpoint_timeout),
       }) {
    if (!status.ok()) return status;
  }
  if (absl::Status read =
          connector::ChannelOptionTable().Read(options, source.channel);
      !read.ok()) {
    return read;
  }
  if (absl::Status valid = pubsub::CheckPubSubSourceOptions(source);
      !valid.ok()) {
    return ConfigError(options.position(),
                       absl::StrCat(options.what(), ": ", valid.message()));
  }
  return std::make_shared<pubsub::PubSubSource<Record>>(
      source, [](const PubsubMessage& message, std::vector<Record>& out) {
        absl::StatusOr<Record> record = Record::Parse(message.data());
        if (!record.ok()) {
          return absl::InvalidArgumentError(
              "the message data is not one JSON value");
        }
        out.push_back(*std::move(record));
        return absl::OkStatus();
      });
}

const RegisterSink kPubSubSink("pubsub", PubSubSink,
                               {emulators::EmulatorKind::kPubSub});
const RegisterSource kPubSubSource("pubsub", PubSubSource,
                                   {emulators::EmulatorKind::kPubSub});

}  // namespace
}  // namespace gcpstream::config
