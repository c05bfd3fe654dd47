// The Cloud Tasks sink against PyPI's gcloud-tasks-emulator: records routed
// to 4 queues become tasks that the emulator dispatches to an HTTP server
// the test runs, checked per record; the emulator's deviations from the
// service (no name deduplication, FAILED_PRECONDITION for a missing queue)
// are pinned here; the service's answers are tested on the scripted server
// (cloudtasks_sink_test).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/cloudtasks/cloudtasks_sink.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/testing/http_receiver.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cloudtasks {
namespace {

namespace v2 = ::google::cloud::tasks::v2;
using ::gcpstream::testing::HttpReceiver;
using ::gcpstream::testing::ReceivedRequest;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kProject[] = "tasks-project";
constexpr char kLocation[] = "us-central1";
constexpr int kQueues = 4;

struct Order {
  int customer = 0;
  int id = 0;
};

std::string QueueOf(int customer) {
  return absl::StrCat("webhooks-", customer % kQueues);
}

class CloudTasksSinkIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto channel = ::gcpstream::testing::TestEmulatorChannel(
        emulators::EmulatorKind::kCloudTasks);
    ASSERT_TRUE(channel.ok()) << channel.status();
    channel_ = *std::move(channel);
    for (int i = 0; i < kQueues; ++i) {
      ASSERT_TRUE(emulators::EnsureCloudTasksQueue(channel_, kProject,
                                                   kLocation,
                                                   absl::StrCat("webhooks-", i))
                      .ok());
    }
    auto receiver = HttpReceiver::Start();
    ASSERT_TRUE(receiver.ok()) << receiver.status();
    receiver_ = *std::move(receiver);
    failures_ = std::make_shared<std::vector<CloudTasksFailedElement>>();
  }

  std::unique_ptr<runtime::SinkWriter<Order>> Writer(
      std::shared_ptr<DestinationResolver<Order, QueueDestination>> resolver =
          nullptr) {
    if (resolver == nullptr) {
      resolver = MakeResolver<Order, QueueDestination>(
          [](const Order& order,
             const WriterContext&) -> absl::StatusOr<QueueDestination> {
            return QueueDestination(kProject, kLocation,
                                    QueueOf(order.customer));
          });
    }
    TaskSerializer<Order> serializer{
        .task = [port = receiver_->port()](const Order& order,
                                           const WriterContext&)
            -> absl::StatusOr<std::optional<Task>> {
          Task task;
          v2::HttpRequest& http = *task.mutable_http_request();
          http.set_url(absl::StrCat("http://127.0.0.1:", port, "/hooks/",
                                    order.customer, "?order=", order.id));
          http.set_http_method(v2::POST);
          (*http.mutable_headers())["Content-Type"] = "application/json";
          (*http.mutable_headers())["X-Customer"] =
              absl::StrCat(order.customer);
          http.set_body(absl::StrCat("{\"order\":", order.id, "}"));
          return std::optional<Task>(std::move(task));
        },
        .task_id = [](const Order& order,
                      const WriterContext&) -> absl::StatusOr<std::string> {
          return absl::StrCat("order-", order.id);
        }};
    CloudTasksSinkOptions options;
    options.name = "hooks";
    CloudTasksSink<Order> sink(
        options, std::move(resolver), serializer,
        ::gcpstream::testing::RecordingFactory(failures_));
    auto writer = sink.CreateWriter(task_.Context());
    EXPECT_TRUE(writer.ok()) << writer.status();
    return writer.ok() ? *std::move(writer) : nullptr;
  }

  static std::vector<Order> Orders(int first, int count) {
    std::vector<Order> orders;
    orders.reserve(count);
    for (int i = first; i < first + count; ++i) {
      orders.push_back({.customer = i % 7, .id = i});
    }
    return orders;
  }

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<HttpReceiver> receiver_;
  std::shared_ptr<std::vector<CloudTasksFailedElement>> failures_;
  ::gcpstream::testing::SinkTestTask task_;
};

TEST_F(CloudTasksSinkIntegrationTest, EveryRecordIsDispatchedFromItsQueue) {
  auto writer = Writer();
  ASSERT_NE(writer, nullptr);
  const std::vector<Order> orders = Orders(0, 20);
  ASSERT_TRUE(task_.WriteAll(*writer, orders).ok());
  const std::vector<ReceivedRequest> received =
      receiver_->WaitFor(orders.size(), absl::Seconds(30));
  ASSERT_EQ(received.size(), orders.size());
  std::map<std::string, ReceivedRequest> by_target;
  for (const ReceivedRequest& request : received) {
    by_target[request.target] = request;
  }
  for (const Order& order : orders) {
    SCOPED_TRACE(order.id);
    auto it = by_target.find(
        absl::StrCat("/hooks/", order.customer, "?order=", order.id));
    ASSERT_NE(it, by_target.end());
    const ReceivedRequest& request = it->second;
    EXPECT_EQ(request.method, "POST");
    EXPECT_EQ(request.body, absl::StrCat("{\"order\":", order.id, "}"));
    EXPECT_EQ(request.headers.at("content-type"), "application/json");
    EXPECT_EQ(request.headers.at("x-customer"), absl::StrCat(order.customer));
    // The emulator sends the queue's full name (the service: its short id).
    EXPECT_TRUE(absl::EndsWith(request.headers.at("x-cloudtasks-queuename"),
                               QueueOf(order.customer)));
    EXPECT_THAT(request.headers.at("x-cloudtasks-taskname"),
                HasSubstr(TaskIdOf(absl::StrCat("order-", order.id))));
  }
  EXPECT_EQ(task_.Metric("records_written"), "20");
  EXPECT_THAT(*failures_, IsEmpty());
}

// The service answers a second create of one name ALREADY_EXISTS (a
// deduplicated replay, cloudtasks_sink_test); the emulator creates and
// dispatches the task again.
TEST_F(CloudTasksSinkIntegrationTest, EmulatorDoesNotDeduplicateNames) {
  for (int run = 0; run < 2; ++run) {
    auto writer = Writer();
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(task_.WriteAll(*writer, Orders(100, 3)).ok());
  }
  EXPECT_EQ(receiver_->WaitFor(6, absl::Seconds(30)).size(), 6u);
  EXPECT_EQ(task_.Metric("tasks_deduplicated"), "0");
}

// The service answers NOT_FOUND for a missing queue (retried on its short
// budget, cloudtasks_sink_test); the emulator answers FAILED_PRECONDITION,
// which fails the job at once. Either way the error names the queue.
TEST_F(CloudTasksSinkIntegrationTest, EmulatorMissingQueueFailsNamingIt) {
  auto writer = Writer(MakeResolver<Order, QueueDestination>(
      [](const Order&,
         const WriterContext&) -> absl::StatusOr<QueueDestination> {
        return QueueDestination(kProject, kLocation, "no-such-queue");
      }));
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll(*writer, Orders(200, 1));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("queues/no-such-queue"));
}

}  // namespace
}  // namespace gcpstream::cloudtasks
