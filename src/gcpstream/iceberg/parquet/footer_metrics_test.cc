#include "gcpstream/iceberg/parquet/footer_metrics.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/io/file_io.h"
#include "gcpstream/iceberg/parquet/parquet_footer.h"
#include "gcpstream/iceberg/parquet/parquet_schema.h"
#include "gcpstream/iceberg/spec/single_value.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Json = nlohmann::json;

const std::string kDir =
    GCPSTREAM_TEST_OUTPUT_ROOT "/footer_metrics_test_output";

class FooterMetricsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(
        std::system(absl::StrCat(GCPSTREAM_PYTHON, " ", GCPSTREAM_TESTDATA,
                                 "/write_metrics_fixtures.py ", kDir)
                        .c_str()),
        0);
  }

  // The footer of fixture `name`, with its leaves bound to a table created
  // from the file (ids 1..n for the top-level columns).
  void Load(const std::string& name) {
    ReadFooter(name);
    absl::StatusOr<Schema> schema = ConvertParquetSchema(footer_);
    ASSERT_TRUE(schema.ok()) << schema.status();
    BindTo(*std::move(schema));
  }

  void ReadFooter(const std::string& name) {
    LocalFileIO io;
    absl::StatusOr<ParquetFooter> footer =
        ReadParquetFooter(io, absl::StrCat(kDir, "/", name, ".parquet"));
    ASSERT_TRUE(footer.ok()) << footer.status();
    footer_ = *std::move(footer);
  }

  void BindTo(Schema schema) {
    schema_ = std::move(schema);
    leaves_.clear();
    Bind(schema_.fields, "", false);
  }

  void Bind(const std::vector<Field>& fields, const std::string& prefix,
            bool under_container) {
    for (const Field& field : fields) {
      const std::string name =
          prefix.empty() ? field.name : absl::StrCat(prefix, ".", field.name);
      if (!field.type.is_nested()) {
        leaves_.emplace_back(
            LeafBinding{field.id, field.type, name, under_container});
        continue;
      }
      Bind(field.type.fields, name,
           under_container || field.type.kind != TypeKind::kStruct);
    }
  }

  absl::StatusOr<FileMetrics> Metrics(
      const std::map<std::string, std::string>& properties = {}) {
    absl::StatusOr<MetricsConfig> config =
        MetricsConfigFor(properties, schema_);
    if (!config.ok()) return config.status();
    return MetricsFromFooter(footer_, leaves_, *config);
  }

  ParquetFooter footer_;
  Schema schema_;
  std::vector<std::optional<LeafBinding>> leaves_;
};

std::string Hex(const std::string& bytes) {
  return absl::BytesToHexString(bytes);
}

int64_t AsLong(const std::string& bytes) {
  int64_t value = 0;
  EXPECT_EQ(bytes.size(), 8u);
  std::memcpy(&value, bytes.data(), std::min<size_t>(bytes.size(), 8));
  return value;
}

// Every count and bound equals what pyiceberg's own footer statistics give
// for a file of every common type, nulls and two row groups.
TEST_F(FooterMetricsTest, MatchesPyicebergOnEveryCommonType) {
  Load("mixed");
  absl::StatusOr<FileMetrics> metrics = Metrics();
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  std::ifstream in(kDir + "/expected.json");
  std::stringstream text;
  text << in.rdbuf();
  const Json expected = Json::parse(text.str());
  EXPECT_EQ(metrics->record_count, 8);
  for (const auto& [name, id_json] : expected["ids"].items()) {
    const int32_t id = id_json.get<int32_t>();
    const std::string key = absl::StrCat(id);
    SCOPED_TRACE(name);
    EXPECT_EQ(metrics->value_counts.at(id), expected["value_counts"][key]);
    EXPECT_EQ(metrics->null_value_counts.at(id),
              expected["null_value_counts"][key]);
    EXPECT_EQ(Hex(metrics->lower_bounds.at(id)),
              expected["lower_bounds"][key].get<std::string>());
    EXPECT_EQ(Hex(metrics->upper_bounds.at(id)),
              expected["upper_bounds"][key].get<std::string>());
    EXPECT_GT(metrics->column_sizes.at(id), 0);
  }
}

