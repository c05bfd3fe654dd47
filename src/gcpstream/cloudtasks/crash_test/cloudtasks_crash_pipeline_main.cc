// The pipeline the Cloud Tasks crash test kills and restarts: a
// rate-limited generator whose record i becomes an HTTP task named after
// "order-<i>" (task-id-extractor) in one queue, with frequent checkpoints.
//
//   cloudtasks_crash_pipeline --checkpoint-dir D --queue
//   projects/p/.../queues/q
//                             --url http://127.0.0.1:P/orders
//                             [--endpoint HOST:PORT] [--records N] [--rate R]

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/cloudtasks/cloudtasks_sink.h"
#include "gcpstream/testing/sequence_pipeline.h"

namespace gcpstream::cloudtasks {
namespace {

namespace v2 = ::google::cloud::tasks::v2;

int Run(const std::string& checkpoint_dir, const std::string& queue,
        const std::string& url, const std::string& endpoint, int64_t records,
        double rate) {
  std::vector<std::string> parts = absl::StrSplit(queue, '/');
  if (parts.size() != 6) {
    std::cerr << "--queue must be projects/P/locations/L/queues/Q\n";
    return 2;
  }
  CloudTasksSinkOptions sink_options;
  if (!endpoint.empty()) {
    sink_options.channel.endpoint = endpoint;
    sink_options.channel.plaintext = true;
  }
  TaskSerializer<int64_t> serializer{
      .task = [url](const int64_t& i, const WriterContext&)
          -> absl::StatusOr<std::optional<Task>> {
        Task task;
        task.mutable_http_request()->set_url(absl::StrCat(url, "/", i));
        task.mutable_http_request()->set_http_method(v2::POST);
        task.mutable_http_request()->set_body(absl::StrCat(i));
        return task;
      },
      .task_id = [](const int64_t& i, const WriterContext&)
          -> absl::StatusOr<std::string> { return absl::StrCat("order-", i); }};
  auto sink = std::make_shared<CloudTasksSink<int64_t>>(
      sink_options, QueueDestination(parts[1], parts[3], parts[5]), serializer);
  return ::gcpstream::testing::RunSequencePipeline(
      {.name = "cloudtasks-crash-test",
       .checkpoint_dir = checkpoint_dir,
       .records = records,
       .records_per_second = rate,
       .max_records_per_poll = 50},
      sink);
}

}  // namespace
}  // namespace gcpstream::cloudtasks

int main(int argc, char** argv) {
  CLI::App app{"gcpstream Cloud Tasks crash-test pipeline"};
  std::string checkpoint_dir;
  std::string queue;
  std::string url;
  std::string endpoint;
  int64_t records = 8000;
  double rate = 1000;
  app.add_option("--checkpoint-dir", checkpoint_dir)->required();
  app.add_option("--queue", queue)->required();
  app.add_option("--url", url)->required();
  app.add_option("--endpoint", endpoint,
                 "plaintext host:port; unset: CLOUD_TASKS_EMULATOR_HOST");
  app.add_option("--records", records);
  app.add_option("--rate", rate, "records per second, 0 for unlimited");
  CLI11_PARSE(app, argc, argv);
  return gcpstream::cloudtasks::Run(checkpoint_dir, queue, url, endpoint,
                                    records, rate);
}
