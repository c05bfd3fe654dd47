// examples/cpp as a user gets them: gcpstream installed into a scratch
// prefix, the examples built out of tree against it (find_package and
// pkg-config, scripts/build-installed-examples.sh), then each run against
// the emulators this test starts and its output read back through the
// services' APIs.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/cli/cli_test_util.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/emulators/spanner_query.h"
#include "gcpstream/pubsub/pubsub_emulator_test_util.h"
#include "gcpstream/testing/cli_process.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kProject[] = "examples";
constexpr char kInstance[] = "local";
constexpr char kOrdersTable[] =
    "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(64), "
    "Amount NUMERIC) PRIMARY KEY (OrderId)";

using ::gcpstream::cli::testing::Outcome;
using ::gcpstream::cli::testing::RunShell;

std::string WorkDir() {
  return std::string(GCPSTREAM_BINARY_DIR) + "/installed-examples";
}

// Installs gcpstream and builds the examples once for all tests.
const Outcome& Built() {
  static const Outcome kBuilt = RunShell(absl::StrCat(
      GCPSTREAM_SOURCE_DIR, "/scripts/build-installed-examples.sh ",
      GCPSTREAM_BINARY_DIR, " ", WorkDir()));
  return kBuilt;
}

class CppExamplesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(Built().exit_code, 0) << Built().output;
    for (auto kind : {emulators::EmulatorKind::kPubSub,
                      emulators::EmulatorKind::kSpanner}) {
      ASSERT_TRUE(gcpstream::testing::TestEmulatorHost(kind).ok());
    }
    auto pubsub = auth::MakeChannel(auth::Service::kPubSub);
    auto spanner = auth::MakeChannel(auth::Service::kSpanner);
    ASSERT_TRUE(pubsub.ok() && spanner.ok());
    pubsub_ = *pubsub;
    spanner_ = *spanner;
    scratch_ = ::testing::TempDir() + "/cpp-examples-" +
               std::to_string(getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
  }

  static std::string Example(const std::string& name) {
    return absl::StrCat(WorkDir(), "/cmake/", name);
  }

  void CreateTopic(const std::string& topic, const std::string& subscription) {
    ASSERT_TRUE(emulators::EnsurePubSubTopic(pubsub_, kProject, topic).ok());
    ASSERT_TRUE(emulators::EnsurePubSubSubscription(pubsub_, kProject,
                                                    subscription, topic)
                    .ok());
  }

  std::string Database(const std::string& database) {
    EXPECT_TRUE(emulators::EnsureSpannerDatabase(spanner_, kProject, kInstance,
                                                 database, {kOrdersTable})
                    .ok());
    return absl::StrCat("projects/", kProject, "/instances/", kInstance,
                        "/databases/", database);
  }

  std::map<int64_t, std::vector<std::string>> Rows(
      const std::string& database) {
    auto rows = emulators::QuerySpanner(
        spanner_, database,
        "SELECT OrderId, Customer, CAST(Amount AS STRING) FROM Orders");
    std::map<int64_t, std::vector<std::string>> by_id;
    if (!rows.ok()) return by_id;
    for (const auto& row : *rows) {
      by_id[std::stoll(row[0])] = {row[1], row[2]};
    }
    return by_id;
  }

  std::shared_ptr<grpc::Channel> pubsub_;
  std::shared_ptr<grpc::Channel> spanner_;
  std::string scratch_;
};

TEST_F(CppExamplesTest, PubSubToSpannerWritesOrdersAndDeadLettersRefusals) {
  CreateTopic("orders", "orders-sub");
  CreateTopic("orders-dead", "orders-dead-check");
  const std::string database = Database("orders");
  std::vector<google::pubsub::v1::PubsubMessage> messages;
  std::set<std::string> refused;
  for (int i = 0; i < 300; ++i) {
    std::string amount = absl::StrCat(i % 50, ".25");
    if (i % 50 == 7) amount.insert(0, "-");
    std::string message =
        absl::StrCat(R"({"order_id":)", i, R"(,"customer":"c-)", i % 13,
                     R"(","amount":")", amount, R"("})");
    if (i % 50 == 7) refused.insert(message);
    if (i % 100 == 42) message = "not an order";
    messages.emplace_back().set_data(message);
  }
  ASSERT_TRUE(
      pubsub::testing::PublishMessages(pubsub_, kProject, "orders", messages)
          .ok());

  gcpstream::testing::CliProcess example(
      Example("pubsub_to_spanner"),
      absl::StrCat("--project ", kProject,
                   " --subscription orders-sub --instance ", kInstance,
                   " --database orders --dead-letter-topic orders-dead",
                   " --checkpoint-dir ", scratch_, "/checkpoints"),
      /*environment=*/"", scratch_ + "/example.log");
  // 300 orders: 6 negative, 3 malformed.
  std::map<int64_t, std::vector<std::string>> rows;
  for (absl::Time deadline = absl::Now() + absl::Seconds(90);
       rows.size() < 291 && absl::Now() < deadline;
       absl::SleepFor(absl::Milliseconds(500))) {
    rows = Rows(database);
  }
  const auto dead = pubsub::testing::PullMessages(pubsub_, kProject,
                                                  "orders-dead-check", 6, 60);
  EXPECT_EQ(example.Stop(), 0) << example.Log();
  EXPECT_THAT(example.Log(), HasSubstr("orders-to-spanner stopped after"));

  ASSERT_EQ(rows.size(), 291U);
  for (int i = 0; i < 300; ++i) {
    if (i % 50 == 7 || i % 100 == 42) {
      EXPECT_FALSE(rows.contains(i)) << i;
      continue;
    }
    ASSERT_TRUE(rows.contains(i)) << i;
    EXPECT_EQ(rows[i][0], absl::StrCat("c-", i % 13));
    EXPECT_EQ(rows[i][1], absl::StrCat(i % 50, ".25"));
  }
  ASSERT_EQ(dead.size(), 6U);
  std::set<std::string> dead_data;
  for (const auto& message : dead) {
    dead_data.insert(message.data());
    EXPECT_EQ(message.attributes().at("dlq-connector"), "spanner");
    EXPECT_THAT(message.attributes().at("dlq-error"),
                HasSubstr("cannot be negative"));
  }
  EXPECT_EQ(dead_data, refused);
  // The graceful stop acknowledged everything: nothing comes back.
  EXPECT_TRUE(
      pubsub::testing::PullMessages(pubsub_, kProject, "orders-sub", 1, 3)
          .empty());
}

