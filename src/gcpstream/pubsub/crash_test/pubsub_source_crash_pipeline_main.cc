// The pipeline the Pub/Sub source crash test kills and restarts: a Pub/Sub
// source (two subtasks sharing one subscription) into an exactly-once file
// sink, with frequent checkpoints and a small flow-control window so that a
// kill finds messages in every state (buffered, emitted, awaiting their
// checkpoint, acknowledged).
//
//   pubsub_source_crash_pipeline --checkpoint-dir D --output-dir O
//       --subscription projects/P/subscriptions/S [--stop-when-idle SECONDS]
//
// With --stop-when-idle the run ends itself once it has run that long, no
// message arrived for three seconds and nothing it received is left
// unacknowledged; without it, it runs until killed.

#include <atomic>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gcpstream/pubsub/pubsub_source.h"
#include "gcpstream/runtime/connectors/file_sink.h"
#include "gcpstream/runtime/pipeline.h"

namespace gcpstream::pubsub {
namespace {

// Sums each metric's series across subtasks from the Prometheus text.
std::map<std::string, double> SumMetrics(const std::string& text) {
  std::map<std::string, double> sums;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line.front() == '#') continue;
    const size_t name_end = line.find_first_of("{ ");
    const size_t value_start = line.rfind(' ');
    double value = 0;
    if (name_end == absl::string_view::npos ||
        !absl::SimpleAtod(line.substr(value_start + 1), &value)) {
      continue;
    }
    sums[std::string(line.substr(0, name_end))] += value;
  }
  return sums;
}

// Stops `pipeline` once it ran `min_run`, received nothing for three
// seconds and holds no unacknowledged message.
void StopWhenIdle(runtime::Pipeline& pipeline, absl::Duration min_run,
                  const std::atomic<bool>& finished) {
  const absl::Time started = absl::Now();
  double last_received = -1;
  absl::Time last_change = started;
  while (!finished.load()) {
    absl::SleepFor(absl::Milliseconds(200));
    std::map<std::string, double> sums =
        SumMetrics(pipeline.metrics().ExportPrometheusText());
    const absl::Time now = absl::Now();
    if (sums["messages_received"] != last_received) {
      last_received = sums["messages_received"];
      last_change = now;
    }
    if (now - started >= min_run && now - last_change >= absl::Seconds(3) &&
        sums["outstanding_messages"] == 0) {
      std::cout << "idle: received " << sums["messages_received"]
                << ", acknowledged " << sums["messages_acked"] << "\n";
      pipeline.Stop();
      return;
    }
  }
}

int Run(const std::string& checkpoint_dir, const std::string& output_dir,
        const std::string& subscription, double stop_when_idle_seconds) {
  std::vector<std::string> parts = absl::StrSplit(subscription, '/');
  if (parts.size() != 4 || parts[0] != "projects" ||
      parts[2] != "subscriptions") {
    std::cerr << "--subscription must be projects/P/subscriptions/S\n";
    return 2;
  }
  PubSubSourceOptions source_options;
  source_options.subscriptions.push_back(
      SubscriptionSpec{.project = parts[1], .subscription = parts[3]});
  source_options.stream_ack_deadline = absl::Seconds(10);
  source_options.max_outstanding_messages = 200;
  auto source = std::make_shared<PubSubSource<std::string>>(
      source_options, [](const google::pubsub::v1::PubsubMessage& message,
                         std::vector<std::string>& out) {
        out.push_back(message.data());
        return absl::OkStatus();
      });
  runtime::FileSinkOptions sink_options;
  sink_options.directory = output_dir;
  auto sink = runtime::FileSink<std::string>::Create(
      "lines", [](const std::string& line) { return line; }, sink_options);
  if (!sink.ok()) {
    std::cerr << sink.status() << "\n";
    return 2;
  }
  runtime::PipelineOptions options;
  options.name = "pubsub-source-crash-test";
  options.checkpoint_directory = checkpoint_dir;
  options.checkpoint_interval = absl::Milliseconds(300);
  runtime::Pipeline pipeline(options);
  pipeline.AddSource(source, 2).SinkTo(
      std::shared_ptr<runtime::FileSink<std::string>>(*std::move(sink)));
  std::atomic<bool> finished{false};
  std::thread watcher;
  if (stop_when_idle_seconds > 0) {
    watcher = std::thread([&] {
      StopWhenIdle(pipeline, absl::Seconds(stop_when_idle_seconds), finished);
    });
  }
  auto summary = pipeline.Run();
  finished.store(true);
  if (watcher.joinable()) watcher.join();
  if (!summary.ok()) {
    std::cerr << summary.status() << "\n";
    return 1;
  }
  std::cout << "done: " << summary->checkpoints_completed
            << " checkpoints, resumed from " << summary->restored_checkpoint_id
            << "\n";
  return 0;
}

}  // namespace
}  // namespace gcpstream::pubsub

int main(int argc, char** argv) {
  CLI::App app{"gcpstream Pub/Sub source crash-test pipeline"};
  std::string checkpoint_dir;
  std::string output_dir;
  std::string subscription;
  double stop_when_idle = 0;
  app.add_option("--checkpoint-dir", checkpoint_dir)->required();
  app.add_option("--output-dir", output_dir)->required();
  app.add_option("--subscription", subscription)->required();
  app.add_option("--stop-when-idle", stop_when_idle,
                 "minimum run time in seconds before stopping when idle");
  CLI11_PARSE(app, argc, argv);
  return gcpstream::pubsub::Run(checkpoint_dir, output_dir, subscription,
                                stop_when_idle);
}
