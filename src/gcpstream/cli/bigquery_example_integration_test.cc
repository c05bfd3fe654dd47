// examples/bigquery-hourly-orders.yaml end to end on the BigQuery emulator
// that `gcpstream run --local` starts: one table per hour of event time,
// created by the sink from the file's schema, each holding the rows the
// sample-orders rules predict; orders without a region do not fit the
// REQUIRED column and are dead-lettered with the column named. The same file
// with write-method storage-api-exactly-once lands the same rows through
// PENDING streams and the sink's committer, and
// examples/bigquery-file-loads.yaml through staged files and load jobs,
// leaving its staging bucket empty.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
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

constexpr int kBigQueryOrders = 10000;

class BigQueryExampleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BigQueryExampleTest, EveryHourlyTableHoldsWhatTheRulesPredict) {
  const std::string& write_method = GetParam();
  // Order i is placed at 2026-12-01T00:00:00Z + i s. Both methods append
  // every record they are given: a repeated id is a row of its own.
  int no_region = 0;
  std::map<int, int> rows_by_hour;
  for (int i = 0; i < kBigQueryOrders; ++i) {
    if (i % 101 == 100) {
      ++no_region;
      continue;
    }
    ++rows_by_hour[i / 3600];
  }

  const std::string root = ::testing::TempDir() + "/bigquery-example-" +
                           write_method + "-" + std::to_string(getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const bool file_loads = write_method == "file-loads";
  std::ifstream example(file_loads ? GCPSTREAM_BIGQUERY_FILE_LOADS_EXAMPLE
                                   : GCPSTREAM_BIGQUERY_EXAMPLE);
  const std::string yaml((std::istreambuf_iterator<char>(example)),
                         std::istreambuf_iterator<char>());
  ASSERT_THAT(yaml, HasSubstr("/tmp/gcpstream-bigquery-example"));
  if (!file_loads) {
    ASSERT_THAT(yaml, HasSubstr("write-method: storage-api-at-least-once"));
  }
  std::ofstream(root + "/example.yaml") << absl::StrReplaceAll(
      yaml, {{"/tmp/gcpstream-bigquery-example", root},
             {"write-method: storage-api-at-least-once",
              absl::StrCat("write-method: ", write_method)}});

  const auto outcome = Gcpstream("run --local " + root + "/example.yaml");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr(absl::StrCat("sink orders-by-hour: ", kBigQueryOrders,
                                     " in, ", kBigQueryOrders - no_region,
                                     " written, 0 skipped, ", no_region,
                                     " dead-lettered, 0 dropped")));
  for (const auto& [hour, rows] : rows_by_hour) {
    EXPECT_THAT(
        outcome.output,
        HasSubstr(absl::StrFormat(
            "bigquery table shop.orders_20261201%02d: %d rows", hour, rows)));
  }
  if (file_loads) {
    EXPECT_THAT(
        outcome.output,
        HasSubstr("storage bucket bigquery-example-staging: 0 objects"));
  }
  int dead = 0;
  for (const auto& entry : fs::directory_iterator(root + "/dead-letters")) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      ++dead;
      EXPECT_THAT(line, HasSubstr("column 'region' (STRING): the column is "
                                  "REQUIRED"));
      // The record itself is the payload.
      std::string payload;
      ASSERT_TRUE(absl::Base64Unescape(
          nlohmann::json::parse(line)["payload_base64"].get<std::string>(),
          &payload));
      EXPECT_TRUE(nlohmann::json::parse(payload).contains("order_id"))
          << payload;
    }
  }
  EXPECT_EQ(dead, no_region);
  fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(WriteMethods, BigQueryExampleTest,
                         ::testing::Values("storage-api-at-least-once",
                                           "storage-api-exactly-once",
                                           "file-loads"));

}  // namespace
}  // namespace gcpstream::cli
