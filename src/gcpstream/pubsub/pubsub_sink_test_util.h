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

// Keeps every failed element it is handed.
class RecordingHandler final : public FailureHandler<PubSubFailedElement> {
 public:
  explicit RecordingHandler(
      std::shared_ptr<std::vector<PubSubFailedElement>> out)
      : out_(std::move(out)) {}
  absl::Status Open(const FailureHandlerContext&) override {
    return absl::OkStatus();
  }
  absl::Status Handle(const PubSubFailedElement& failure) override {
    out_->push_back(failure);
    return absl::OkStatus();
  }
  absl::Status Flush() override { return absl::OkStatus(); }
  void Close() override {}

 private:
  std::shared_ptr<std::vector<PubSubFailedElement>> out_;
};

inline PubSubFailureHandlerFactory Recording(
    const std::shared_ptr<std::vector<PubSubFailedElement>>& out) {
  return [out](const runtime::SinkWriterContext&)
             -> absl::StatusOr<std::unique_ptr<PublishEngine::Handler>> {
    return std::make_unique<RecordingHandler>(out);
  };
}

// The test thread stands in for a subtask's task thread.
class FakeTask {
 public:
  runtime::SinkWriterContext Context() {
    runtime::SinkWriterContext context;
    context.pipeline = "test";
    context.sink_name = "pubsub";
    context.mailbox = runtime::MailboxExecutor(&mailbox_);
    context.metrics = &registry_;
    return context;
  }

  absl::Status Write(runtime::SinkWriter<Order>& writer, const Order& order) {
    WriterContext context;
    context.record_position = position_++;
    return writer.Write(order, context);
  }

  // The value of the one series of `metric`, as a scraper reads it; "" when
  // absent.
  std::string Metric(absl::string_view metric) const {
    for (absl::string_view line :
         absl::StrSplit(registry_.ExportPrometheusText(), '\n')) {
      if (absl::StartsWith(line, absl::StrCat(metric, "{"))) {
        return std::string(line.substr(line.rfind(' ') + 1));
      }
    }
    return "";
  }

  runtime::MailboxExecutor executor() {
    return runtime::MailboxExecutor(&mailbox_);
  }

 private:
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  MetricsRegistry registry_;
  int64_t position_ = 0;
};

}  // namespace gcpstream::pubsub::testing

#endif  // GCPSTREAM_PUBSUB_PUBSUB_SINK_TEST_UTIL_H_
