// gs:// files for Iceberg through the Cloud Storage emulator the harness
// starts: sizes, ranged reads (what a Parquet footer costs), writes, the
// errors readers rely on, and routing by scheme.

#include "gcpstream/iceberg/io/gcs_file_io.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/rest/rest_client.h"
#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::testing::HasSubstr;

constexpr char kBucket[] = "lake";

class GcsFileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Exports STORAGE_EMULATOR_HOST, which SchemeFileIO follows.
    auto host = ::gcpstream::testing::TestEmulatorHost(
        emulators::EmulatorKind::kStorage);
    ASSERT_TRUE(host.ok()) << host.status();
    rest::RestClientOptions options;
    options.endpoint = absl::StrCat("http://", *host);
    auto created = rest::RestClient(options).Send(
        {.method = "POST",
         .path = "/storage/v1/b?project=p",
         .headers = {"Content-Type: application/json"},
         .body = nlohmann::json{{"name", kBucket}}.dump(),
         .idempotent = false});
    ASSERT_TRUE(created.ok() ||
                created.status().code() == absl::StatusCode::kAborted)
        << created.status();
  }

  SchemeFileIO io_;
};

TEST_F(GcsFileIOTest, WritesSizesAndRangedReads) {
  const std::string uri = "gs://lake/warehouse/t/data/f.parquet";
  const std::string bytes = "PAR1....footer....PAR1";
  ASSERT_TRUE(io_.Write(uri, bytes).ok());
  absl::StatusOr<int64_t> size = io_.Size(uri);
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ(*size, static_cast<int64_t>(bytes.size()));
  absl::StatusOr<std::string> tail = io_.Read(uri, *size - 4, 4);
  ASSERT_TRUE(tail.ok()) << tail.status();
  EXPECT_EQ(*tail, "PAR1");
  absl::StatusOr<std::string> all = ReadAll(io_, uri);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(*all, bytes);
}

TEST_F(GcsFileIOTest, ErrorsAreTheOnesReadersExpect) {
  EXPECT_EQ(io_.Size("gs://lake/missing.parquet").status().code(),
            absl::StatusCode::kNotFound);
  const std::string uri = "gs://lake/short.bin";
  ASSERT_TRUE(io_.Write(uri, "0123456789").ok());
  EXPECT_EQ(io_.Read(uri, 5, 10).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_THAT(io_.Size("gs://lake").status().message(),
              HasSubstr("names no object"));
}

TEST_F(GcsFileIOTest, LocalPathsStayLocal) {
  const std::string path = ::testing::TempDir() + "/gcs-file-io-local.txt";
  ASSERT_TRUE(io_.Write(path, "local").ok());
  EXPECT_TRUE(std::filesystem::exists(path));
  absl::StatusOr<std::string> read =
      ReadAll(io_, absl::StrCat("file://", path));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "local");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gcpstream::iceberg
