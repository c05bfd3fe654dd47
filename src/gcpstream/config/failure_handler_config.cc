#include "gcpstream/config/failure_handler_config.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/base/file_dead_letter_queue.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/pubsub/pubsub_dead_letter_queue.h"

namespace gcpstream::config {
namespace {

absl::StatusOr<DeadLetterQueueFactory> ReadQueue(OptionMap& handler,
                                                 std::string& location) {
  absl::StatusOr<std::optional<OptionMap>> queue = handler.Map("queue");
  if (!queue.ok()) return queue.status();
  if (!queue->has_value()) {
    return ConfigError(handler.position(),
                       absl::StrCat(handler.what(),
                                    ": type 'dead-letter-queue' needs a "
                                    "'queue' (type: file or pubsub)"));
  }
  OptionMap& options = **queue;
  absl::StatusOr<std::optional<DeadLetterQueueKind>> kind =
      options.Enum(kDeadLetterQueueKindOption);
  if (!kind.ok()) return kind.status();
  if (!kind->has_value()) {
    return ConfigError(options.position(),
                       absl::StrCat(options.what(),
                                    ": option 'type' is required; accepted "
                                    "values: file, pubsub"));
  }
  DeadLetterQueueFactory factory;
  if (**kind == DeadLetterQueueKind::kFile) {
    absl::StatusOr<std::string> directory = options.RequiredString("directory");
    if (!directory.ok()) return directory.status();
    location = absl::StrCat("directory ", *directory);
    factory = [directory = *directory](const runtime::SinkWriterContext&)
        -> absl::StatusOr<std::unique_ptr<DeadLetterQueue>> {
      return std::make_unique<FileDeadLetterQueue>(directory);
    };
  } else {
    pubsub::PubSubDeadLetterQueueOptions queue_options;
    absl::StatusOr<std::string> project = RequiredProject(options);
    if (!project.ok()) return project.status();
    absl::StatusOr<std::string> topic = options.RequiredString("topic");
    if (!topic.ok()) return topic.status();
    queue_options.project = *project;
    queue_options.topic = *topic;
    location =
        absl::StrCat("Pub/Sub topic projects/", *project, "/topics/", *topic);
    if (absl::Status read = pubsub::PubSubDeadLetterQueueOptionTable().Read(
            options, queue_options);
        !read.ok()) {
      return read;
    }
    if (absl::Status valid =
            pubsub::CheckPubSubDeadLetterQueueOptions(queue_options);
        !valid.ok()) {
      return ConfigError(options.position(),
                         absl::StrCat(options.what(), ": ", valid.message()));
    }
    factory = [queue_options](const runtime::SinkWriterContext& context)
        -> absl::StatusOr<std::unique_ptr<DeadLetterQueue>> {
      auto created =
          pubsub::PubSubDeadLetterQueue::Create(queue_options, context.mailbox);
      if (!created.ok()) return created.status();
      return std::unique_ptr<DeadLetterQueue>(*std::move(created));
    };
  }
  if (absl::Status unknown = options.CheckNoUnknownKeys(); !unknown.ok()) {
    return unknown;
  }
  return factory;
}

}  // namespace

absl::StatusOr<FailureHandlerSpec> ReadFailureHandler(OptionMap& sink_options) {
  FailureHandlerSpec spec;
  absl::StatusOr<std::optional<OptionMap>> handler =
      sink_options.Map("failure-handler");
  if (!handler.ok()) return handler.status();
  if (!handler->has_value()) return spec;
  OptionMap& options = **handler;
  absl::StatusOr<std::optional<FailureHandlerKind>> kind =
      options.Enum(kFailureHandlerKindOption);
  if (!kind.ok()) return kind.status();
  spec.kind = kind->value_or(FailureHandlerKind::kFailJob);
  if (spec.kind == FailureHandlerKind::kDeadLetterQueue) {
    absl::StatusOr<DeadLetterQueueFactory> queue =
        ReadQueue(options, spec.queue_location);
    if (!queue.ok()) return queue.status();
    spec.queue = *std::move(queue);
  }
  if (absl::Status unknown = options.CheckNoUnknownKeys(); !unknown.ok()) {
    return unknown;
  }
  return spec;
}

}  // namespace gcpstream::config
