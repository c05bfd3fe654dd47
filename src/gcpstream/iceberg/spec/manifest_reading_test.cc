#include "gcpstream/iceberg/spec/manifest_reading.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/avro/avro_reader.h"
#include "gcpstream/iceberg/catalog/data_commit.h"
#include "gcpstream/iceberg/io/file_io.h"
#include "gcpstream/iceberg/io/test_util.h"
#include "gcpstream/iceberg/spec/manifest.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::gcpstream::iceberg::testing::CommandOutput;
using ::testing::HasSubstr;
using Json = nlohmann::json;

const std::string kDir =
    GCPSTREAM_TEST_OUTPUT_ROOT "/manifest_reading_test_output";

void WriteText(const std::string& path, const std::string& bytes) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(ManifestReadingTest, ReadsBackWhatOurWritersWrite) {
  Schema schema{0, {Field{1, "id", true, Primitive(TypeKind::kLong), ""}}};
  ManifestEntry entry;
  entry.data_file.file_path = "/data/a.parquet";
  entry.data_file.record_count = 3;
  entry.data_file.file_size_in_bytes = 1234;
  entry.data_file.column_sizes = {{1, 40}};
  entry.data_file.value_counts = {{1, 3}};
  entry.data_file.null_value_counts = {{1, 0}};
  entry.data_file.lower_bounds = {{1, std::string("\x01\0\0\0\0\0\0\0", 8)}};
  entry.data_file.upper_bounds = {{1, std::string("\xff\0\0\0\0\0\0\0", 8)}};
  absl::StatusOr<std::string> manifest =
      WriteManifest(schema, PartitionSpec(), {entry});
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  WriteText(kDir + "/ours/m0.avro", *manifest);
  ManifestFile listed;
  listed.manifest_path = kDir + "/ours/m0.avro";
  listed.manifest_length = static_cast<int64_t>(manifest->size());
  listed.sequence_number = 5;
  listed.min_sequence_number = 5;
  listed.added_snapshot_id = 77;
  listed.added_files_count = 1;
  listed.added_rows_count = 3;
  WriteText(kDir + "/ours/list.avro", WriteManifestList(77, 70, 5, {listed}));

  LocalFileIO io;
  absl::StatusOr<std::vector<ManifestFile>> list =
      ReadManifestList(io, kDir + "/ours/list.avro");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].manifest_path, listed.manifest_path);
  EXPECT_EQ((*list)[0].sequence_number, 5);
  EXPECT_EQ((*list)[0].added_snapshot_id, 77);
  EXPECT_EQ((*list)[0].added_rows_count, 3);

  absl::StatusOr<std::vector<ManifestEntry>> entries =
      ReadManifest(io, (*list)[0]);
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 1u);
  const ManifestEntry& read = (*entries)[0];
  EXPECT_EQ(read.status, EntryStatus::kAdded);
  // Left unset by the writer, inherited from the list.
  EXPECT_EQ(read.snapshot_id, 77);
  EXPECT_EQ(read.sequence_number, 5);
  EXPECT_EQ(read.file_sequence_number, 5);
  EXPECT_EQ(read.data_file.file_path, "/data/a.parquet");
  EXPECT_EQ(read.data_file.file_size_in_bytes, 1234);
  EXPECT_EQ(read.data_file.column_sizes, entry.data_file.column_sizes);
  EXPECT_EQ(read.data_file.value_counts, entry.data_file.value_counts);
  EXPECT_EQ(read.data_file.null_value_counts,
            entry.data_file.null_value_counts);
  EXPECT_EQ(read.data_file.lower_bounds, entry.data_file.lower_bounds);
  EXPECT_EQ(read.data_file.upper_bounds, entry.data_file.upper_bounds);
}

// Files pyiceberg wrote (deflate codec, its own metadata): the live data
// files are the ones pyiceberg plans to scan.
TEST(ManifestReadingTest, ReadsManifestsAnotherWriterWrote) {
  const std::string out = CommandOutput(
      absl::StrCat(GCPSTREAM_PYTHON, " ", GCPSTREAM_TESTDATA,
                   "/write_pyiceberg_table.py ", kDir, "/pyiceberg"));
  const Json expected = Json::parse(out, nullptr, false);
  ASSERT_FALSE(expected.is_discarded()) << out;
  LocalFileIO io;
  absl::StatusOr<std::vector<ManifestFile>> list =
      ReadManifestList(io, expected["manifest_list"].get<std::string>());
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->size(), 2u);  // One manifest per append.
  std::vector<std::pair<std::string, int64_t>> files;
  for (const ManifestFile& manifest : *list) {
    absl::StatusOr<std::vector<ManifestEntry>> entries =
        ReadManifest(io, manifest);
    ASSERT_TRUE(entries.ok()) << entries.status();
    for (const ManifestEntry& entry : *entries) {
      files.emplace_back(entry.data_file.file_path,
                         entry.data_file.record_count);
      EXPECT_EQ(entry.data_file.value_counts.at(1),
                entry.data_file.record_count);
    }
  }
  std::vector<std::pair<std::string, int64_t>> wanted;
  for (const Json& file : expected["files"]) {
    wanted.emplace_back(file["path"].get<std::string>(),
                        file["record_count"].get<int64_t>());
  }
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, wanted);
}

TEST(ManifestReadingTest, CorruptFilesAreDataLossAndMissingOnesNotFound) {
  Schema schema{0, {Field{1, "id", true, Primitive(TypeKind::kLong), ""}}};
  ManifestFile listed;
  listed.manifest_path = kDir + "/corrupt/m0.avro";
  const std::string list = WriteManifestList(1, std::nullopt, 1, {listed});
  LocalFileIO io;
  for (size_t cut :
       {size_t{3}, size_t{40}, list.size() - 20, list.size() - 1}) {
    WriteText(kDir + "/corrupt/list.avro", list.substr(0, cut));
    absl::StatusOr<std::vector<ManifestFile>> read =
        ReadManifestList(io, kDir + "/corrupt/list.avro");
    EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss) << cut;
    EXPECT_THAT(read.status().message(), HasSubstr("list.avro")) << cut;
  }
  WriteText(kDir + "/corrupt/text.avro", "not avro at all");
  EXPECT_EQ(ReadManifestList(io, kDir + "/corrupt/text.avro").status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(
      ReadManifestList(io, kDir + "/corrupt/missing.avro").status().code(),
      absl::StatusCode::kNotFound);
  // A manifest list is not a manifest: its records lack the entry fields.
  WriteText(kDir + "/corrupt/list.avro", list);
  listed.manifest_path = kDir + "/corrupt/list.avro";
  absl::StatusOr<std::vector<ManifestEntry>> entries = ReadManifest(io, listed);
  EXPECT_EQ(entries.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(entries.status().message(), HasSubstr("status"));
}

TEST(ManifestReadingTest, LiveDataFilesSpellLocalUrisAsPaths) {
  EXPECT_EQ(ComparablePath("file:///tmp/a.parquet"), "/tmp/a.parquet");
  EXPECT_EQ(ComparablePath("file:/tmp/a.parquet"), "/tmp/a.parquet");
  EXPECT_EQ(ComparablePath("/tmp/a.parquet"), "/tmp/a.parquet");
  EXPECT_EQ(ComparablePath("gs://b/a.parquet"), "gs://b/a.parquet");
}

}  // namespace
}  // namespace gcpstream::iceberg
