#include "gcpstream/iceberg/parquet/parquet_footer.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gcpstream/iceberg/evolution/schema_plan.h"
#include "gcpstream/iceberg/parquet/parquet_schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Kind = ParquetLogicalType::Kind;

// pyarrow writes the fixtures (and describes their footers) once per run.
class ParquetFooterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string command = absl::StrCat(
        GCPSTREAM_PYTHON, " ", GCPSTREAM_TESTDATA "/write_parquet_fixtures.py",
        " ", Dir());
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  // In the build tree: rewritten by every run.
  static std::string Dir() {
    return GCPSTREAM_TEST_OUTPUT_ROOT "/parquet_footer_test_output";
  }

  static nlohmann::json Expected() {
    std::ifstream in(Dir() + "/expected.json");
    return nlohmann::json::parse(in);
  }

  static std::string Path(const std::string& fixture) {
    return absl::StrCat(Dir(), "/", fixture, ".parquet");
  }

  static ParquetFooter Read(const std::string& fixture) {
    LocalFileIO io;
    absl::StatusOr<ParquetFooter> footer = ReadParquetFooter(io, Path(fixture));
    EXPECT_TRUE(footer.ok()) << footer.status();
    return footer.ok() ? *std::move(footer) : ParquetFooter();
  }

  static std::string FileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }

  // The serialized FileMetaData of a fixture.
  static std::string FooterBytes(const std::string& fixture) {
    const std::string file = FileBytes(Path(fixture));
    const auto* tail =
        reinterpret_cast<const unsigned char*>(file.data() + file.size() - 8);
    const size_t length = tail[0] | tail[1] << 8 | tail[2] << 16 |
                          static_cast<size_t>(tail[3]) << 24;
    return file.substr(file.size() - 8 - length, length);
  }

  static const ParquetSchemaElement& Element(const ParquetFooter& footer,
                                             const std::string& name) {
    for (const ParquetSchemaElement& element : footer.schema) {
      if (element.name == name) return element;
    }
    ADD_FAILURE() << "no schema element " << name;
    return footer.schema.front();
  }
};

size_t LeafCount(const ParquetFooter& footer) {
  size_t leaves = 0;
  for (const ParquetSchemaElement& element : footer.schema) {
    leaves += element.is_group ? 0 : 1;
  }
  return leaves;
}

std::string PhysicalName(ParquetPhysicalType type) {
  static const std::map<ParquetPhysicalType, std::string> kNames = {
      {ParquetPhysicalType::kBoolean, "BOOLEAN"},
      {ParquetPhysicalType::kInt32, "INT32"},
      {ParquetPhysicalType::kInt64, "INT64"},
      {ParquetPhysicalType::kInt96, "INT96"},
      {ParquetPhysicalType::kFloat, "FLOAT"},
      {ParquetPhysicalType::kDouble, "DOUBLE"},
      {ParquetPhysicalType::kByteArray, "BYTE_ARRAY"},
      {ParquetPhysicalType::kFixedLenByteArray, "FIXED_LEN_BYTE_ARRAY"},
  };
  return kNames.at(type);
}