TEST_F(CppExamplesTest, GeneratorToPubSubPublishesToOneTopicPerRegion) {
  // The sink creates the topics; subscriptions must exist before the
  // messages do, so the test creates both.
  for (const char* region : {"eu", "us", "asia"}) {
    CreateTopic(absl::StrCat("gen-", region),
                absl::StrCat("gen-", region, "-check"));
  }
  const Outcome run = RunShell(
      absl::StrCat(Example("generator_to_pubsub"), " --project ", kProject,
                   " --count 900 --topic-prefix gen- --regions eu,us,asia"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("published 900 orders to 3 topics"));
  const std::vector<std::string> regions = {"eu", "us", "asia"};
  for (size_t r = 0; r < regions.size(); ++r) {
    const auto messages = pubsub::testing::PullMessages(
        pubsub_, kProject, absl::StrCat("gen-", regions[r], "-check"), 301, 8);
    std::set<int64_t> ids;
    for (const auto& message : messages) {
      const nlohmann::json order = nlohmann::json::parse(message.data());
      ids.insert(order.at("order_id").get<int64_t>());
      EXPECT_EQ(order.at("region").get<std::string>(), regions[r]);
      EXPECT_EQ(message.attributes().at("region"), regions[r]);
      EXPECT_EQ(message.ordering_key(),
                order.at("customer").get<std::string>());
    }
    EXPECT_EQ(ids.size(), 300U) << regions[r];
    for (int64_t id : ids) EXPECT_EQ(id % 3, static_cast<int64_t>(r));
  }
}

TEST_F(CppExamplesTest, CustomFailureHandlerKeepsRefusalsInItsFile) {
  const std::string database = Database("rejects");
  fs::create_directories(scratch_ + "/rejects");
  const Outcome run = RunShell(
      absl::StrCat(Example("custom_failure_handler"), " --project ", kProject,
                   " --instance ", kInstance, " --database rejects --count 500",
                   " --rejects-dir ", scratch_, "/rejects"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // Ids i % 10 == 9 are never written; their repeats (i - 5) are refused.
  const auto rows = Rows(database);
  EXPECT_EQ(rows.size(), 450U);
  std::ifstream rejects(scratch_ + "/rejects/rejects-0.jsonl");
  std::multiset<int64_t> refused_ids;
  for (std::string line; std::getline(rejects, line);) {
    const nlohmann::json reject = nlohmann::json::parse(line);
    EXPECT_EQ(reject.at("code"), "ALREADY_EXISTS") << line;
    EXPECT_EQ(reject.at("database"), database) << line;
    refused_ids.insert(std::stoll(
        reject.at("mutation").at("columns").at("OrderId").get<std::string>()));
  }
  std::multiset<int64_t> expected;
  for (int i = 9; i < 500; i += 10) expected.insert(i - 5);
  EXPECT_EQ(refused_ids, expected);
  // Without a writable directory the handler's Open fails the job, naming
  // the option.
  const Outcome unwritable = RunShell(
      absl::StrCat(Example("custom_failure_handler"), " --project ", kProject,
                   " --instance ", kInstance, " --database rejects --count 20",
                   " --rejects-dir ", scratch_, "/missing"));
  EXPECT_NE(unwritable.exit_code, 0);
  EXPECT_THAT(unwritable.output, HasSubstr("--rejects-dir"));
}

TEST_F(CppExamplesTest, IcebergAddFilesRegistersParquetFilesOnce) {
  const Outcome written = RunShell(absl::StrCat(
      GCPSTREAM_PYTHON, " -c '",
      "import pyarrow as pa, pyarrow.parquet as pq, sys\n"
      "for i in range(2):\n"
      "    pq.write_table(pa.table({\"id\": pa.array([i * 10 + k for k in "
      "range(10)], pa.int64()), \"name\": [\"n\"] * 10}), "
      "sys.argv[1] + f\"/part-{i}.parquet\")\n' ",
      scratch_));
  ASSERT_EQ(written.exit_code, 0) << written.output;
  const std::string files =
      absl::StrCat(scratch_, "/part-0.parquet ", scratch_, "/part-1.parquet");
  for (const std::string& binary :
       {Example("iceberg_add_files"),
        absl::StrCat(WorkDir(), "/pkg-config/iceberg_add_files")}) {
    const std::string table = binary.find("pkg-config") == std::string::npos
                                  ? "db.cmake_built"
                                  : "db.pkg_config_built";
    const std::string command =
        absl::StrCat(binary, " --catalog ", scratch_, "/warehouse --table ",
                     table, " ", files);
    const Outcome added = RunShell(command);
    ASSERT_EQ(added.exit_code, 0) << binary << "\n" << added.output;
    EXPECT_THAT(added.output, HasSubstr("added 2 files in snapshot"));
    // The same files again: the table already holds them.
    const Outcome again = RunShell(command);
    EXPECT_EQ(again.exit_code, 3) << again.output;
    EXPECT_THAT(again.output, HasSubstr("not added"));
  }
}

}  // namespace
}  // namespace gcpstream::cli
