// `gcpstream run --local` end to end: it starts the emulators the pipeline
// needs, creates what its `local:` section declares, runs, prints per sink
// and per destination what happened, and stops the emulators; the numbers
// add up (in = written + skipped + dead-lettered per sink).

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gcpstream/cli/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

namespace fs = std::filesystem;
using ::gcpstream::cli::testing::Gcpstream;
using ::testing::HasSubstr;

TEST(CliLocalTest, RunsOnEmulatorsItStartsAndReportsWhatLanded) {
  const std::string root =
      ::testing::TempDir() + "/cli-local-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root + "/in");
  {
    std::ofstream in(root + "/in/orders.jsonl");
    for (int i = 1; i <= 30; ++i) {
      nlohmann::json order = {
          {"id", i}, {"amount", i == 9 ? "-1" : std::to_string(i) + ".25"}};
      if (i != 7) order["region"] = i % 2 == 0 ? "eu" : "us";
      in << order.dump() << "\n";
    }
  }
  const std::string path = root + "/local.yaml";
  std::ofstream(path)
      << "name: local-demo\n"
      << "source: {type: json-lines, directory: " << root << "/in}\n"
      << "sinks:\n"
      << "  - name: by-region\n"
      << "    type: pubsub\n"
      << "    project: demo\n"
      << "    topic: \"orders-{region}\"\n"
      << "    failure-handler: {type: dead-letter-queue, queue: {type: file, "
      << "directory: " << root << "/dead}}\n"
      << "  - name: orders-table\n"
      << "    type: spanner\n"
      << "    database: projects/demo/instances/local/databases/shop\n"
      << "    table: Orders\n"
      << "    columns: {OrderId: id, Amount: amount}\n"
      << "    constraint-violation-policy: route-to-failure-handler\n"
      << "    failure-handler: {type: dead-letter-queue, queue: {type: file, "
      << "directory: " << root << "/dead}}\n"
      << "local:\n"
      << "  project: demo\n"
      << "  topics: [orders-eu, orders-us]\n"
      << "  subscriptions:\n"
      << "    - {name: orders-eu-all, topic: orders-eu}\n"
      << "    - {name: orders-us-all, topic: orders-us}\n"
      << "  spanner-databases:\n"
      << "    - instance: local\n"
      << "      database: shop\n"
      << "      ddl: [\"CREATE TABLE Orders (OrderId INT64 NOT NULL, Amount "
      << "NUMERIC, CONSTRAINT AmountPositive CHECK (Amount >= 0)) PRIMARY "
      << "KEY (OrderId)\"]\n";
  const auto outcome = Gcpstream("run --local " + path);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  // Record 7 has no region (no topic), record 9 breaks the CHECK.
  EXPECT_THAT(outcome.output,
              HasSubstr("sink by-region: 30 in, 29 written, 0 skipped, 1 "
                        "dead-lettered, 0 dropped"));
  EXPECT_THAT(outcome.output,
              HasSubstr("sink orders-table: 30 in, 29 written, 0 skipped, 1 "
                        "dead-lettered, 0 dropped"));
  EXPECT_THAT(outcome.output, HasSubstr("topic orders-eu: 15 messages"));
  EXPECT_THAT(outcome.output, HasSubstr("topic orders-us: 14 messages"));
  EXPECT_THAT(outcome.output, HasSubstr("table shop.Orders: 29 rows"));
  int dead = 0;
  for (const auto& entry : fs::directory_iterator(root + "/dead")) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) ++dead;
  }
  EXPECT_EQ(dead, 2);
  fs::remove_all(root);
}

}  // namespace
}  // namespace gcpstream::cli