TEST_F(ParquetFooterTest, EveryFixtureReadsAsPyarrowReadsIt) {
  const nlohmann::json expected = Expected();
  for (const auto& [fixture, want] : expected.items()) {
    SCOPED_TRACE(fixture);
    const ParquetFooter footer = Read(fixture);
    EXPECT_EQ(footer.num_rows, want["num_rows"].get<int64_t>());
    EXPECT_EQ(footer.created_by, want["created_by"].get<std::string>());
    EXPECT_EQ(LeafCount(footer), want["num_leaves"].get<size_t>());
    ASSERT_EQ(footer.row_groups.size(), want["row_groups"].size());
    for (size_t g = 0; g < footer.row_groups.size(); ++g) {
      const ParquetRowGroup& group = footer.row_groups[g];
      const auto& want_group = want["row_groups"][g];
      EXPECT_EQ(group.num_rows, want_group["num_rows"].get<int64_t>());
      ASSERT_EQ(group.columns.size(), want_group["columns"].size());
      for (size_t c = 0; c < group.columns.size(); ++c) {
        const ParquetColumnChunk& chunk = group.columns[c];
        const auto& want_chunk = want_group["columns"][c];
        SCOPED_TRACE(want_chunk.dump());
        EXPECT_EQ(absl::StrJoin(chunk.path, "."),
                  want_chunk["path"].get<std::string>());
        EXPECT_EQ(PhysicalName(chunk.type),
                  want_chunk["physical_type"].get<std::string>());
        EXPECT_EQ(chunk.num_values, want_chunk["num_values"].get<int64_t>());
        EXPECT_EQ(chunk.total_compressed_size,
                  want_chunk["total_compressed_size"].get<int64_t>());
        const std::optional<int64_t> nulls = chunk.statistics.has_value()
                                                 ? chunk.statistics->null_count
                                                 : std::nullopt;
        if (want_chunk["null_count"].is_null()) {
          EXPECT_EQ(nulls, std::nullopt);
        } else {
          EXPECT_EQ(nulls, want_chunk["null_count"].get<int64_t>());
        }
        const bool has_bounds = chunk.statistics.has_value() &&
                                chunk.statistics->min_value.has_value() &&
                                chunk.statistics->max_value.has_value();
        EXPECT_EQ(has_bounds, want_chunk["has_min_max"].get<bool>());
      }
    }
  }
}

TEST_F(ParquetFooterTest, FlatSchemaCarriesIdsTypesAndAnnotations) {
  const ParquetFooter footer = Read("flat_with_ids");
  EXPECT_EQ(footer.row_groups.size(), 3U);  // 10 rows, groups of 4.
  ASSERT_FALSE(footer.schema.empty());
  EXPECT_TRUE(footer.schema[0].is_group);
  // parquet-cpp sets a repetition on the root too, which others leave out.
  EXPECT_EQ(footer.schema[0].name, "schema");
  EXPECT_EQ(footer.schema[0].num_children, 14);

  const auto& id = Element(footer, "id");
  EXPECT_EQ(id.repetition, ParquetRepetition::kRequired);
  EXPECT_EQ(id.type, ParquetPhysicalType::kInt32);
  EXPECT_EQ(id.field_id, 1);
  const auto& name = Element(footer, "name");
  EXPECT_EQ(name.repetition, ParquetRepetition::kOptional);
  EXPECT_EQ(name.field_id, 2);
  ASSERT_TRUE(name.logical_type.has_value());
  EXPECT_EQ(name.logical_type->kind, Kind::kString);
  EXPECT_EQ(name.converted_type, ParquetConvertedType::kUtf8);

  const auto& amount = Element(footer, "amount");
  ASSERT_TRUE(amount.logical_type.has_value());
  EXPECT_EQ(amount.logical_type->kind, Kind::kDecimal);
  EXPECT_EQ(amount.logical_type->precision, 10);
  EXPECT_EQ(amount.logical_type->scale, 2);
  EXPECT_EQ(amount.precision, 10);
  EXPECT_EQ(amount.scale, 2);

  const auto& at = Element(footer, "at");
  ASSERT_TRUE(at.logical_type.has_value());
  EXPECT_EQ(at.logical_type->kind, Kind::kTimestamp);
  EXPECT_EQ(at.logical_type->unit, ParquetTimeUnit::kMicros);
  EXPECT_TRUE(at.logical_type->adjusted_to_utc);
  const auto& local_at = Element(footer, "local_at");
  ASSERT_TRUE(local_at.logical_type.has_value());
  EXPECT_EQ(local_at.logical_type->unit, ParquetTimeUnit::kMillis);
  EXPECT_FALSE(local_at.logical_type->adjusted_to_utc);

  EXPECT_EQ(Element(footer, "day").logical_type->kind, Kind::kDate);
  EXPECT_EQ(Element(footer, "ratio").type, ParquetPhysicalType::kFloat);
  EXPECT_EQ(Element(footer, "score").type, ParquetPhysicalType::kDouble);
  EXPECT_EQ(Element(footer, "ok").type, ParquetPhysicalType::kBoolean);
  EXPECT_EQ(Element(footer, "blob").type, ParquetPhysicalType::kByteArray);
  EXPECT_FALSE(Element(footer, "blob").logical_type.has_value());
  const auto& code = Element(footer, "code");
  EXPECT_EQ(code.type, ParquetPhysicalType::kFixedLenByteArray);
  EXPECT_EQ(code.type_length, 4);
  const auto& small = Element(footer, "small");
  ASSERT_TRUE(small.logical_type.has_value());
  EXPECT_EQ(small.logical_type->kind, Kind::kInteger);
  EXPECT_EQ(small.logical_type->bit_width, 8);
  EXPECT_TRUE(small.logical_type->is_signed);
  const auto& count = Element(footer, "count");
  EXPECT_EQ(count.logical_type->bit_width, 32);
  EXPECT_FALSE(count.logical_type->is_signed);
  const auto& noon = Element(footer, "noon");
  EXPECT_EQ(noon.logical_type->kind, Kind::kTime);
  EXPECT_EQ(noon.logical_type->unit, ParquetTimeUnit::kMicros);

  // Bounds come in the column's order: the first group's ids are 0..3.
  const ParquetStatistics& id_stats =
      *footer.row_groups[0].columns[0].statistics;
  ASSERT_TRUE(id_stats.min_value.has_value());
  EXPECT_EQ(*id_stats.min_value, std::string("\0\0\0\0", 4));
  EXPECT_EQ(*id_stats.max_value, std::string("\3\0\0\0", 4));
}

