// examples/cloud-tasks-webhooks.yaml end to end on the Cloud Tasks emulator
// that `gcpstream run --local` starts: each paused queue holds the tasks of
// the customers hashed to it; orders without a region are dead-lettered.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gcpstream/cli/cli_test_util.h"
#include "gcpstream/config/destination_template.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

namespace fs = std::filesystem;
using ::gcpstream::cli::testing::Gcpstream;
using ::testing::HasSubstr;

constexpr int kTasksOrders = 3000;

TEST(CloudTasksExampleTest, EveryQueueHoldsTheTasksOfItsCustomers) {
  // The sample-orders rules (docs/pipeline-yaml.md): order i has customer
  // "customer-<i % 97>" and no region when i % 101 == 100.
  int no_region = 0;
  std::map<uint64_t, int> by_queue;
  for (int i = 0; i < kTasksOrders; ++i) {
    if (i % 101 == 100) {
      ++no_region;
      continue;
    }
    ++by_queue[config::StableHash(absl::StrCat("customer-", i % 97)) % 4];
  }

  const std::string root =
      ::testing::TempDir() + "/cloud-tasks-example-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  std::ifstream example(GCPSTREAM_CLOUD_TASKS_EXAMPLE);
  const std::string yaml((std::istreambuf_iterator<char>(example)),
                         std::istreambuf_iterator<char>());
  ASSERT_THAT(yaml, HasSubstr("/tmp/gcpstream-cloud-tasks-example"));
  std::ofstream(root + "/example.yaml") << absl::StrReplaceAll(
      yaml, {{"/tmp/gcpstream-cloud-tasks-example", root}});

  const auto outcome = Gcpstream("run --local " + root + "/example.yaml");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(
      outcome.output,
      HasSubstr(absl::StrCat("sink order-webhooks: ", kTasksOrders, " in, ",
                             kTasksOrders - no_region, " written, 0 skipped, ",
                             no_region, " dead-lettered, 0 dropped")));
  for (const auto& [queue, tasks] : by_queue) {
    EXPECT_THAT(outcome.output,
                HasSubstr(absl::StrCat("cloud tasks queue webhooks-", queue,
                                       ": ", tasks, " tasks held (paused)")));
  }
  int dead = 0;
  for (const auto& entry : fs::directory_iterator(root + "/dead-letters")) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) ++dead;
  }
  EXPECT_EQ(dead, no_region);
  fs::remove_all(root);
}

}  // namespace
}  // namespace gcpstream::cli
