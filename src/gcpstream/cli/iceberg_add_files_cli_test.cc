// `gcpstream iceberg add-files` end to end: exit codes, the JSON it prints,
// and the errors it gives for a wrong command line.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/cli/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

using ::gcpstream::cli::testing::Gcpstream;
using ::gcpstream::cli::testing::Outcome;
using ::testing::HasSubstr;
using Json = nlohmann::json;

const std::string kDir =
    GCPSTREAM_TEST_OUTPUT_ROOT "/iceberg_add_files_cli_test_output";
const std::string kFixtures = kDir + "/fixtures";

class IcebergAddFilesCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(std::system(absl::StrCat(
                              GCPSTREAM_PYTHON, " ", GCPSTREAM_ICEBERG_TESTDATA,
                              "/write_add_files_fixtures.py ", kFixtures)
                              .c_str()),
              0);
  }

  void SetUp() override {
    warehouse_ = absl::StrCat(
        kDir, "/warehouse-",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(warehouse_);
  }

  Outcome AddFiles(const std::string& arguments) {
    return Gcpstream(absl::StrCat("iceberg add-files --catalog ", warehouse_,
                                  " --table db.orders ", arguments));
  }

  static std::string Fixture(const std::string& name) {
    return absl::StrCat(kFixtures, "/", name);
  }

  std::string warehouse_;
};

TEST_F(IcebergAddFilesCliTest, AddsFilesAndPrintsTheSnapshot) {
  const Outcome added = AddFiles(Fixture("orders_a.parquet"));
  ASSERT_EQ(added.exit_code, 0) << added.output;
  const Json result = Json::parse(added.output, nullptr, false);
  ASSERT_FALSE(result.is_discarded()) << added.output;
  EXPECT_EQ(result["snapshot"]["summary"]["added-data-files"], "1");
  EXPECT_EQ(result["counters"]["data_files_added"], 1);
  EXPECT_TRUE(result["errors"].empty());
  EXPECT_TRUE(
      std::filesystem::exists(result["metadata_file"].get<std::string>()));
}

TEST_F(IcebergAddFilesCliTest, ErrorRowsFromAListingExitWithThree) {
  ASSERT_EQ(AddFiles(Fixture("orders_a.parquet")).exit_code, 0);
  const std::string listing = warehouse_ + "-paths.txt";
  std::ofstream(listing) << "# files of the day\n"
                         << Fixture("orders_b.parquet") << "\n\n"
                         << Fixture("notes.txt") << "\n";
  const Outcome added =
      AddFiles(absl::StrCat("--paths-from ", listing,
                            " --schema-evolution-options allow-field-addition"
                            " --incompatible-schema-handling route-to-errors"));
  ASSERT_EQ(added.exit_code, 3) << added.output;
  const Json result = Json::parse(added.output, nullptr, false);
  ASSERT_FALSE(result.is_discarded()) << added.output;
  ASSERT_EQ(result["errors"].size(), 1u);
  EXPECT_THAT(result["errors"][0]["file"].get<std::string>(),
              HasSubstr("notes.txt"));
  EXPECT_EQ(result["counters"]["data_files_added"], 1);
  EXPECT_EQ(result["counters"]["schema_commits"], 1);
}

TEST_F(IcebergAddFilesCliTest, DryRunPrintsTheReport) {
  const Outcome dry = AddFiles(
      absl::StrCat("--dry-run --schema-evolution-options allow-field-addition ",
                   Fixture("orders_a.parquet")));
  ASSERT_EQ(dry.exit_code, 0) << dry.output;
  const Json result = Json::parse(dry.output, nullptr, false);
  ASSERT_FALSE(result.is_discarded()) << dry.output;
  EXPECT_EQ(result["dry_run_report"]["would_create_table"], true);
  EXPECT_TRUE(result["snapshot"].is_null());
  EXPECT_FALSE(std::filesystem::exists(warehouse_ + "/db/orders"));
}

TEST_F(IcebergAddFilesCliTest, WrongCommandLinesExitWithTwo) {
  const std::string file = Fixture("orders_a.parquet");
  const Outcome unknown = AddFiles(
      absl::StrCat("--schema-evolution-options allow-everything ", file));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.output, HasSubstr("allow-field-addition"));

  const Outcome dry = AddFiles(absl::StrCat("--dry-run ", file));
  EXPECT_EQ(dry.exit_code, 2);
  EXPECT_THAT(dry.output, HasSubstr("dry-run applies only with schema"));

  const Outcome no_files = AddFiles("");
  EXPECT_EQ(no_files.exit_code, 2);
  EXPECT_THAT(no_files.output, HasSubstr("no files to add"));

  const Outcome table = Gcpstream(absl::StrCat(
      "iceberg add-files --catalog ", warehouse_, " --table orders ", file));
  EXPECT_EQ(table.exit_code, 2);
  EXPECT_THAT(table.output, HasSubstr("needs a namespace"));

  const Outcome token = AddFiles(
      absl::StrCat("--token-env GCPSTREAM_UNSET_TOKEN_VARIABLE ", file));
  EXPECT_EQ(token.exit_code, 2);
  EXPECT_THAT(token.output, HasSubstr("REST catalogs only"));

  // Nothing listens on port 1: the catalog cannot be reached.
  const Outcome rest = Gcpstream(absl::StrCat(
      "iceberg add-files --catalog http://127.0.0.1:1 --table db.orders ",
      file));
  EXPECT_EQ(rest.exit_code, 1);
  EXPECT_THAT(rest.output, HasSubstr("catalog http://127.0.0.1:1"));
  EXPECT_FALSE(std::filesystem::exists(warehouse_));
}

}  // namespace
}  // namespace gcpstream::cli
