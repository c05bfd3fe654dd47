// Scale-out by replicas (docs/scale-out.md): several `gcpstream run`
// processes of one pipeline file on one Pub/Sub subscription share its
// messages, each checkpointing to its own directory and acknowledging only
// what its checkpoints cover. One replica is SIGKILLed midway and replaced:
// every message still lands, and the only duplicates are what the killed
// replica had written after its last completed checkpoint.
//
// The replicas reach the emulator through a HalfClosingProxy, which ends a
// killed process's streams the way the service notices a vanished client
// (the emulator alone keeps handing them messages: see
// docs/notes/pubsub-emulator-facts.md).

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/client_context.h>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/emulators/spanner_query.h"
#include "gcpstream/pubsub/pubsub_emulator_test_util.h"
#include "gcpstream/testing/cli_process.h"
#include "gcpstream/testing/half_closing_proxy.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kScaleOutProject[] = "scale";
constexpr size_t kPaddingBytes = 1000;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One `gcpstream run` of a pipeline file, reaching Pub/Sub through
// `pubsub_host`, serving its probes on a free port.
class Replica : public gcpstream::testing::CliProcess {
 public:
  Replica(const std::string& name, const std::string& pipeline_file,
          const std::string& pubsub_host, const std::string& root)
      : CliProcess(GCPSTREAM_CLI,
                   absl::StrCat("run ", pipeline_file, " --metrics-port 0"),
                   absl::StrCat("PUBSUB_EMULATOR_HOST=", pubsub_host),
                   absl::StrCat(root, "/", name, ".log")),
        name_(name) {}
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// The ids an at-least-once file sink wrote, in order; an unterminated last
// line (a kill in the middle of a write) is left out.
std::vector<int64_t> ReadIds(const std::string& directory) {
  std::vector<int64_t> ids;
  if (!fs::exists(directory)) return ids;
  for (const auto& entry : fs::directory_iterator(directory)) {
    const std::string text = ReadFile(entry.path().string());
    size_t start = 0;
    for (size_t end = text.find('\n'); end != std::string::npos;
         start = end + 1, end = text.find('\n', start)) {
      const nlohmann::json record = nlohmann::json::parse(
          text.substr(start, end - start), nullptr, false);
      EXPECT_TRUE(record.is_object()) << text.substr(start, end - start);
      if (record.is_object()) ids.push_back(record.at("id").get<int64_t>());
    }
  }
  return ids;
}

std::string Events(int /*i*/) { return "events"; }

class ScaleOutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (auto kind : {emulators::EmulatorKind::kPubSub,
                      emulators::EmulatorKind::kSpanner}) {
      ASSERT_TRUE(gcpstream::testing::TestEmulatorHost(kind).ok());
    }
    auto pubsub = auth::MakeChannel(auth::Service::kPubSub);
    auto spanner = auth::MakeChannel(auth::Service::kSpanner);
    ASSERT_TRUE(pubsub.ok() && spanner.ok());
    pubsub_ = *pubsub;
    spanner_ = *spanner;
    auto proxy = gcpstream::testing::HalfClosingProxy::Start(
        std::getenv("PUBSUB_EMULATOR_HOST"));
    ASSERT_TRUE(proxy.ok()) << proxy.status();
    proxy_ = *std::move(proxy);
    root_ = ::testing::TempDir() + "/scale-out-" + std::to_string(getpid()) +
            "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    fs::create_directories(root_);
  }

  // Publishes `count` messages {"id": i, ...}, 500 per round, `pause`
  // apart, message i to `topic_of(i)`; `key` (may be null) gives its
  // ordering key.
  void Publish(int count, absl::Duration pause,
               const std::function<std::string(int)>& topic_of,
               const std::function<std::string(int)>& key = nullptr) {
    for (int from = 0; from < count; from += 500) {
      std::map<std::string, std::vector<google::pubsub::v1::PubsubMessage>>
          by_topic;
      for (int i = from; i < std::min(count, from + 500); ++i) {
        google::pubsub::v1::PubsubMessage* message =
            &by_topic[topic_of(i)].emplace_back();
        if (key) {
          message->set_ordering_key(key(i));
          message->set_data(
              absl::StrCat(R"({"id":)", i, R"(,"key":")", key(i), R"("})"));
        } else {
          // The padding fills the at-least-once file sink's write buffer
          // several times between checkpoints, so a kill finds lines written
          // after the last completed checkpoint.
          message->set_data(absl::StrCat(
              R"({"id":)", i, R"(,"payload":"order-)", i, R"(","pad":")",
              std::string(kPaddingBytes, '.'), R"("})"));
        }
      }
      for (const auto& [topic, messages] : by_topic) {
        ASSERT_TRUE(pubsub::testing::PublishMessages(pubsub_, kScaleOutProject,
                                                     topic, messages)
                        .ok());
      }
      absl::SleepFor(pause);
    }
  }

  std::string WritePipeline(const std::string& replica,
                            const std::string& subscription,
                            const std::string& ordering_mode,
                            const std::string& extra_sinks) {
    const std::string path = absl::StrCat(root_, "/", replica, ".yaml");
    std::ofstream(path) << absl::StrCat("name: ", replica, "\n",
                                        "parallelism: 1\n"
                                        "checkpoint-interval: 1s\n"
                                        "checkpoint-directory: ",
                                        root_, "/", replica,
                                        "/checkpoints\n"
                                        "shutdown-timeout: 20s\n"
                                        "source:\n"
                                        "  type: pubsub\n"
                                        "  project: ",
                                        kScaleOutProject,
                                        "\n"
                                        "  subscriptions: [",
                                        subscription,
                                        "]\n"
                                        "  ordering-mode: ",
                                        ordering_mode,
                                        "\n"
                                        "  stream-ack-deadline: 10s\n"
                                        "  max-outstanding-messages: 1000\n"
                                        "sinks:\n"
                                        "  - name: lines\n"
                                        "    type: file\n"
                                        "    delivery: at-least-once\n"
                                        "    directory: ",
                                        Output(replica), "\n", extra_sinks);
    return path;
  }

  std::string Output(const std::string& replica) const {
    return absl::StrCat(root_, "/", replica, "/out");
  }

  std::shared_ptr<grpc::Channel> pubsub_;
  std::shared_ptr<grpc::Channel> spanner_;
  std::unique_ptr<gcpstream::testing::HalfClosingProxy> proxy_;
  std::string root_;
};

