// Crashed add-files runs (iceberg_add_files_crash_test_support.h) on local
// files and a local warehouse.

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gcpstream/cli/iceberg_add_files_crash_test_support.h"
#include "gtest/gtest.h"

namespace gcpstream::cli {
namespace {

const std::string kCrashDir =
    GCPSTREAM_TEST_OUTPUT_ROOT "/iceberg_add_files_crash_test_output";
constexpr int kCrashFiles = 60;

class LocalLocation final : public testing::CrashLocation {
 public:
  std::string FreshWarehouse(const std::string& name) override {
    const std::string warehouse = absl::StrCat(kCrashDir, "/", name);
    std::filesystem::remove_all(warehouse);
    return warehouse;
  }
  bool Exists(const std::string& path) override {
    return std::filesystem::exists(path);
  }
};

TEST(IcebergAddFilesCrashTest, KilledRunsLoseNothingAndRegisterNothingTwice) {
  ASSERT_EQ(std::system(absl::StrCat(GCPSTREAM_PYTHON, " ",
                                     GCPSTREAM_ICEBERG_TESTDATA,
                                     "/write_many_parquet_files.py ", kCrashDir,
                                     "/files ", kCrashFiles)
                            .c_str()),
            0);
  LocalLocation location;
  testing::RunAddFilesCrashes(location,
                              {.listing = kCrashDir + "/files/listing.txt",
                               .files = kCrashFiles,
                               .crashes = 16,
                               .targeted_crashes = 4,
                               .log_dir = kCrashDir});
}

}  // namespace
}  // namespace gcpstream::cli