TEST_F(FooterMetricsTest, TimeBoundsAreConvertedIntoTheColumnsUnit) {
  ReadFooter("units");
  // Add-files refuses the nanosecond column for its v2 tables; the metrics
  // still convert into a v3 table's timestamp_ns column, bound here by hand.
  EXPECT_EQ(ConvertParquetSchema(footer_).status().code(),
            absl::StatusCode::kInvalidArgument);
  Schema v3;
  const TypeKind kinds[] = {TypeKind::kTimestamp, TypeKind::kTimestampNs,
                            TypeKind::kTime, TypeKind::kTimestamp};
  const char* names[] = {"ts_ms", "ts_ns", "t_ms", "far"};
  for (int i = 0; i < 4; ++i) {
    v3.fields.push_back(Field{.id = i + 1,
                              .name = names[i],
                              .required = false,
                              .type = Primitive(kinds[i]),
                              .doc = ""});
  }
  BindTo(std::move(v3));
  absl::StatusOr<FileMetrics> metrics = Metrics();
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  // Millisecond timestamps under a microsecond column.
  EXPECT_EQ(AsLong(metrics->lower_bounds.at(1)), 1'700'000'000'123'000);
  EXPECT_EQ(AsLong(metrics->upper_bounds.at(1)), 1'700'000'000'999'000);
  // Nanosecond timestamps (Iceberg v3 timestamp_ns columns) stay nanos.
  EXPECT_EQ(AsLong(metrics->lower_bounds.at(2)), -1'500);
  EXPECT_EQ(AsLong(metrics->upper_bounds.at(2)), 1'700'000'000'123'456'789);
  // Millisecond times under a microsecond time column.
  EXPECT_EQ(AsLong(metrics->lower_bounds.at(3)), 1'000'000);
  EXPECT_EQ(AsLong(metrics->upper_bounds.at(3)), 86'399'999'000);

  // The same nanosecond file under a microsecond column: the lower bound
  // rounds down, the upper up, so both still hold.
  leaves_[1]->table_type = Primitive(TypeKind::kTimestamp);
  // And millisecond values under a nanosecond column: year 9999 does not
  // fit in int64 nanoseconds, so that column gets no upper bound.
  leaves_[3]->table_type = Primitive(TypeKind::kTimestampNs);
  metrics = Metrics();
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ(AsLong(metrics->lower_bounds.at(2)), -2);
  EXPECT_EQ(AsLong(metrics->upper_bounds.at(2)), 1'700'000'000'123'457);
  EXPECT_EQ(AsLong(metrics->lower_bounds.at(4)),
            int64_t{946'684'800'000} * 1'000'000);
  EXPECT_FALSE(metrics->upper_bounds.contains(4));
  EXPECT_EQ(metrics->value_counts.at(4), 2);
}

TEST_F(FooterMetricsTest, Unsigned32BoundsAreLongsBelow2To31AndRefusedFrom) {
  Load("uint_small");
  absl::StatusOr<FileMetrics> small = Metrics();
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(AsLong(small->lower_bounds.at(1)), 1);
  EXPECT_EQ(AsLong(small->upper_bounds.at(1)), 2'147'483'647);

  Load("uint_big");
  absl::StatusOr<FileMetrics> big = Metrics();
  EXPECT_EQ(big.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(big.status().message(), HasSubstr("column `u`"));
  EXPECT_THAT(big.status().message(), HasSubstr("2147483648"));
}

TEST_F(FooterMetricsTest, ModesDecideWhatIsKept) {
  Load("long_strings");
  absl::StatusOr<FileMetrics> truncated = Metrics();
  ASSERT_TRUE(truncated.ok()) << truncated.status();
  // truncate(16): 16 code points; the upper bound's last one incremented.
  EXPECT_EQ(truncated->lower_bounds.at(1), std::string(16, 'a'));
  EXPECT_EQ(truncated->upper_bounds.at(1), "bbb");  // The max, short.
  EXPECT_EQ(truncated->lower_bounds.at(2), "\u4e00");
  std::string fifteen;
  for (int i = 0; i < 15; ++i) fifteen += "\u4e00";
  EXPECT_EQ(truncated->upper_bounds.at(2), fifteen + "\u4e01");

  absl::StatusOr<FileMetrics> full =
      Metrics({{"write.metadata.metrics.default", "full"}});
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->lower_bounds.at(1), std::string(20, 'a') + "z");

  absl::StatusOr<FileMetrics> mixed =
      Metrics({{"write.metadata.metrics.default", "counts"},
               {"write.metadata.metrics.column.cjk", "none"}});
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_THAT(mixed->lower_bounds, IsEmpty());
  EXPECT_EQ(mixed->value_counts.at(1), 2);
  EXPECT_FALSE(mixed->value_counts.contains(2));
  EXPECT_FALSE(mixed->column_sizes.contains(2));

  EXPECT_THAT(Metrics({{"write.metadata.metrics.default", "truncate(0)"}})
                  .status()
                  .message(),
              HasSubstr("write.metadata.metrics.default"));
}

TEST_F(FooterMetricsTest, OnlyTheFirstHundredColumnsGetDefaultMetrics) {
  Load("wide");
  absl::StatusOr<FileMetrics> metrics = Metrics();
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_TRUE(metrics->value_counts.contains(100));
  EXPECT_FALSE(metrics->value_counts.contains(101));
  EXPECT_FALSE(metrics->column_sizes.contains(101));
  absl::StatusOr<FileMetrics> raised =
      Metrics({{"write.metadata.metrics.max-inferred-column-defaults", "200"}});
  ASSERT_TRUE(raised.ok()) << raised.status();
  EXPECT_TRUE(raised->value_counts.contains(101));
}

TEST_F(FooterMetricsTest, WithoutStatisticsOnlySizesAreKnown) {
  Load("no_stats");
  absl::StatusOr<FileMetrics> metrics = Metrics();
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ(metrics->record_count, 8);
  EXPECT_THAT(metrics->value_counts, IsEmpty());
  EXPECT_THAT(metrics->lower_bounds, IsEmpty());
  EXPECT_EQ(metrics->column_sizes.size(), 9u);
}

TEST_F(FooterMetricsTest, Int96AndContainerLeavesGetSizesOnly) {
  Load("int96");
  absl::StatusOr<FileMetrics> int96 = Metrics();
  ASSERT_TRUE(int96.ok()) << int96.status();
  EXPECT_THAT(int96->value_counts, IsEmpty());
  EXPECT_THAT(int96->lower_bounds, IsEmpty());
  EXPECT_TRUE(int96->column_sizes.contains(1));

  Load("nested");
  absl::StatusOr<FileMetrics> nested = Metrics();
  ASSERT_TRUE(nested.ok()) << nested.status();
  EXPECT_EQ(nested->value_counts.size(), 1u);  // id only.
  EXPECT_EQ(nested->column_sizes.size(), 2u);  // id and tags.element.
}

TEST(SingleValueTest, DecimalsAreMinimalBigEndianTwosComplement) {
  EXPECT_EQ(Hex(DecimalValue(0)), "00");
  EXPECT_EQ(Hex(DecimalValue(127)), "7f");
  EXPECT_EQ(Hex(DecimalValue(128)), "0080");
  EXPECT_EQ(Hex(DecimalValue(-1)), "ff");
  EXPECT_EQ(Hex(DecimalValue(-129)), "ff7f");
  EXPECT_EQ(BigEndianToInt128(std::string("\xff\x7f", 2)), absl::int128(-129));
  EXPECT_EQ(BigEndianToInt128(std::string(20, '\0')), absl::int128(0));
  EXPECT_EQ(BigEndianToInt128(""), std::nullopt);
}

TEST(SingleValueTest, TruncatedUpperBoundsStillBoundTheValue) {
  EXPECT_EQ(TruncatedUpper("abc", 2, true), "ac");
  EXPECT_EQ(TruncatedUpper("ab", 2, true), "ab");
  // The largest code point cannot be incremented: the one before it is.
  EXPECT_EQ(TruncatedUpper("a\U0010FFFF\U0010FFFFz", 3, true), "b");
  EXPECT_EQ(TruncatedUpper("\U0010FFFF\U0010FFFFz", 2, true), std::nullopt);
  EXPECT_EQ(TruncatedUpper(std::string("\x01\xff\x05", 3), 2, false),
            std::string("\x02", 1));
  EXPECT_EQ(TruncatedUpper(std::string("\xff\xff\x05", 3), 2, false),
            std::nullopt);
  EXPECT_EQ(TruncatedLower("\u4e00\u4e00\u4e00", 2, true), "\u4e00\u4e00");
}

}  // namespace
}  // namespace gcpstream::iceberg