TEST_F(ParquetFooterTest, NestedSchemaKeepsGroupsListsAndMapsWithoutIds) {
  const ParquetFooter footer = Read("nested_without_ids");
  for (const ParquetSchemaElement& element : footer.schema) {
    EXPECT_FALSE(element.field_id.has_value()) << element.name;
  }
  const auto& order = Element(footer, "order");
  EXPECT_TRUE(order.is_group);
  EXPECT_EQ(order.num_children, 2);
  EXPECT_FALSE(order.logical_type.has_value());
  const auto& tags = Element(footer, "tags");
  EXPECT_TRUE(tags.is_group);
  ASSERT_TRUE(tags.logical_type.has_value());
  EXPECT_EQ(tags.logical_type->kind, Kind::kList);
  EXPECT_EQ(Element(footer, "list").repetition, ParquetRepetition::kRepeated);
  const auto& attrs = Element(footer, "attrs");
  ASSERT_TRUE(attrs.logical_type.has_value());
  EXPECT_EQ(attrs.logical_type->kind, Kind::kMap);
  EXPECT_EQ(Element(footer, "key_value").repetition,
            ParquetRepetition::kRepeated);
  EXPECT_EQ(Element(footer, "key").repetition, ParquetRepetition::kRequired);
}

TEST_F(ParquetFooterTest, NanosecondTimestampsAndFilesWithoutStatistics) {
  const ParquetFooter nanos = Read("nanos");
  EXPECT_EQ(Element(nanos, "t").logical_type->unit, ParquetTimeUnit::kNanos);

  const ParquetFooter no_stats = Read("statistics_off");
  const auto& chunk = no_stats.row_groups.at(0).columns.at(0);
  EXPECT_TRUE(!chunk.statistics.has_value() ||
              !chunk.statistics->null_count.has_value());
}

