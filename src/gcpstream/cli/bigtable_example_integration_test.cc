// examples/bigtable-hourly-orders.yaml end to end on the Bigtable emulator
// that `gcpstream run --local` starts: one table per hour of event time,
// created by the sink, each holding the rows the sample-orders rules
// predict; orders without a region are dead-lettered.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "gcpstream/cli/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

namespace fs = std::filesystem;
using ::gcpstream::cli::testing::Gcpstream;
using ::testing::HasSubstr;

constexpr int kBigtableOrders = 10000;

TEST(BigtableExampleTest, EveryHourlyTableHoldsWhatTheRulesPredict) {
  // Order i is placed at 2026-12-01T00:00:00Z + i s; a repeated id writes
  // the previous order's row again (never across an hour: i % 400 == 398
  // is never a multiple of 3600).
  int no_region = 0;
  std::map<int, std::set<int>> rows_by_hour;
  for (int i = 0; i < kBigtableOrders; ++i) {
    if (i % 101 == 100) {
      ++no_region;
      continue;
    }
    const int id = i % 400 == 398 ? 100000 + i - 1 : 100000 + i;
    rows_by_hour[i / 3600].insert(id);
  }

  const std::string root =
      ::testing::TempDir() + "/bigtable-example-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  std::ifstream example(GCPSTREAM_BIGTABLE_EXAMPLE);
  const std::string yaml((std::istreambuf_iterator<char>(example)),
                         std::istreambuf_iterator<char>());
  ASSERT_THAT(yaml, HasSubstr("/tmp/gcpstream-bigtable-example"));
  std::ofstream(root + "/example.yaml")
      << absl::StrReplaceAll(yaml, {{"/tmp/gcpstream-bigtable-example", root}});

  const auto outcome = Gcpstream("run --local " + root + "/example.yaml");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr(absl::StrCat("sink orders-by-hour: ", kBigtableOrders,
                                     " in, ", kBigtableOrders - no_region,
                                     " written, 0 skipped, ", no_region,
                                     " dead-lettered, 0 dropped")));
  for (const auto& [hour, ids] : rows_by_hour) {
    EXPECT_THAT(outcome.output,
                HasSubstr(absl::StrFormat(
                    "bigtable table local/orders-20261201%02d: %d rows", hour,
                    ids.size())));
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
