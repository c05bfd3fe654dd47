// The scripted-Publisher fixture of the Pub/Sub sink's tests.

#ifndef GCPSTREAM_PUBSUB_PUBSUB_SINK_FIXTURE_H_
#define GCPSTREAM_PUBSUB_PUBSUB_SINK_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/pubsub/pubsub_sink_test_util.h"
#include "gcpstream/testing/scripted_server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub::testing {

inline constexpr char kPublish[] = "google.pubsub.v1.Publisher.Publish";
inline constexpr char kCreateTopic[] = "google.pubsub.v1.Publisher.CreateTopic";

inline ::gcpstream::testing::Reply Acknowledge(
    const google::pubsub::v1::PublishRequest& request) {
  google::pubsub::v1::PublishResponse response;
  for (int i = 0; i < request.messages_size(); ++i) {
    response.add_message_ids(absl::StrCat(i));
  }
  return ::gcpstream::testing::Respond(response);
}

inline google::pubsub::v1::PublishRequest RequestOf(
    const ::gcpstream::testing::RecordedRequest& r) {
  return static_cast<const google::pubsub::v1::PublishRequest&>(*r.message);
}

class PubSubSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ::gcpstream::testing::ScriptedServer::Start(
        {"google.pubsub.v1.Publisher"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    server_->SetDefault(
        kPublish,
        ::gcpstream::testing::Typed<google::pubsub::v1::PublishRequest>(
            Acknowledge));
    failures_ = std::make_shared<std::vector<PubSubFailedElement>>();
  }

  PubSubSinkOptions Options() const {
    PubSubSinkOptions options;
    options.name = "orders-sink";
    options.channel.endpoint = server_->address();
    options.channel.plaintext = true;
    options.retry.backoff.initial_delay = absl::Milliseconds(1);
    options.retry.backoff.max_delay = absl::Milliseconds(5);
    options.publish_progress_timeout = absl::Seconds(20);
    return options;
  }

  std::unique_ptr<runtime::SinkWriter<Order>> Writer(
      const PubSubSinkOptions& options) {
    PubSubSink<Order> sink(options, OrderTopicResolver("p"), OrderSerializer(),
                           Recording(failures_));
    auto writer = sink.CreateWriter(task_.Context());
    EXPECT_TRUE(writer.ok()) << writer.status();
    return writer.ok() ? *std::move(writer) : nullptr;
  }

  // Every message the server received, in arrival order.
  std::vector<std::string> Received() const {
    std::vector<std::string> out;
    for (const auto& recorded : server_->Requests(kPublish)) {
      const google::pubsub::v1::PublishRequest request = RequestOf(recorded);
      for (const auto& message : request.messages()) {
        out.push_back(message.data());
      }
    }
    return out;
  }

  std::unique_ptr<::gcpstream::testing::ScriptedServer> server_;
  std::shared_ptr<std::vector<PubSubFailedElement>> failures_;
  FakeTask task_;
};

}  // namespace gcpstream::pubsub::testing

#endif  // GCPSTREAM_PUBSUB_PUBSUB_SINK_FIXTURE_H_