// The footer reader and the schema conversion together, on files pyarrow
// wrote.
TEST_F(ParquetFooterTest, FixturesConvertToIcebergSchemasWithNullEvidence) {
  const ParquetFooter flat = Read("flat_with_ids");
  absl::StatusOr<Schema> flat_schema = ConvertParquetSchema(flat);
  ASSERT_TRUE(flat_schema.ok()) << flat_schema.status();
  std::vector<std::string> described;
  for (const Field& field : flat_schema->fields) {
    described.push_back(absl::StrCat(field.id, ":", field.name, ":",
                                     TypeName(field.type),
                                     field.required ? ":required" : ""));
  }
  EXPECT_THAT(described,
              ElementsAre("1:id:int:required", "2:name:string",
                          "3:amount:decimal(10, 2)", "4:at:timestamptz",
                          "5:local_at:timestamp", "6:day:date", "7:ratio:float",
                          "8:score:double", "9:ok:boolean", "10:blob:binary",
                          "11:code:fixed[4]", "12:small:int", "13:count:long",
                          "14:noon:time"));
  // Every optional column but `name` (a null in every third row) is proven.
  EXPECT_THAT(ProvenNullFreeColumns(flat, *flat_schema),
              ElementsAre("amount", "at", "blob", "code", "count", "day",
                          "local_at", "noon", "ok", "ratio", "score", "small"));

  const ParquetFooter nested = Read("nested_without_ids");
  absl::StatusOr<Schema> nested_schema = ConvertParquetSchema(nested);
  ASSERT_TRUE(nested_schema.ok()) << nested_schema.status();
  EXPECT_EQ(
      SchemaToJson(*nested_schema),
      R"j({"type":"struct","schema-id":0,"fields":[)j"
      R"j({"id":1,"name":"order","required":false,"type":{"type":"struct",)j"
      R"j("fields":[{"id":1000,"name":"id","required":true,"type":"long"},)j"
      R"j({"id":1001,"name":"note","required":false,"type":"string"}]}},)j"
      R"j({"id":2,"name":"tags","required":false,"type":{"type":"list",)j"
      R"j("element-id":1002,"element":"int","element-required":false}},)j"
      R"j({"id":3,"name":"attrs","required":false,"type":{"type":"map",)j"
      R"j("key-id":1003,"key":"string","value-id":1004,"value":"long",)j"
      R"j("value-required":false}}]})j");
  // The third row's `order` is null: no leaf of it is null-free.
  EXPECT_THAT(ProvenNullFreeColumns(nested, *nested_schema), IsEmpty());

  const ParquetFooter empty = Read("empty");
  EXPECT_THAT(ProvenNullFreeColumns(empty, *ConvertParquetSchema(empty)),
              ElementsAre("x", "y"));
  const ParquetFooter no_stats = Read("statistics_off");
  EXPECT_THAT(ProvenNullFreeColumns(no_stats, *ConvertParquetSchema(no_stats)),
              IsEmpty());
}

// What evolution sees of a file: its canonical schema and null evidence.
TEST_F(ParquetFooterTest, AFilesSchemaForEvolutionIsCanonical) {
  const std::string path = Path("nested_without_ids");
  absl::StatusOr<FileSchema> file =
      FileSchemaOf(path, Read("nested_without_ids"));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->path, path);
  std::vector<std::string> names;
  for (const Field& field : file->schema.fields) {
    names.push_back(absl::StrCat(field.id, ":", field.name));
  }
  // Sorted by name, renumbered from 1, each struct's fields first.
  EXPECT_THAT(names, ElementsAre("1:attrs", "2:order", "3:tags"));
  EXPECT_EQ(file->schema.fields[1].type.fields[0].id, 6);  // order.id.
  EXPECT_THAT(file->null_free_columns, IsEmpty());

  ParquetFooter unsigned64 = Read("flat_with_ids");
  for (ParquetSchemaElement& element : unsigned64.schema) {
    if (element.name == "count") element.logical_type->bit_width = 64;
  }
  absl::StatusOr<FileSchema> refused = FileSchemaOf(path, unsigned64);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(),
              HasSubstr(absl::StrCat(path,
                                     ": column 'count': unsigned "
                                     "64-bit integers")));
}

