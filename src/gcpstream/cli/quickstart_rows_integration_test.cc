// The quickstart's pipeline run by `gcpstream run` against emulators this
// test starts and provisions itself; then every destination is read back
// through the emulators' APIs and compared row by row, message by message,
// with what the sample-orders rules (docs/pipeline-yaml.md) predict.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <grpcpp/client_context.h>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/cli/cli_test_util.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/emulators/spanner_query.h"
#include "gcpstream/pubsub/pubsub_emulator_test_util.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "google/spanner/v1/spanner.grpc.pb.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

namespace fs = std::filesystem;
using ::gcpstream::cli::testing::Gcpstream;

constexpr int kQuickstartOrders = 3000;
constexpr char kDatabase[] =
    "projects/quickstart/instances/local/databases/shop";

struct Expected {
  // Spanner rows by order id: region, customer, amount text, placed_at.
  std::map<int64_t, std::vector<std::string>> rows;
  // For a repeated id: the repeat's values (either insert may win).
  std::map<int64_t, std::vector<std::string>> duplicated;
  // Order ids per region topic.
  std::map<std::string, std::set<int64_t>> by_region;
  int dead_letters = 0;
};

Expected Predict() {
  Expected expected;
  for (int i = 0; i < kQuickstartOrders; ++i) {
    const int64_t id = i % 400 == 398 ? 100000 + i - 1 : 100000 + i;
    const bool has_region = i % 101 != 100;
    const bool negative = i % 250 == 249;
    const std::string region = i % 3 == 0 ? "eu" : i % 3 == 1 ? "us" : "asia";
    if (!has_region) {
      expected.dead_letters += 2;  // No topic and no Region column.
      continue;
    }
    expected.by_region[region].insert(id);
    const std::vector<std::string> row = {
        region, absl::StrCat("customer-", i % 97),
        absl::StrCat((i % 500) + 1, ".99"),
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ",
                         absl::FromUnixSeconds(1796083200 + i),
                         absl::UTCTimeZone())};
    if (negative || i % 400 == 398) {
      ++expected.dead_letters;  // CHECK, or an id already inserted.
      if (!negative) expected.duplicated[id] = row;
      continue;
    }
    expected.rows[id] = row;
  }
  return expected;
}

std::map<int64_t, std::vector<std::string>> ReadRows(
    const std::shared_ptr<grpc::Channel>& channel) {
  auto result = emulators::QuerySpanner(
      channel, kDatabase,
      "SELECT OrderId, Region, CustomerId, CAST(Amount AS STRING), "
      "FORMAT_TIMESTAMP('%Y-%m-%dT%H:%M:%SZ', PlacedAt, 'UTC') FROM Orders");
  EXPECT_TRUE(result.ok()) << result.status();
  std::map<int64_t, std::vector<std::string>> rows;
  for (const std::vector<std::string>& row :
       result.value_or(std::vector<std::vector<std::string>>())) {
    rows[std::stoll(row[0])] = {row[1], row[2], row[3], row[4]};
  }
  return rows;
}

TEST(QuickstartRowsTest, EveryRowAndMessageIsTheOneTheRulesPredict) {
  ASSERT_TRUE(
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kPubSub)
          .ok());
  ASSERT_TRUE(
      gcpstream::testing::TestEmulatorHost(emulators::EmulatorKind::kSpanner)
          .ok());
  auto pubsub = auth::MakeChannel(auth::Service::kPubSub);
  auto spanner = auth::MakeChannel(auth::Service::kSpanner);
  ASSERT_TRUE(pubsub.ok() && spanner.ok());
  for (const char* region : {"eu", "us", "asia"}) {
    const std::string topic = absl::StrCat("orders-", region);
    ASSERT_TRUE(
        emulators::EnsurePubSubTopic(*pubsub, "quickstart", topic).ok());
    ASSERT_TRUE(emulators::EnsurePubSubSubscription(
                    *pubsub, "quickstart", topic + "-check", topic, true)
                    .ok());
  }
  ASSERT_TRUE(emulators::EnsureSpannerDatabase(
                  *spanner, "quickstart", "local", "shop",
                  {"CREATE TABLE Orders (OrderId INT64 NOT NULL, Region "
                   "STRING(16) NOT NULL, CustomerId STRING(64) NOT NULL, "
                   "Amount NUMERIC NOT NULL, PlacedAt TIMESTAMP NOT NULL, "
                   "CONSTRAINT AmountNotNegative CHECK (Amount >= 0)) "
                   "PRIMARY KEY (OrderId)"})
                  .ok());
  const std::string root =
      ::testing::TempDir() + "/quickstart-rows-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  std::ifstream example(GCPSTREAM_QUICKSTART);
  const std::string yaml((std::istreambuf_iterator<char>(example)),
                         std::istreambuf_iterator<char>());
  std::ofstream(root + "/quickstart.yaml")
      << absl::StrReplaceAll(yaml, {{"/tmp/gcpstream-quickstart", root}});
  // Without --local: the emulators this test started, through the
  // *_EMULATOR_HOST variables the child inherits.
  const auto outcome = Gcpstream("run " + root + "/quickstart.yaml");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;

  const Expected expected = Predict();
  const auto rows = ReadRows(*spanner);
  EXPECT_EQ(rows.size(), expected.rows.size());
  for (const auto& [id, row] : expected.rows) {
    auto it = rows.find(id);
    ASSERT_NE(it, rows.end()) << "order " << id << " is missing";
    if (expected.duplicated.contains(id)) {
      // With two subtasks, either insert of a repeated id may come first.
      EXPECT_THAT(it->second,
                  ::testing::AnyOf(::testing::Eq(row),
                                   ::testing::Eq(expected.duplicated.at(id))))
          << "order " << id;
    } else {
      EXPECT_EQ(it->second, row) << "order " << id;
    }
  }
  for (const auto& [region, ids] : expected.by_region) {
    const auto messages = pubsub::testing::PullMessages(
        *pubsub, "quickstart", absl::StrCat("orders-", region, "-check"),
        ids.size() + 1, 10);
    std::set<int64_t> got;
    for (const auto& message : messages) {
      const nlohmann::json order = nlohmann::json::parse(message.data());
      got.insert(order.at("order_id").get<int64_t>());
      EXPECT_EQ(order.at("region"), region);
      EXPECT_EQ(message.attributes().at("region"), region);
      EXPECT_EQ(message.ordering_key(),
                order.at("customer_id").get<std::string>());
    }
    EXPECT_EQ(messages.size(), ids.size()) << region;
    EXPECT_EQ(got, ids) << region;
  }
  int dead = 0;
  for (const auto& entry : fs::directory_iterator(root + "/dead-letters")) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) ++dead;
  }
  EXPECT_EQ(dead, expected.dead_letters);
  fs::remove_all(root);
}

}  // namespace
}  // namespace gcpstream::cli
