// The Cloud Tasks sink against a scripted Cloud Tasks server: what the
// emulator cannot produce (ALREADY_EXISTS for a replayed name, NOT_FOUND
// for a missing queue, INVALID_ARGUMENT, RESOURCE_EXHAUSTED storms).

#include "gcpstream/cloudtasks/cloudtasks_sink.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/testing/scripted_server.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cloudtasks {
namespace {

namespace v2 = ::google::cloud::tasks::v2;
using ::gcpstream::testing::Always;
using ::gcpstream::testing::Fail;
using ::gcpstream::testing::Respond;
using ::gcpstream::testing::ScriptedServer;
using ::gcpstream::testing::Typed;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kCreateTask[] = "google.cloud.tasks.v2.CloudTasks.CreateTask";

struct Hook {
  std::string customer;
  std::string body;  // "skip" is skipped, "broken" fails serialization.
  std::string url = "https://hooks.example.com/orders";
};

TaskSerializer<Hook> HookSerializer(bool with_id) {
  TaskSerializer<Hook> serializer{
      .task = [](const Hook& hook,
                 const WriterContext&) -> absl::StatusOr<std::optional<Task>> {
        if (hook.body == "skip") return std::nullopt;
        if (hook.body == "broken") {
          return absl::InvalidArgumentError("field 'body' is missing");
        }
        Task task;
        task.mutable_http_request()->set_url(hook.url);
        task.mutable_http_request()->set_http_method(v2::POST);
        task.mutable_http_request()->set_body(hook.body);
        return std::optional<Task>(std::move(task));
      }};
  if (with_id) {
    serializer.task_id =
        [](const Hook& hook,
           const WriterContext&) -> absl::StatusOr<std::string> {
      return absl::StrCat(hook.customer, "/", hook.body);
    };
  }
  return serializer;
}

// Creates the task it is asked for; remembers names like the service, so a
// second create of one name is ALREADY_EXISTS.
class NamedTasks {
 public:
  ::gcpstream::testing::Responder Responder() {
    return Typed<v2::CreateTaskRequest>(
        [this](const v2::CreateTaskRequest& request) {
          if (!request.task().name().empty() &&
              !names_.insert(request.task().name()).second) {
            return Fail(grpc::StatusCode::ALREADY_EXISTS, "task exists");
          }
          return Respond(request.task());
        });
  }

