#include "gcpstream/iceberg/avro/avro_container.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/avro/avro_encoder.h"
#include "gcpstream/iceberg/io/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::gcpstream::iceberg::testing::CommandOutput;

// Field ids on every field, as Iceberg's manifest schemas carry them.
constexpr char kSchema[] = R"json({
  "type": "record", "name": "entry", "fields": [
    {"name": "status", "type": "int", "field-id": 0},
    {"name": "snapshot_id", "type": ["null", "long"], "field-id": 1},
    {"name": "path", "type": "string", "field-id": 100},
    {"name": "counts", "field-id": 109, "type": {"type": "array",
      "items": {"type": "record", "name": "k109_v110", "fields": [
        {"name": "key", "type": "int", "field-id": 119},
        {"name": "value", "type": "long", "field-id": 120}]}}},
    {"name": "bound", "type": ["null", "bytes"], "field-id": 125},
    {"name": "ok", "type": "boolean", "field-id": 200},
    {"name": "ratio", "type": "double", "field-id": 201},
    {"name": "small", "type": "float", "field-id": 202},
    {"name": "tag", "type": {"type": "fixed", "name": "f2", "size": 2},
     "field-id": 203}
  ]})json";

std::string Entry(int i) {
  AvroEncoder e;
  e.Int(i % 3);
  if (i % 2 == 0) {
    e.UnionBranch(0);
  } else {
    e.UnionBranch(1);
    e.Long(std::numeric_limits<int64_t>::min() + i);
  }
  e.String(absl::StrCat("s3://bucket/data/file-", i, ".parquet"));
  if (i > 0) {
    e.BlockCount(i);
    for (int k = 0; k < i; ++k) {
      e.Int(k + 1);
      e.Long(-1000L * k);
    }
  }
  e.EndBlocks();
  e.UnionBranch(1);
  e.Bytes(std::string("\0\xff", 2));
  e.Boolean(i % 2 == 1);
  e.Double(i * 0.5);
  e.Float(-1.25F);
  e.Fixed("ab");
  return e.Take();
}

// A container of 3000 datums (several blocks) read back by two readers
// that share no code with the writer: fastavro, and avro-c's avrocat.
TEST(AvroContainerTest, IndependentReadersReadTheMetadataAndEveryDatum) {
  AvroContainerWriter writer(kSchema,
                             {{"format-version", "2"}, {"content", "data"}},
                             AvroContainerWriter::RandomSyncMarker());
  constexpr int kDatums = 3000;
  for (int i = 0; i < kDatums; ++i) writer.Add(Entry(i));
  EXPECT_EQ(writer.datums(), kDatums);
  const std::string path =
      absl::StrCat(GCPSTREAM_TEST_OUTPUT_ROOT "/avro_container_test_output",
                   "/container.avro");
  std::ofstream(path, std::ios::binary) << writer.Finish();

  const nlohmann::json read = nlohmann::json::parse(CommandOutput(absl::StrCat(
      GCPSTREAM_PYTHON, " ", GCPSTREAM_TESTDATA "/read_avro.py", " ", path)));
  EXPECT_EQ(read["metadata"],
            nlohmann::json::parse(R"json({"avro.codec": "null",
                "content": "data", "format-version": "2"})json"));
  ASSERT_EQ(read["records"].size(), static_cast<size_t>(kDatums));
  const nlohmann::json& third = read["records"][3];
  EXPECT_EQ(third["status"], 0);
  EXPECT_EQ(third["snapshot_id"], std::numeric_limits<int64_t>::min() + 3);
  EXPECT_EQ(third["path"], "s3://bucket/data/file-3.parquet");
  EXPECT_EQ(third["counts"], nlohmann::json::parse(
                                 R"json([{"key": 1, "value": 0},
                                         {"key": 2, "value": -1000},
                                         {"key": 3, "value": -2000}])json"));
  EXPECT_EQ(third["bound"], "00ff");
  EXPECT_EQ(third["ok"], true);
  EXPECT_EQ(third["ratio"], 1.5);
  EXPECT_EQ(third["small"], -1.25);
  EXPECT_EQ(third["tag"], "6162");
  EXPECT_TRUE(read["records"][0]["snapshot_id"].is_null());
  EXPECT_EQ(read["records"][kDatums - 1]["counts"].size(),
            static_cast<size_t>(kDatums - 1));

  // avrocat prints one JSON datum per line.
  const std::string catted = CommandOutput(absl::StrCat("avrocat ", path));
  EXPECT_EQ(std::count(catted.begin(), catted.end(), '\n'), kDatums);
  EXPECT_THAT(catted,
              ::testing::HasSubstr("s3://bucket/data/file-2999.parquet"));
}

TEST(AvroEncoderTest, LongsAreZigZagVarints) {
  auto encoded = [](int64_t value) {
    AvroEncoder e;
    e.Long(value);
    return e.Take();
  };
  EXPECT_EQ(encoded(0), std::string("\x00", 1));
  EXPECT_EQ(encoded(-1), "\x01");
  EXPECT_EQ(encoded(1), "\x02");
  EXPECT_EQ(encoded(-64), "\x7f");
  EXPECT_EQ(encoded(64), "\x80\x01");
  EXPECT_EQ(encoded(std::numeric_limits<int64_t>::max()),
            "\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01");
  EXPECT_EQ(encoded(std::numeric_limits<int64_t>::min()),
            "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01");
}

}  // namespace
}  // namespace gcpstream::iceberg