TEST_F(ScaleOutTest, ThreeReplicasShareASubscriptionAndSurviveAKill) {
  constexpr int kMessages = 50'000;
  ASSERT_TRUE(
      emulators::EnsurePubSubTopic(pubsub_, kScaleOutProject, "events").ok());
  ASSERT_TRUE(emulators::EnsurePubSubSubscription(pubsub_, kScaleOutProject,
                                                  "events-sub", "events")
                  .ok());
  ASSERT_TRUE(emulators::EnsureSpannerDatabase(
                  spanner_, kScaleOutProject, "local", "scale",
                  {"CREATE TABLE Events (Id INT64 NOT NULL, Payload "
                   "STRING(64)) PRIMARY KEY (Id)"})
                  .ok());
  const std::string database = absl::StrCat("projects/", kScaleOutProject,
                                            "/instances/local/databases/scale");
  const std::string spanner_sink =
      "  - name: rows\n"
      "    type: spanner\n"
      "    project: scale\n"
      "    instance: local\n"
      "    database: scale\n"
      "    table: Events\n"
      "    operation: insert-or-update\n"
      "    columns: {Id: id, Payload: payload}\n";
  std::vector<std::unique_ptr<Replica>> replicas;
  for (const char* name : {"replica-0", "replica-1", "replica-2"}) {
    replicas.push_back(std::make_unique<Replica>(
        name, WritePipeline(name, "events-sub", "none", spanner_sink),
        proxy_->address(), root_));
  }
  for (const auto& replica : replicas) {
    ASSERT_TRUE(replica->AwaitReady(absl::Seconds(60)))
        << replica->name() << ":\n"
        << replica->Log();
  }
  // Streams register with the emulator right after the sources open.
  absl::SleepFor(absl::Seconds(1));
  std::thread publisher(
      [&] { Publish(kMessages, absl::Milliseconds(100), Events); });

  // SIGKILL replica-1 once the replicas have written 40% between them, and
  // start a replacement with a directory of its own (a new pod).
  auto written = [&](std::initializer_list<const char*> names) {
    size_t total = 0;
    for (const char* name : names) total += ReadIds(Output(name)).size();
    return total;
  };
  const absl::Time deadline = absl::Now() + absl::Minutes(4);
  while (written({"replica-0", "replica-1", "replica-2"}) < kMessages * 2 / 5 &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(200));
  }
  replicas[1]->Kill();
  replicas.push_back(std::make_unique<Replica>(
      "replica-3",
      WritePipeline("replica-3", "events-sub", "none", spanner_sink),
      proxy_->address(), root_));
  publisher.join();

  // Every message lands: in Spanner (insert-or-update: once per id) and in
  // the union of the file outputs.
  std::set<int64_t> landed;
  int64_t rows = 0;
  while (absl::Now() < deadline) {
    landed.clear();
    for (const char* name :
         {"replica-0", "replica-1", "replica-2", "replica-3"}) {
      for (int64_t id : ReadIds(Output(name))) landed.insert(id);
    }
    auto count = emulators::QuerySpanner(spanner_, database,
                                         "SELECT COUNT(*) FROM Events");
    rows = count.ok() ? std::stoll((*count)[0][0]) : 0;
    if (landed.size() == kMessages && rows == kMessages) break;
    absl::SleepFor(absl::Milliseconds(500));
  }
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (i == 1) continue;
    EXPECT_EQ(replicas[i]->Stop(), 0) << replicas[i]->name() << ":\n"
                                      << replicas[i]->Log();
  }
  EXPECT_EQ(rows, kMessages);
  ASSERT_EQ(landed.size(), static_cast<size_t>(kMessages));
  EXPECT_EQ(*landed.begin(), 0);
  EXPECT_EQ(*landed.rbegin(), kMessages - 1);
  // The graceful stops acknowledged everything.
  EXPECT_TRUE(pubsub::testing::PullMessages(pubsub_, kScaleOutProject,
                                            "events-sub", 1, 3)
                  .empty());

  // The work was shared: each original replica took a real part.
  std::map<std::string, std::vector<int64_t>> by_replica;
  for (const char* name :
       {"replica-0", "replica-1", "replica-2", "replica-3"}) {
    by_replica[name] = ReadIds(Output(name));
    std::cout << name << " wrote " << by_replica[name].size() << "\n";
  }
  for (const char* name : {"replica-0", "replica-1", "replica-2"}) {
    EXPECT_GE(by_replica[name].size(), kMessages / 20U) << name;
  }
  // The survivors wrote each id at most once between them.
  std::map<int64_t, int> survivors;
  for (const char* name : {"replica-0", "replica-2", "replica-3"}) {
    for (int64_t id : by_replica[name]) ++survivors[id];
  }
  for (const auto& [id, times] : survivors) {
    ASSERT_EQ(times, 1) << "id " << id << " written " << times
                        << " times by the surviving replicas";
  }
  // The killed replica's output is a prefix its completed checkpoints
  // acknowledged (written nowhere else) followed by a suffix they did not
  // (redelivered, so written again by the others): duplicates come only from
  // its last incomplete checkpoint.
  const std::vector<int64_t>& killed = by_replica["replica-1"];
  size_t cut = killed.size();
  while (cut > 0 && survivors.contains(killed[cut - 1])) --cut;
  for (size_t i = 0; i < cut; ++i) {
    ASSERT_FALSE(survivors.contains(killed[i]))
        << "id " << killed[i] << " at line " << i << " of " << killed.size()
        << " of the killed replica's output was also written by a survivor, "
           "before ids its checkpoints had acknowledged";
  }
  std::cout << "duplicates (the killed replica's unacknowledged suffix): "
            << killed.size() - cut << "\n";
  EXPECT_LE(killed.size() - cut, 5'000U);
}