 private:
  std::set<std::string> names_;
};

class CloudTasksSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ScriptedServer::Start({"google.cloud.tasks.v2.CloudTasks"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    server_->SetDefault(kCreateTask, names_.Responder());
    failures_ = std::make_shared<std::vector<CloudTasksFailedElement>>();
  }

  CloudTasksSinkOptions Options() const {
    CloudTasksSinkOptions options;
    options.name = "hooks-sink";
    options.channel.endpoint = server_->address();
    options.channel.plaintext = true;
    options.retry.backoff.initial_delay = absl::Milliseconds(1);
    options.retry.backoff.max_delay = absl::Milliseconds(5);
    options.missing_queue.backoff.initial_delay = absl::Milliseconds(1);
    options.missing_queue.backoff.max_delay = absl::Milliseconds(5);
    return options;
  }

  std::unique_ptr<runtime::SinkWriter<Hook>> Writer(
      const CloudTasksSinkOptions& options, bool with_id = true) {
    auto resolver = MakeResolver<Hook, QueueDestination>(
        [](const Hook& hook,
           const WriterContext&) -> absl::StatusOr<QueueDestination> {
          return QueueDestination("p", "l",
                                  absl::StrCat("webhooks-", hook.customer));
        });
    CloudTasksSink<Hook> sink(
        options, std::move(resolver), HookSerializer(with_id),
        ::gcpstream::testing::RecordingFactory(failures_));
    auto writer = sink.CreateWriter(task_.Context());
    EXPECT_TRUE(writer.ok()) << writer.status();
    return writer.ok() ? *std::move(writer) : nullptr;
  }

  std::vector<v2::CreateTaskRequest> Creates() const {
    std::vector<v2::CreateTaskRequest> creates;
    for (const auto& recorded : server_->Requests(kCreateTask)) {
      creates.push_back(
          static_cast<const v2::CreateTaskRequest&>(*recorded.message));
    }
    return creates;
  }

  NamedTasks names_;
  std::unique_ptr<ScriptedServer> server_;
  std::shared_ptr<std::vector<CloudTasksFailedElement>> failures_;
  ::gcpstream::testing::SinkTestTask task_;
};

TEST_F(CloudTasksSinkTest, EachRecordCreatesANamedTaskInItsQueue) {
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(
      task_.WriteAll<Hook>(*writer, {{"a", "1"}, {"b", "2"}, {"a", "skip"}})
          .ok());
  const auto creates = Creates();
  ASSERT_THAT(creates, SizeIs(2));
  std::set<std::string> names;
  for (const auto& create : creates) {
    EXPECT_TRUE(absl::StartsWith(create.task().name(),
                                 absl::StrCat(create.parent(), "/tasks/")));
    names.insert(create.task().name());
  }
  EXPECT_TRUE(names.contains("projects/p/locations/l/queues/webhooks-a/tasks/" +
                             TaskIdOf("a/1")));
  const auto recorded = server_->Requests(kCreateTask);
  const auto params = recorded[0].metadata.find("x-goog-request-params");
  ASSERT_NE(params, recorded[0].metadata.end());
  EXPECT_THAT(params->second, HasSubstr("parent=projects%2Fp"));
  EXPECT_EQ(task_.Metric("records_written"), "2");
  EXPECT_EQ(task_.Metric("records_skipped"), "1");
  EXPECT_EQ(task_.Metric("in_flight_tasks"), "0");
}

TEST_F(CloudTasksSinkTest, AReplayedNameIsADeduplicatedSuccess) {
  for (int run = 0; run < 2; ++run) {
    auto writer = Writer(Options());
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(task_.WriteAll<Hook>(*writer, {{"a", "1"}, {"a", "2"}}).ok());
  }
  EXPECT_EQ(server_->CallCount(kCreateTask), 4);
  EXPECT_EQ(task_.Metric("tasks_deduplicated"), "2");
  EXPECT_EQ(task_.Metric("records_written"), "4");
  EXPECT_THAT(*failures_, IsEmpty());
}

TEST_F(CloudTasksSinkTest, TransientCodesAreRetried) {
  for (grpc::StatusCode code :
       {grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::DEADLINE_EXCEEDED,
        grpc::StatusCode::RESOURCE_EXHAUSTED}) {
    SCOPED_TRACE(code);
    server_->Enqueue(kCreateTask, Always(Fail(code, "busy")));
    server_->Enqueue(kCreateTask, Always(Fail(code, "busy")));
  }
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.WriteAll<Hook>(*writer, {{"a", "1"}}).ok());
  EXPECT_EQ(server_->CallCount(kCreateTask), 7);
  EXPECT_EQ(task_.Metric("request_retries"), "6");
  EXPECT_EQ(task_.Metric("create_task_errors_resource_exhausted"), "2");
}

