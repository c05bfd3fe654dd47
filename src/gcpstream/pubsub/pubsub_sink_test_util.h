#ifndef GCPSTREAM_PUBSUB_PUBSUB_SINK_TEST_UTIL_H_
#define GCPSTREAM_PUBSUB_PUBSUB_SINK_TEST_UTIL_H_

// Shared by the Pub/Sub sink's unit and emulator tests: a record type, its
// serializer and resolver, a failure handler that records what it gets, and
// a stand-in for the task thread.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "gcpstream/testing/sink_test_task.h"

namespace gcpstream::pubsub::testing {

struct Order {
  std::string topic;
  std::string key;   // Ordering key; empty for none.
  std::string data;  // "skip" is skipped, "broken" fails serialization.
  std::map<std::string, std::string> attributes = {};
};

inline MessageSerializer<Order> OrderSerializer() {
  return
      [](const Order& order,
         const WriterContext&) -> absl::StatusOr<std::optional<PubsubMessage>> {
        if (order.data == "skip") return std::nullopt;
        if (order.data == "broken") {
          return absl::InvalidArgumentError("field 'amount' is missing");
        }
        PubsubMessage message;
        message.set_data(order.data);
        message.set_ordering_key(order.key);
        for (const auto& [key, value] : order.attributes) {
          (*message.mutable_attributes())[key] = value;
        }
        return std::optional<PubsubMessage>(std::move(message));
      };
}

inline std::shared_ptr<DestinationResolver<Order, TopicDestination>>
OrderTopicResolver(std::string project) {
  return MakeResolver<Order, TopicDestination>(
      [project = std::move(project)](
          const Order& order,
          const WriterContext&) -> absl::StatusOr<TopicDestination> {
        TopicDestination topic;
        topic.project = project;
        topic.topic = order.topic;
        return topic;
      });
}

using RecordingHandler =
    ::gcpstream::testing::RecordingHandler<PubSubFailedElement>;

inline PubSubFailureHandlerFactory Recording(
    const std::shared_ptr<std::vector<PubSubFailedElement>>& out) {
  return ::gcpstream::testing::RecordingFactory(out);
}

// The test thread stands in for a subtask's task thread.
using FakeTask = ::gcpstream::testing::SinkTestTask;

}  // namespace gcpstream::pubsub::testing

#endif  // GCPSTREAM_PUBSUB_PUBSUB_SINK_TEST_UTIL_H_
