#include "gcpstream/connector/rpc_observer.h"

#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/struct.pb.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/testing/captured_log.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/spdlog.h"

namespace gcpstream::connector {
namespace {

using ::gcpstream::testing::CapturedLog;

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class Recorder final : public RpcObserver {
 public:
  explicit Recorder(std::vector<std::string>& events) : events_(events) {}
  void OnStart(absl::string_view method,
               const google::protobuf::Message& request) override {
    events_.push_back(
        absl::StrCat("start ", method, " ", request.ByteSizeLong()));
  }
  void OnEnd(absl::string_view method, const grpc::Status& status,
             absl::Duration elapsed) override {
    events_.push_back(
        absl::StrCat("end ", method, " ", static_cast<int>(status.error_code()),
                     elapsed >= absl::ZeroDuration() ? "" : " negative"));
  }

 private:
  std::vector<std::string>& events_;
};

google::protobuf::Value Request(std::string text) {
  google::protobuf::Value value;
  value.set_string_value(std::move(text));
  return value;
}

TEST(RpcObserversTest, EveryObserverSeesTheStartThenTheEndBeforeDone) {
  std::vector<std::string> events;
  RpcObservers observers(
      {std::make_shared<Recorder>(events), std::make_shared<Recorder>(events)});
  RpcDone done = observers.Observe(
      "Publish", Request("abc"), [&](const grpc::Status& status) {
        events.push_back(
            absl::StrCat("done ", static_cast<int>(status.error_code())));
      });
  EXPECT_THAT(events, ElementsAre("start Publish 5", "start Publish 5"));
  done(grpc::Status(grpc::StatusCode::UNAVAILABLE, "down"));
  EXPECT_THAT(events,
              ElementsAre("start Publish 5", "start Publish 5",
                          "end Publish 14", "end Publish 14", "done 14"));
}

TEST(RpcObserversTest, WithoutObserversDoneIsReturnedAsIs) {
  int calls = 0;
  RpcDone done = RpcObservers().Observe("Publish", Request(""),
                                        [&](const grpc::Status&) { ++calls; });
  done(grpc::Status::OK);
  EXPECT_EQ(calls, 1);
}

TEST(RpcLatencyTest, TimesOnlyTheMethodsGivenAHistogram) {
  auto publish = std::make_shared<Histogram>(DefaultDurationBuckets());
  RpcLatency latency({{"Publish", publish}});
  latency.OnEnd("Publish", grpc::Status::OK, absl::Milliseconds(20));
  latency.OnEnd("Publish", grpc::Status::CANCELLED, absl::Milliseconds(40));
  latency.OnEnd("GetTopic", grpc::Status::OK, absl::Seconds(3));
  Histogram::Snapshot snapshot = publish->Collect();
  EXPECT_EQ(snapshot.count, 2u);
  EXPECT_NEAR(snapshot.sum, 0.06, 1e-9);
}

TEST(RpcLoggingTest, LogsStartAndEndAtDebugLevelWithACutRequest) {
  CapturedLog log(spdlog::level::debug);
  RpcLogging logging("pubsub-sink");
  logging.OnStart("Publish",
                  Request(std::string(2 * RpcLogging::kMaxRequestChars, 'x')));
  logging.OnEnd("Publish", grpc::Status(grpc::StatusCode::NOT_FOUND, "gone"),
                absl::Milliseconds(7));
  const std::string text = log.str();
  EXPECT_THAT(
      text,
      AllOf(
          HasSubstr("pubsub-sink: Publish start: "), HasSubstr("xxx..."),
          HasSubstr("pubsub-sink: Publish end: code 5 after "
                    "7ms: gone"),
          Not(HasSubstr(std::string(RpcLogging::kMaxRequestChars + 1, 'x')))));
}

TEST(RpcLoggingTest, LogsNothingAboveDebugLevel) {
  CapturedLog log(spdlog::level::info);
  RpcLogging logging("pubsub-sink");
  logging.OnStart("Publish", Request("abc"));
  logging.OnEnd("Publish", grpc::Status::OK, absl::Milliseconds(1));
  EXPECT_EQ(log.str(), "");
}

}  // namespace
}  // namespace gcpstream::connector
