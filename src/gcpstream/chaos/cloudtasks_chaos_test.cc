// The Cloud Tasks sink through a FaultProxy in front of the emulator:
// resets, a blackhole and latency while checkpointing every second. Every
// record becomes a named task that is dispatched, and nothing is routed.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/chaos/chaos_pipeline.h"
#include "gcpstream/chaos/fault_schedule.h"
#include "gcpstream/cloudtasks/cloudtasks_sink.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/testing/fault_proxy.h"
#include "gcpstream/testing/http_receiver.h"
#include "gcpstream/testing/sink_test_task.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::chaos {
namespace {

constexpr char kTasksProject[] = "chaos-project";
constexpr char kLocation[] = "us-central1";
constexpr char kQueue[] = "chaos";

TEST(CloudTasksChaosTest, EveryTaskIsDispatchedThroughTheFaults) {
  auto host = gcpstream::testing::TestEmulatorHost(
      emulators::EmulatorKind::kCloudTasks);
  ASSERT_TRUE(host.ok()) << host.status();
  auto channel = gcpstream::testing::TestEmulatorChannel(
      emulators::EmulatorKind::kCloudTasks);
  ASSERT_TRUE(channel.ok()) << channel.status();
  ASSERT_TRUE(emulators::EnsureCloudTasksQueue(*channel, kTasksProject,
                                               kLocation, kQueue)
                  .ok());
  auto receiver = gcpstream::testing::HttpReceiver::Start();
  ASSERT_TRUE(receiver.ok()) << receiver.status();
  auto proxy = gcpstream::testing::FaultProxy::Start(*host);
  ASSERT_TRUE(proxy.ok()) << proxy.status();
  MetricsRegistry metrics;
  runtime::Pipeline pipeline(ChaosOptions("cloudtasks-sink"), &metrics);
  cloudtasks::CloudTasksSinkOptions options;
  options.name = "chaos-sink";
  options.channel.endpoint = (*proxy)->address();
  options.channel.plaintext = true;
  cloudtasks::TaskSerializer<int64_t> serializer{
      .task = [port = (*receiver)->port()](const int64_t& i,
                                           const WriterContext&)
          -> absl::StatusOr<std::optional<cloudtasks::Task>> {
        cloudtasks::Task task;
        auto& http = *task.mutable_http_request();
        http.set_url(absl::StrCat("http://127.0.0.1:", port, "/n/", i));
        http.set_http_method(google::cloud::tasks::v2::POST);
        return std::optional<cloudtasks::Task>(std::move(task));
      },
      .task_id = [](const int64_t& i, const WriterContext&)
          -> absl::StatusOr<std::string> { return absl::StrCat("n-", i); }};
  auto failures =
      std::make_shared<std::vector<cloudtasks::CloudTasksFailedElement>>();
  pipeline.AddSource(Numbers(), 1)
      .SinkTo(std::make_shared<cloudtasks::CloudTasksSink<int64_t>>(
          options,
          cloudtasks::QueueDestination(kTasksProject, kLocation, kQueue),
          serializer, gcpstream::testing::RecordingFactory(failures)));
  FaultSchedule schedule(**proxy,
                         CheckpointsCompleted(metrics, "cloudtasks-sink"));
  auto summary = pipeline.Run();
  const std::vector<InjectedFault> faults = schedule.Finish();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(failures->empty()) << failures->front().status;
  // The emulator does not deduplicate names (docs/cloudtasks.md): a create
  // resent after a reset cut off its answer is dispatched again, where the
  // service answers ALREADY_EXISTS (tested on the scripted server). So wait
  // for every task, counting the repeats.
  std::vector<gcpstream::testing::ReceivedRequest> received;
  std::set<std::string> targets;
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  while (targets.size() < static_cast<size_t>(kRecords) &&
         absl::Now() < deadline) {
    received = (*receiver)->WaitFor(received.size() + kRecords - targets.size(),
                                    deadline - absl::Now());
    targets.clear();
    for (const auto& request : received) targets.insert(request.target);
  }
  for (int64_t i = 0; i < kRecords; ++i) {
    ASSERT_TRUE(targets.contains(absl::StrCat("/n/", i))) << "task " << i;
  }
  Report(absl::StrCat("cloud tasks sink: ", kRecords, " in, ", targets.size(),
                      " dispatched, ", received.size() - targets.size(),
                      " dispatched twice, ", summary->restarts, " restarts, ",
                      (*proxy)->connections_reset(), " connections reset"),
         faults);
}

}  // namespace
}  // namespace gcpstream::chaos
