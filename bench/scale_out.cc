// Scale-out by replicas against the Pub/Sub emulator: messages per second
// drained from one subscription's backlog by 1, 2 and 3 `gcpstream run`
// replicas (pubsub source -> at-least-once file sink), with the CPU each side
// spent, so the figures say what bounds the rate. See docs/scale-out.md.
//
//   scale_out [--messages 60000] [--replicas 1,2,3] [--parallelism 1]
//             [--quick]
//
// For each replica count: a fresh subscription holding the whole backlog,
// the replicas started together, the clock running from the moment all of
// them are ready (/readyz) until their acknowledgements (messages_acked on
// /metrics) cover the backlog. Acknowledgements follow checkpoints, so a
// drain's time includes up to one checkpoint interval (1 s) after the last
// message is written, plus the 100 ms between polls.

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/cli/metrics_text.h"
#include "gcpstream/emulators/emulator_set.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/pubsub/pubsub_emulator_test_util.h"
#include "gcpstream/testing/cli_process.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"

namespace gcpstream::bench {
namespace {

namespace fs = std::filesystem;
using testing::CliProcess;

constexpr char kProject[] = "bench";

// The backlog: `count` messages of about 230 bytes.
std::vector<google::pubsub::v1::PubsubMessage> Backlog(int count) {
  const std::string padding(200, 'x');
  std::vector<google::pubsub::v1::PubsubMessage> messages(count);
  for (int i = 0; i < count; ++i) {
    messages[i].set_data(
        absl::StrCat(R"({"id":)", i, R"(,"pad":")", padding, R"("})"));
  }
  return messages;
}

struct Result {
  int replicas = 0;
  double seconds = 0;
  double replica_cpu = 0;
  double emulator_cpu = 0;
  std::vector<double> shares;
};

absl::StatusOr<Result> Drain(const std::string& cli, const std::string& root,
                             const std::shared_ptr<grpc::Channel>& channel,
                             pid_t emulator_group, int replicas,
                             int parallelism, int messages) {
  const std::string topic = absl::StrCat("drain-", replicas, "x", parallelism);
  const std::string subscription = topic + "-sub";
  if (auto s = emulators::EnsurePubSubTopic(channel, kProject, topic);
      !s.ok()) {
    return s;
  }
  if (auto s = emulators::EnsurePubSubSubscription(channel, kProject,
                                                   subscription, topic);
      !s.ok()) {
    return s;
  }
  if (auto s = pubsub::testing::PublishMessages(channel, kProject, topic,
                                                Backlog(messages));
      !s.ok()) {
    return s;
  }
  std::vector<std::unique_ptr<CliProcess>> processes;
  for (int r = 0; r < replicas; ++r) {
    const std::string name = absl::StrCat(topic, "-replica-", r);
    const std::string file = absl::StrCat(root, "/", name, ".yaml");
    std::ofstream(file) << absl::StrCat(
        "name: ", name, "\nparallelism: ", parallelism,
        "\ncheckpoint-interval: 1s\nsource:\n  type: pubsub\n  project: ",
        kProject, "\n  subscriptions: [", subscription,
        "]\nsinks:\n  - {type: file, delivery: at-least-once, directory: ",
        root, "/", name, "}\n");
    processes.push_back(std::make_unique<CliProcess>(
        cli, absl::StrCat("run ", file, " --metrics-port 0"), "",
        absl::StrCat(root, "/", name, ".log")));
  }
  for (const auto& process : processes) {
    if (!process->AwaitReady(absl::Seconds(60))) {
      return absl::DeadlineExceededError(
          absl::StrCat("a replica never became ready:\n", process->Log()));
    }
  }
  auto cpu = [&] {
    double total = 0;
    for (const auto& process : processes) {
      total += testing::ProcessCpuSeconds(process->pid());
    }
    return total;
  };
  const double replica_cpu_start = cpu();
  const double emulator_cpu_start =
      testing::ProcessGroupCpuSeconds(emulator_group);
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + absl::Minutes(5);
  std::vector<double> acked(processes.size(), 0);
  double total = 0;
  while (total < messages && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(100));
    total = 0;
    for (size_t r = 0; r < processes.size(); ++r) {
      acked[r] = static_cast<double>(
          cli::SumMetric(processes[r]->Get("/metrics"), "messages_acked"));
      total += acked[r];
    }
  }
  Result result;
  result.replicas = replicas;
  result.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  result.replica_cpu = cpu() - replica_cpu_start;
  result.emulator_cpu =
      testing::ProcessGroupCpuSeconds(emulator_group) - emulator_cpu_start;
  for (double a : acked) result.shares.push_back(a / std::max(total, 1.0));
  for (const auto& process : processes) process->Stop();
  if (total < messages) {
    return absl::DeadlineExceededError(
        absl::StrCat(replicas, " replicas acknowledged ", total, " of ",
                     messages, " messages in 5 minutes"));
  }
  return result;
}

int Run(const std::string& cli, int messages, int parallelism,
        const std::vector<int>& replica_counts) {
  const std::string root = absl::StrCat(fs::temp_directory_path().string(),
                                        "/gcpstream-scale-out-", getpid());
  fs::create_directories(root);
  auto emulator_set = emulators::EmulatorSet::Start(
      {.kinds = {emulators::EmulatorKind::kPubSub}, .log_dir = root + "/logs"});
  if (!emulator_set.ok()) {
    std::cerr << emulator_set.status() << "\n";
    return 1;
  }
  (*emulator_set)->ExportEnvironment();
  auto channel = auth::MakeChannel(auth::Service::kPubSub);
  if (!channel.ok()) {
    std::cerr << channel.status() << "\n";
    return 1;
  }
  const pid_t emulator_group = (*emulator_set)->emulators().front().pid;
  std::printf(
      "%d messages of ~230 B per run, parallelism %d per replica (one "
      "streaming pull per subtask); CPU in seconds over the drain\n",
      messages, parallelism);
  std::printf("%-9s %12s %9s %12s %13s %16s  %s\n", "replicas", "messages/s",
              "seconds", "replica CPU", "emulator CPU", "replica us/msg",
              "share per replica");
  int status = 0;
  for (int replicas : replica_counts) {
    absl::StatusOr<Result> result = Drain(cli, root, *channel, emulator_group,
                                          replicas, parallelism, messages);
    if (!result.ok()) {
      std::cerr << result.status() << "\n";
      status = 1;
      continue;
    }
    std::string shares;
    for (double share : result->shares) {
      absl::StrAppend(&shares, shares.empty() ? "" : " / ",
                      std::lround(share * 100), "%");
    }
    std::printf("%-9d %12.0f %9.1f %12.2f %13.2f %16.1f  %s\n", replicas,
                messages / result->seconds, result->seconds,
                result->replica_cpu, result->emulator_cpu,
                result->replica_cpu * 1e6 / messages, shares.c_str());
  }
  (*emulator_set)->Stop(/*keep_logs=*/status != 0);
  if (status == 0) fs::remove_all(root);
  return status;
}

}  // namespace
}  // namespace gcpstream::bench

int main(int argc, char** argv) {
  CLI::App app{"Scale-out by replicas against the Pub/Sub emulator"};
  int messages = 60'000;
  int parallelism = 1;
  std::string replicas = "1,2,3";
  bool quick = false;
  std::string cli = GCPSTREAM_CLI;
  app.add_option("--messages", messages)->check(CLI::PositiveNumber);
  app.add_option("--replicas", replicas, "comma-separated replica counts");
  app.add_option("--parallelism", parallelism, "subtasks (streams) per replica")
      ->check(CLI::Range(1, 64));
  app.add_option("--cli", cli, "the gcpstream binary");
  app.add_flag("--quick", quick,
               "a smoke run: 2,000 messages, 1 and 2 replicas");
  CLI11_PARSE(app, argc, argv);
  std::vector<int> counts;
  for (absl::string_view count : absl::StrSplit(replicas, ',')) {
    int n = 0;
    if (!absl::SimpleAtoi(count, &n) || n < 1) {
      std::cerr << "--replicas: '" << count << "' is not a positive count\n";
      return 2;
    }
    counts.push_back(n);
  }
  if (quick) {
    messages = 2'000;
    counts = {1, 2};
  }
  return gcpstream::bench::Run(cli, messages, parallelism, counts);
}
