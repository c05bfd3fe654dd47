// Tasks per second of client CPU for the Cloud Tasks sink against a null
// Cloud Tasks (a child process that answers every create): one HTTP task
// with a 1 KiB body per record, named by a task-id-extractor, 128 creates
// in flight, spread over 4 queues.
//
//   cloudtasks_sink_throughput [--tasks N] [--runs R] [--quick]

#include <cstdio>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "bench/cloudtasks_null_service.h"
#include "bench/sink_runs.h"
#include "gcpstream/cloudtasks/cloudtasks_sink.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"

namespace gcpstream::bench {
namespace {

namespace v2 = ::google::cloud::tasks::v2;

[[noreturn]] void Die(const absl::Status& status) {
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  std::exit(1);
}

SinkRun Run(const std::string& address, int64_t tasks) {
  cloudtasks::CloudTasksSinkOptions options;
  options.channel.endpoint = address;
  options.channel.plaintext = true;
  options.max_in_flight_tasks = 128;
  const std::string body(1024, 'b');
  cloudtasks::TaskSerializer<int64_t> serializer{
      .task = [&body](const int64_t& id, const WriterContext&)
          -> absl::StatusOr<std::optional<cloudtasks::Task>> {
        cloudtasks::Task task;
        v2::HttpRequest& http = *task.mutable_http_request();
        http.set_url(absl::StrCat("https://hooks.example.com/orders/", id));
        http.set_http_method(v2::POST);
        (*http.mutable_headers())["Content-Type"] = "application/json";
        http.set_body(body);
        return task;
      },
      .task_id = [](const int64_t& id,
                    const WriterContext&) -> absl::StatusOr<std::string> {
        return absl::StrCat("order-", id);
      }};
  cloudtasks::CloudTasksSink<int64_t> sink(
      options,
      MakeResolver<int64_t, cloudtasks::QueueDestination>(
          [](const int64_t& id, const WriterContext&)
              -> absl::StatusOr<cloudtasks::QueueDestination> {
            return cloudtasks::QueueDestination("p", "l",
                                                absl::StrCat("q", id % 4));
          }),
      serializer);
  runtime::Mailbox mailbox(std::make_shared<runtime::TaskSignal>());
  runtime::SinkWriterContext context;
  context.mailbox = runtime::MailboxExecutor(&mailbox);
  auto writer = sink.CreateWriter(context);
  if (!writer.ok()) Die(writer.status());
  const RunTimer timer;
  WriterContext record;
  for (int64_t id = 0; id < tasks; ++id) {
    record.record_position = id;
    if (absl::Status s = (*writer)->Write(id, record); !s.ok()) Die(s);
  }
  if (absl::Status s = (*writer)->Flush(true); !s.ok()) Die(s);
  SinkRun result = timer.Finish("sink, 1 KiB bodies, 128 in flight", tasks);
  (*writer)->Close();
  return result;
}

}  // namespace
}  // namespace gcpstream::bench

int main(int argc, char** argv) {
  using namespace gcpstream::bench;  // NOLINT(google-build-using-namespace)
  CLI::App app{"Cloud Tasks sink throughput against a null Cloud Tasks"};
  int64_t tasks = 200'000;
  int runs = 3;
  bool quick = false;
  app.add_option("--tasks", tasks);
  app.add_option("--runs", runs);
  app.add_flag("--quick", quick, "a few thousand tasks, one run (smoke)");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    tasks = 2000;
    runs = 1;
  }
  // Before any gRPC use in this process: the server is a forked child.
  const ForkedServer server = StartNullCloudTasks();
  MeasureRuns({.benchmark = "cloudtasks_sink", .items = "tasks"}, runs,
              [&] { return Run(server.address, tasks); });
  StopForkedServer(server);
  return 0;
}
