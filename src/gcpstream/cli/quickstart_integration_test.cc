// The quickstart (examples/quickstart.yaml) end to end on emulators that
// `gcpstream run --local` starts: every destination's count, read back
// through the emulators' APIs by the command, equals what the sample-orders
// rules predict, and generated = written + skipped + dead-lettered per sink.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gcpstream/cli/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

namespace fs = std::filesystem;
using ::gcpstream::cli::testing::Gcpstream;
using ::testing::HasSubstr;

constexpr int kOrders = 3000;

TEST(QuickstartTest, EveryDestinationHoldsWhatTheRulesPredict) {
  // What the sample-orders rules (docs/pipeline-yaml.md) make of 3000
  // orders, computed here independently of the generator.
  int no_region = 0;
  int negative = 0;
  int duplicate = 0;
  std::map<std::string, int> by_region;
  for (int i = 0; i < kOrders; ++i) {
    if (i % 101 == 100) {
      ++no_region;
      continue;
    }
    ++by_region[i % 3 == 0 ? "eu" : i % 3 == 1 ? "us" : "asia"];
    if (i % 250 == 249) ++negative;
    if (i % 400 == 398) ++duplicate;
  }
  const int rows = kOrders - no_region - negative - duplicate;

  const std::string root =
      ::testing::TempDir() + "/quickstart-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  std::ifstream example(GCPSTREAM_QUICKSTART);
  const std::string yaml((std::istreambuf_iterator<char>(example)),
                         std::istreambuf_iterator<char>());
  ASSERT_THAT(yaml, HasSubstr("/tmp/gcpstream-quickstart"));
  std::ofstream(root + "/quickstart.yaml")
      << absl::StrReplaceAll(yaml, {{"/tmp/gcpstream-quickstart", root}});

  const auto outcome = Gcpstream("run --local " + root + "/quickstart.yaml");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr(absl::StrCat("sink orders-by-region: ", kOrders,
                                     " in, ", kOrders - no_region,
                                     " written, 0 skipped, ", no_region,
                                     " dead-lettered, 0 dropped; "
                                     "dead letters go to directory ",
                                     root, "/dead-letters\n")));
  EXPECT_THAT(outcome.output, HasSubstr(absl::StrCat(
                                  "sink orders-table: ", kOrders, " in, ", rows,
                                  " written, 0 skipped, ", kOrders - rows,
                                  " dead-lettered, 0 dropped; dead letters go "
                                  "to directory ",
                                  root, "/dead-letters\n")));
  EXPECT_THAT(outcome.output,
              HasSubstr(absl::StrCat("source orders: ", kOrders, " read\n")));
  for (const auto& [region, count] : by_region) {
    EXPECT_THAT(outcome.output,
                HasSubstr(absl::StrCat("topic orders-", region, ": ", count,
                                       " messages")));
  }
  EXPECT_THAT(outcome.output,
              HasSubstr(absl::StrCat("table shop.Orders: ", rows, " rows")));
  int dead = 0;
  for (const auto& entry : fs::directory_iterator(root + "/dead-letters")) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) ++dead;
  }
  EXPECT_EQ(dead, no_region + (kOrders - rows));
  fs::remove_all(root);
}

}  // namespace
}  // namespace gcpstream::cli