TEST_F(ScaleOutTest, PerKeyOrderingWithOneSubscriptionPerReplica) {
  constexpr int kMessages = 6'000;
  constexpr int kKeys = 24;
  auto key = [](int i) { return absl::StrCat("customer-", i % kKeys); };
  auto shard_topic = [&](int i) {
    return absl::StrCat("keyed-", std::hash<std::string>()(key(i)) % 2);
  };
  // A key-sharded set of subscriptions: the publisher sends each key to one
  // of two topics, each read through one ordered subscription. (With the
  // service, one topic and subscriptions filtered on the shard attribute do
  // the same; the emulator ignores subscription filters.)
  for (int shard = 0; shard < 2; ++shard) {
    const std::string topic = absl::StrCat("keyed-", shard);
    ASSERT_TRUE(
        emulators::EnsurePubSubTopic(pubsub_, kScaleOutProject, topic).ok());
    ASSERT_TRUE(emulators::EnsurePubSubSubscription(
                    pubsub_, kScaleOutProject, topic + "-sub", topic,
                    /*enable_message_ordering=*/true)
                    .ok());
  }
  std::vector<std::unique_ptr<Replica>> replicas;
  for (int shard = 0; shard < 2; ++shard) {
    const std::string name = absl::StrCat("keyed-replica-", shard);
    replicas.push_back(std::make_unique<Replica>(
        name,
        WritePipeline(name, absl::StrCat("keyed-", shard, "-sub"), "per-key",
                      ""),
        proxy_->address(), root_));
  }
  for (const auto& replica : replicas) {
    ASSERT_TRUE(replica->AwaitReady(absl::Seconds(60))) << replica->Log();
  }
  Publish(kMessages, absl::Milliseconds(20), shard_topic, key);

  std::map<std::string, std::vector<int64_t>> by_key;
  std::map<std::string, std::set<int>> replicas_of_key;
  const absl::Time deadline = absl::Now() + absl::Minutes(2);
  size_t total = 0;
  while (total < kMessages && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(300));
    total = 0;
    for (int shard = 0; shard < 2; ++shard) {
      total += ReadIds(Output(absl::StrCat("keyed-replica-", shard))).size();
    }
  }
  for (auto& replica : replicas) {
    EXPECT_EQ(replica->Stop(), 0) << replica->Log();
  }
  for (int shard = 0; shard < 2; ++shard) {
    const auto ids = ReadIds(Output(absl::StrCat("keyed-replica-", shard)));
    EXPECT_GT(ids.size(), 0U) << "shard " << shard << " got nothing";
    for (int64_t id : ids) {
      by_key[key(static_cast<int>(id))].push_back(id);
      replicas_of_key[key(static_cast<int>(id))].insert(shard);
    }
  }
  ASSERT_EQ(by_key.size(), static_cast<size_t>(kKeys));
  for (const auto& [k, ids] : by_key) {
    // Each key is read by one replica, in publish order, each message once.
    EXPECT_EQ(replicas_of_key[k].size(), 1U) << k;
    EXPECT_EQ(ids.size(), static_cast<size_t>(kMessages / kKeys)) << k;
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << k;
  }
}

}  // namespace
}  // namespace gcpstream::cli