TEST_F(CloudTasksSinkTest, AnUnnamedTaskIsNotResentAfterAnAmbiguousFailure) {
  server_->Enqueue(kCreateTask,
                   Always(Fail(grpc::StatusCode::UNAVAILABLE, "reset")));
  auto writer = Writer(Options(), /*with_id=*/false);
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll<Hook>(*writer, {{"a", "1"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("set a task-id-extractor"));
  EXPECT_EQ(server_->CallCount(kCreateTask), 1);
  EXPECT_THAT(*failures_, IsEmpty());
}

TEST_F(CloudTasksSinkTest, AnUnnamedTaskIsResentAfterResourceExhausted) {
  server_->Enqueue(kCreateTask,
                   Always(Fail(grpc::StatusCode::RESOURCE_EXHAUSTED, "quota")));
  auto writer = Writer(Options(), /*with_id=*/false);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.WriteAll<Hook>(*writer, {{"a", "1"}}).ok());
  EXPECT_EQ(server_->CallCount(kCreateTask), 2);
  EXPECT_TRUE(Creates()[1].task().name().empty());
}

TEST_F(CloudTasksSinkTest, AMissingQueueFailsAfterItsShortBudget) {
  server_->SetDefault(kCreateTask,
                      Always(Fail(grpc::StatusCode::NOT_FOUND, "no queue")));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll<Hook>(*writer, {{"a", "1"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(),
              HasSubstr("queue projects/p/locations/l/queues/webhooks-a"));
  EXPECT_THAT(status.message(), HasSubstr("never creates queues"));
  EXPECT_EQ(server_->CallCount(kCreateTask), 3);
}

TEST_F(CloudTasksSinkTest, InvalidArgumentGoesToTheHandler) {
  server_->Enqueue(kCreateTask, Always(Fail(grpc::StatusCode::INVALID_ARGUMENT,
                                            "bad schedule")));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(task_.WriteAll<Hook>(*writer, {{"a", "1"}, {"a", "2"}}).ok());
  ASSERT_THAT(*failures_, SizeIs(1));
  const CloudTasksFailedElement& failed = failures_->front();
  EXPECT_EQ(failed.connector, "cloudtasks");
  EXPECT_EQ(failed.destination, "projects/p/locations/l/queues/webhooks-a");
  EXPECT_EQ(failed.status.code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(failed.payload.has_value());
  EXPECT_THAT(*failed.payload, HasSubstr("hooks.example.com"));
  EXPECT_EQ(task_.Metric("records_written"), "1");
  EXPECT_EQ(task_.Metric("records_routed"), "1");
}

TEST_F(CloudTasksSinkTest, OtherCodesFailTheJob) {
  server_->Enqueue(kCreateTask, Always(Fail(grpc::StatusCode::PERMISSION_DENIED,
                                            "no cloudtasks.tasks.create")));
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  absl::Status status = task_.WriteAll<Hook>(*writer, {{"a", "1"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(status.message(), HasSubstr("webhooks-a"));
  EXPECT_THAT(*failures_, IsEmpty());
}

TEST_F(CloudTasksSinkTest, BadTasksAreRoutedBeforeSending) {
  auto writer = Writer(Options());
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(
      task_.WriteAll<Hook>(*writer, {{"a", "1", "ftp://nope"}, {"a", "broken"}})
          .ok());
  EXPECT_EQ(server_->CallCount(kCreateTask), 0);
  ASSERT_THAT(*failures_, SizeIs(2));
  EXPECT_THAT((*failures_)[0].status.message(),
              HasSubstr("'http_request.url'"));
  EXPECT_THAT((*failures_)[1].status.message(), HasSubstr("serializer"));
}

TEST_F(CloudTasksSinkTest, ANamedTaskOrAnEmptyKeyFailsTheJob) {
  TaskSerializer<Hook> named = HookSerializer(false);
  named.task = [](const Hook&,
                  const WriterContext&) -> absl::StatusOr<std::optional<Task>> {
    Task task;
    task.set_name("projects/p/locations/l/queues/q/tasks/mine");
    task.mutable_http_request()->set_url("https://h/x");
    return std::optional<Task>(std::move(task));
  };
  CloudTasksSink<Hook> sink(Options(), QueueDestination("p", "l", "q"), named);
  auto writer = sink.CreateWriter(task_.Context());
  ASSERT_TRUE(writer.ok());
  absl::Status status = task_.Write<Hook>(**writer, {"a", "1"});
  EXPECT_THAT(status.message(), HasSubstr("the serializer named the task"));

  TaskSerializer<Hook> empty_key = HookSerializer(false);
  empty_key.task_id = [](const Hook&,
                         const WriterContext&) -> absl::StatusOr<std::string> {
    return std::string();
  };
  CloudTasksSink<Hook> keyed(Options(), QueueDestination("p", "l", "q"),
                             empty_key);
  auto keyed_writer = keyed.CreateWriter(task_.Context());
  ASSERT_TRUE(keyed_writer.ok());
  status = task_.Write<Hook>(**keyed_writer, {"a", "1"});
  EXPECT_THAT(status.message(), HasSubstr("no key (an empty one)"));
  EXPECT_EQ(server_->CallCount(kCreateTask), 0);
}

TEST_F(CloudTasksSinkTest, CreatesAreSpreadOverAChannelPool) {
  CloudTasksSinkOptions options = Options();
  options.channel_pool_size = 3;
  options.max_in_flight_tasks = 2;
  auto writer = Writer(options);
  ASSERT_NE(writer, nullptr);
  std::vector<Hook> hooks;
  hooks.reserve(30);
  for (int i = 0; i < 30; ++i) hooks.push_back({"c", absl::StrCat(i)});
  ASSERT_TRUE(task_.WriteAll(*writer, hooks).ok());
  EXPECT_EQ(server_->CallCount(kCreateTask), 30);
  EXPECT_EQ(task_.Metric("records_written"), "30");
}

}  // namespace
}  // namespace gcpstream::cloudtasks
