#ifndef GCPSTREAM_CONFIG_FAILURE_HANDLER_CONFIG_H_
#define GCPSTREAM_CONFIG_FAILURE_HANDLER_CONFIG_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gcpstream/base/dead_letter_queue.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/config/option_map.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::config {

// A sink's `failure-handler:` mapping:
//   failure-handler:
//     type: fail-job | log-and-drop | dead-letter-queue   (default fail-job)
//     queue:                      # dead-letter-queue only
//       type: file | pubsub
//       directory: ...            # file
//       project: ...              # pubsub (the topic must exist)
//       topic: ...
enum class FailureHandlerKind { kFailJob, kLogAndDrop, kDeadLetterQueue };
inline constexpr EnumSpelling<FailureHandlerKind> kFailureHandlerKinds[] = {
    {"fail-job", FailureHandlerKind::kFailJob},
    {"log-and-drop", FailureHandlerKind::kLogAndDrop},
    {"dead-letter-queue", FailureHandlerKind::kDeadLetterQueue}};
inline constexpr EnumOption<FailureHandlerKind> kFailureHandlerKindOption(
    "type", kFailureHandlerKinds);

enum class DeadLetterQueueKind { kFile, kPubSub };
inline constexpr EnumSpelling<DeadLetterQueueKind> kDeadLetterQueueKinds[] = {
    {"file", DeadLetterQueueKind::kFile},
    {"pubsub", DeadLetterQueueKind::kPubSub}};
inline constexpr EnumOption<DeadLetterQueueKind> kDeadLetterQueueKindOption(
    "type", kDeadLetterQueueKinds);

// Builds one dead-letter queue per writer (subtask).
using DeadLetterQueueFactory =
    std::function<absl::StatusOr<std::unique_ptr<DeadLetterQueue>>(
        const runtime::SinkWriterContext&)>;

struct FailureHandlerSpec {
  FailureHandlerKind kind = FailureHandlerKind::kFailJob;
  DeadLetterQueueFactory queue = nullptr;  // kDeadLetterQueue only.
  // Where dead letters go, for people: "directory /x" or "Pub/Sub topic
  // projects/p/topics/t" (kDeadLetterQueue only).
  std::string queue_location;
};

// Reads (and accepts) `failure-handler` from a sink's options.
absl::StatusOr<FailureHandlerSpec> ReadFailureHandler(OptionMap& sink_options);

// The sink-specific handler factory for `spec`, one handler per writer.
template <typename F>
std::function<absl::StatusOr<std::unique_ptr<FailureHandler<F>>>(
    const runtime::SinkWriterContext&)>
MakeFailureHandlerFactory(FailureHandlerSpec spec) {
  return [spec = std::move(spec)](const runtime::SinkWriterContext& context)
             -> absl::StatusOr<std::unique_ptr<FailureHandler<F>>> {
    switch (spec.kind) {
      case FailureHandlerKind::kFailJob:
        return FailJob<F>();
      case FailureHandlerKind::kLogAndDrop:
        return LogAndDrop<F>();
      case FailureHandlerKind::kDeadLetterQueue:
        break;
    }
    absl::StatusOr<std::unique_ptr<DeadLetterQueue>> queue =
        spec.queue(context);
    if (!queue.ok()) return queue.status();
    return SendToDeadLetterQueue<F>(*std::move(queue));
  };
}

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_FAILURE_HANDLER_CONFIG_H_