TEST_F(ParquetFooterTest, WhatIsNotAParquetFileIsRefusedWithThePath) {
  LocalFileIO io;
  const std::string good = FileBytes(Path("flat_with_ids"));
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::string path = absl::StrCat(Dir(), "/", name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  };
  struct Case {
    std::string name;
    std::string bytes;
    absl::StatusCode code;
    std::string message;
  };
  std::string zero_length = good;
  zero_length.replace(zero_length.size() - 8, 4, std::string(4, '\0'));
  std::string huge_length = good;
  huge_length.replace(huge_length.size() - 8, 4, "\xff\xff\xff\x7f");
  std::string garbage = good;
  const size_t footer_size = FooterBytes("flat_with_ids").size();
  garbage.replace(garbage.size() - 8 - footer_size, footer_size,
                  std::string(footer_size, '\xff'));
  for (const Case& c : std::vector<Case>{
           {"short", "PAR1", absl::StatusCode::kInvalidArgument,
            "not a Parquet file: 4 bytes"},
           {"csv", "id,name\n1,a\n2,b\n", absl::StatusCode::kInvalidArgument,
            "does not end in the PAR1 magic"},
           {"encrypted", good.substr(0, good.size() - 4) + "PARE",
            absl::StatusCode::kUnimplemented, "the footer is encrypted"},
           {"zero_length", zero_length, absl::StatusCode::kDataLoss,
            "footer of 0 bytes"},
           {"huge_length", huge_length, absl::StatusCode::kDataLoss,
            "footer of 2147483647 bytes in a file of"},
           {"garbage", garbage, absl::StatusCode::kDataLoss,
            "corrupt Parquet footer: expected a Thrift compact-encoded "
            "FileMetaData, could not decode it (don't know what type: "
            "\\x0f)"},
       }) {
    SCOPED_TRACE(c.name);
    const std::string path = write(c.name, c.bytes);
    absl::StatusOr<ParquetFooter> footer = ReadParquetFooter(io, path);
    ASSERT_FALSE(footer.ok());
    EXPECT_EQ(footer.status().code(), c.code) << footer.status();
    EXPECT_THAT(std::string(footer.status().message()), HasSubstr(c.message));
    EXPECT_THAT(footer.status().message(), HasSubstr(path));
  }
  absl::StatusOr<ParquetFooter> missing =
      ReadParquetFooter(io, Dir() + "/absent.parquet");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

// Every truncation of a real footer is refused, and no single corrupted
// byte crashes the reader or yields a footer that breaks its invariants.
TEST_F(ParquetFooterTest, CorruptedFootersAreRefusedNeverCrash) {
  const nlohmann::json expected = Expected();
  for (const auto& [fixture, want] : expected.items()) {
    SCOPED_TRACE(fixture);
    const std::string footer = FooterBytes(fixture);
    ASSERT_TRUE(DecodeParquetFooter(footer).ok());
    for (size_t length = 0; length < footer.size(); ++length) {
      EXPECT_FALSE(DecodeParquetFooter(footer.substr(0, length)).ok())
          << "truncated to " << length;
    }
    int refused = 0;
    for (size_t at = 0; at < footer.size(); ++at) {
      for (const char replacement : {'\x00', '\xff', '\x7f', '\x15'}) {
        std::string corrupt = footer;
        if (corrupt[at] == replacement) continue;
        corrupt[at] = replacement;
        absl::StatusOr<ParquetFooter> decoded = DecodeParquetFooter(corrupt);
        if (!decoded.ok()) {
          ++refused;
          continue;
        }
        const size_t leaves = LeafCount(*decoded);
        int64_t rows = 0;
        for (const auto& group : decoded->row_groups) {
          EXPECT_EQ(group.columns.size(), leaves);
          rows += group.num_rows;
        }
        EXPECT_EQ(rows, decoded->num_rows);
      }
    }
    EXPECT_GT(refused, 0);
  }
}

}  // namespace
}  // namespace gcpstream::iceberg
