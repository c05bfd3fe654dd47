#include "gcpstream/iceberg/parquet/parquet_schema.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Kind = ParquetLogicalType::Kind;
using Rep = ParquetRepetition;
using Phys = ParquetPhysicalType;

// Hand-built footers: the schema depth first, then row groups whose chunks
// carry null counts by leaf path.
class FooterBuilder {
 public:
  FooterBuilder() {
    ParquetSchemaElement root;
    root.name = "schema";
    root.is_group = true;
    footer_.schema.push_back(root);
  }

  FooterBuilder& Leaf(const std::string& name, Rep repetition, Phys type,
                      std::optional<ParquetLogicalType> logical = std::nullopt,
                      std::optional<int32_t> id = std::nullopt) {
    ParquetSchemaElement e;
    e.name = name;
    e.repetition = repetition;
    e.type = type;
    e.logical_type = logical;
    e.field_id = id;
    return Add(e);
  }

  FooterBuilder& Converted(const std::string& name, Phys type,
                           ParquetConvertedType converted) {
    ParquetSchemaElement e;
    e.name = name;
    e.repetition = Rep::kOptional;
    e.type = type;
    e.converted_type = converted;
    return Add(e);
  }

  FooterBuilder& Group(const std::string& name, Rep repetition, int children,
                       std::optional<Kind> logical = std::nullopt,
                       std::optional<int32_t> id = std::nullopt) {
    ParquetSchemaElement e;
    e.name = name;
    e.repetition = repetition;
    e.is_group = true;
    e.num_children = children;
    if (logical.has_value()) e.logical_type = Logical(*logical);
    e.field_id = id;
    return Add(e);
  }

  // A row group of `rows` rows; `nulls` maps leaf paths to their null
  // count (nullopt: no statistics).
  FooterBuilder& RowGroup(
      int64_t rows,
      const std::map<std::string, std::optional<int64_t>>& nulls) {
    ParquetRowGroup group;
    group.num_rows = rows;
    for (const auto& [path, count] : nulls) {
      ParquetColumnChunk chunk;
      chunk.path = absl::StrSplit(path, '.');
      if (count.has_value()) {
        chunk.statistics = ParquetStatistics();
        chunk.statistics->null_count = *count;
      }
      group.columns.push_back(chunk);
    }
    footer_.row_groups.push_back(group);
    footer_.num_rows += rows;
    return *this;
  }

  // The root's child count: the number of top-level columns.
  FooterBuilder& TopLevel(int columns) {
    footer_.schema[0].num_children = columns;
    return *this;
  }

  const ParquetFooter& footer() const { return footer_; }

  static ParquetLogicalType Logical(Kind kind) {
    ParquetLogicalType logical;
    logical.kind = kind;
    return logical;
  }

 private:
  FooterBuilder& Add(const ParquetSchemaElement& element) {
    footer_.schema.push_back(element);
    return *this;
  }

  ParquetFooter footer_;
};

ParquetLogicalType Timestamp(ParquetTimeUnit unit, bool utc) {
  ParquetLogicalType t = FooterBuilder::Logical(Kind::kTimestamp);
  t.unit = unit;
  t.adjusted_to_utc = utc;
  return t;
}

ParquetLogicalType Integer(int bits, bool is_signed) {
  ParquetLogicalType t = FooterBuilder::Logical(Kind::kInteger);
  t.bit_width = bits;
  t.is_signed = is_signed;
  return t;
}

ParquetLogicalType DecimalOf(int precision, int scale) {
  ParquetLogicalType t = FooterBuilder::Logical(Kind::kDecimal);
  t.precision = precision;
  t.scale = scale;
  return t;
}

Schema Convert(const FooterBuilder& builder) {
  absl::StatusOr<Schema> schema = ConvertParquetSchema(builder.footer());
  EXPECT_TRUE(schema.ok()) << schema.status();
  return schema.ok() ? *schema : Schema();
}

std::vector<std::string> TypeNames(const Schema& schema) {
  std::vector<std::string> names;
  names.reserve(schema.fields.size());
  for (const Field& field : schema.fields) {
    names.push_back(TypeName(field.type));
  }
  return names;
}

TEST(ParquetSchemaTest, PrimitivesMapByLogicalConvertedAndPhysicalType) {
  FooterBuilder b;
  b.TopLevel(20)
      .Leaf("s", Rep::kOptional, Phys::kByteArray,
            FooterBuilder::Logical(Kind::kString))
      .Leaf("j", Rep::kOptional, Phys::kByteArray,
            FooterBuilder::Logical(Kind::kJson))
      .Leaf("bs", Rep::kOptional, Phys::kByteArray,
            FooterBuilder::Logical(Kind::kBson))
      .Leaf("bin", Rep::kOptional, Phys::kByteArray)
      .Leaf("dec", Rep::kOptional, Phys::kFixedLenByteArray, DecimalOf(20, 4))
      .Leaf("fix", Rep::kOptional, Phys::kFixedLenByteArray)
      .Leaf("d", Rep::kOptional, Phys::kInt32,
            FooterBuilder::Logical(Kind::kDate))
      .Leaf("t", Rep::kOptional, Phys::kInt64,
            FooterBuilder::Logical(Kind::kTime))
      .Leaf("ts", Rep::kOptional, Phys::kInt64,
            Timestamp(ParquetTimeUnit::kMicros, false))
      .Leaf("tstz", Rep::kOptional, Phys::kInt64,
            Timestamp(ParquetTimeUnit::kMillis, true))
      .Leaf("i8", Rep::kOptional, Phys::kInt32, Integer(8, true))
      .Leaf("u16", Rep::kOptional, Phys::kInt32, Integer(16, false))
      .Leaf("u32", Rep::kOptional, Phys::kInt32, Integer(32, false))
      .Leaf("i64", Rep::kOptional, Phys::kInt64, Integer(64, true))
      .Leaf("legacy", Rep::kOptional, Phys::kInt96)
      .Leaf("f", Rep::kOptional, Phys::kFloat)
      .Leaf("b", Rep::kOptional, Phys::kBoolean)
      .Leaf("uuid", Rep::kOptional, Phys::kFixedLenByteArray,
            FooterBuilder::Logical(Kind::kUuid))
      .Converted("utf8", Phys::kByteArray, ParquetConvertedType::kUtf8)
      .Converted("millis", Phys::kInt64,
                 ParquetConvertedType::kTimestampMillis);
  EXPECT_THAT(
      TypeNames(Convert(b)),
      ElementsAre("string", "string", "binary", "binary", "decimal(20, 4)",
                  "fixed[0]", "date", "time", "timestamp", "timestamptz", "int",
                  "int", "long", "long", "timestamptz", "float", "boolean",
                  "uuid", "string", "timestamptz"));
}

TEST(ParquetSchemaTest, TypesWithoutAnIcebergEquivalentNameTheColumn) {
  struct Case {
    FooterBuilder builder;
    std::string message;
  };
  std::vector<Case> cases;
  {
    FooterBuilder b;
    b.TopLevel(1).Leaf("n", Rep::kOptional, Phys::kInt64, Integer(64, false));
    cases.push_back({b, "column 'n': unsigned 64-bit integers"});
  }
  {
    FooterBuilder b;
    b.TopLevel(1).Converted("n", Phys::kInt64, ParquetConvertedType::kUint64);
    cases.push_back({b, "column 'n': unsigned 64-bit integers"});
  }
  {
    FooterBuilder b;
    b.TopLevel(1).Converted("i", Phys::kFixedLenByteArray,
                            ParquetConvertedType::kInterval);
    cases.push_back({b, "column 'i': INTERVAL has no Iceberg type"});
  }
  // timestamp_ns exists from format version 3; tables here are version 2.
  for (const bool utc : {false, true}) {
    FooterBuilder b;
    b.TopLevel(1).Leaf("at", Rep::kOptional, Phys::kInt64,
                       Timestamp(ParquetTimeUnit::kNanos, utc));
    cases.push_back(
        {b, utc ? "column 'at': nanosecond timestamps (timestamptz_ns)"
                : "column 'at': nanosecond timestamps (timestamp_ns)"});
  }
  {
    FooterBuilder b;
    b.TopLevel(1).Leaf("h", Rep::kOptional, Phys::kFixedLenByteArray,
                       FooterBuilder::Logical(Kind::kFloat16));
    cases.push_back({b, "column 'h': its Parquet logical type"});
  }
  {
    FooterBuilder b;
    b.TopLevel(1)
        .Group("g", Rep::kOptional, 1)
        .Leaf("r", Rep::kRepeated, Phys::kInt32);
    cases.push_back(
        {b, "column 'g.r': fields cannot have repetition REPEATED"});
  }
  for (const Case& c : cases) {
    absl::StatusOr<Schema> schema = ConvertParquetSchema(c.builder.footer());
    ASSERT_FALSE(schema.ok()) << c.message;
    EXPECT_EQ(schema.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(schema.status().message(), HasSubstr(c.message));
  }
}

TEST(ParquetSchemaTest, FilesWithoutIdsNumberColumnsThenNestedFrom1000) {
  FooterBuilder b;
  b.TopLevel(3)
      .Leaf("a", Rep::kRequired, Phys::kInt64)
      .Group("s", Rep::kOptional, 2)
      .Leaf("x", Rep::kOptional, Phys::kInt32)
      .Leaf("y", Rep::kOptional, Phys::kInt32)
      .Leaf("c", Rep::kOptional, Phys::kDouble);
  const Schema schema = Convert(b);
  ASSERT_EQ(schema.fields.size(), 3U);
  EXPECT_EQ(schema.fields[0].id, 1);
  EXPECT_TRUE(schema.fields[0].required);
  EXPECT_EQ(schema.fields[1].id, 2);
  EXPECT_EQ(schema.fields[2].id, 3);
  EXPECT_EQ(schema.fields[1].type.fields[0].id, 1000);
  EXPECT_EQ(schema.fields[1].type.fields[1].id, 1001);
}

TEST(ParquetSchemaTest, FilesWithIdsKeepThemAndNumberTheRestFrom1000) {
  FooterBuilder b;
  b.TopLevel(2)
      .Leaf("a", Rep::kRequired, Phys::kInt64, std::nullopt, 7)
      .Leaf("b", Rep::kOptional, Phys::kInt64);
  const Schema schema = Convert(b);
  EXPECT_EQ(schema.fields[0].id, 7);
  EXPECT_EQ(schema.fields[1].id, 1000);
}

TEST(ParquetSchemaTest, ListsInEveryLayoutAndMapsGetIcebergNames) {
  FooterBuilder b;
  b.TopLevel(5)
      // Standard 3-level list of optional ints.
      .Group("tags", Rep::kOptional, 1, Kind::kList)
      .Group("list", Rep::kRepeated, 1)
      .Leaf("item", Rep::kOptional, Phys::kInt32)
      // 2-level: the repeated primitive is the (required) element.
      .Group("legacy", Rep::kOptional, 1, Kind::kList)
      .Leaf("values", Rep::kRepeated, Phys::kInt64)
      // 2-level: a repeated group of two fields is a struct element.
      .Group("pairs", Rep::kRequired, 1, Kind::kList)
      .Group("pair", Rep::kRepeated, 2)
      .Leaf("l", Rep::kRequired, Phys::kInt32)
      .Leaf("r", Rep::kOptional, Phys::kInt32)
      // 2-level: a one-field group named "array" is still the element.
      .Group("arr", Rep::kOptional, 1, Kind::kList)
      .Group("array", Rep::kRepeated, 1)
      .Leaf("v", Rep::kOptional, Phys::kInt32)
      // A map with an optional value.
      .Group("attrs", Rep::kOptional, 1, Kind::kMap)
      .Group("key_value", Rep::kRepeated, 2)
      .Leaf("key", Rep::kRequired, Phys::kByteArray,
            FooterBuilder::Logical(Kind::kString))
      .Leaf("value", Rep::kOptional, Phys::kDouble);
  const Schema schema = Convert(b);
  ASSERT_EQ(schema.fields.size(), 5U);
  const Type& tags = schema.fields[0].type;
  EXPECT_EQ(tags.kind, TypeKind::kList);
  EXPECT_EQ(tags.fields[0].name, "element");
  EXPECT_FALSE(tags.fields[0].required);
  EXPECT_EQ(TypeName(tags.fields[0].type), "int");
  const Type& legacy = schema.fields[1].type;
  EXPECT_TRUE(legacy.fields[0].required);
  EXPECT_EQ(TypeName(legacy.fields[0].type), "long");
  const Type& pairs = schema.fields[2].type;
  EXPECT_TRUE(schema.fields[2].required);
  ASSERT_EQ(pairs.fields[0].type.kind, TypeKind::kStruct);
  EXPECT_EQ(pairs.fields[0].type.fields.size(), 2U);
  const Type& arr = schema.fields[3].type;
  ASSERT_EQ(arr.fields[0].type.kind, TypeKind::kStruct);
  EXPECT_EQ(arr.fields[0].type.fields[0].name, "v");
  const Type& attrs = schema.fields[4].type;
  EXPECT_EQ(attrs.kind, TypeKind::kMap);
  EXPECT_EQ(attrs.fields[0].name, "key");
  EXPECT_TRUE(attrs.fields[0].required);
  EXPECT_EQ(TypeName(attrs.fields[0].type), "string");
  EXPECT_EQ(attrs.fields[1].name, "value");
  EXPECT_FALSE(attrs.fields[1].required);
}

// Null evidence, one rule per test.
FooterBuilder TwoColumns() {
  FooterBuilder b;
  b.TopLevel(2)
      .Leaf("a", Rep::kOptional, Phys::kInt64)
      .Leaf("b", Rep::kOptional, Phys::kInt64);
  return b;
}

std::vector<std::string> Proven(const FooterBuilder& b) {
  return ProvenNullFreeColumns(b.footer(), Convert(b));
}

TEST(NullEvidenceTest, ColumnsProvenNullFreeAreNamedSomeNullsStayOptional) {
  FooterBuilder b = TwoColumns();
  b.RowGroup(10, {{"a", 0}, {"b", 3}});
  EXPECT_THAT(Proven(b), ElementsAre("a"));
  EXPECT_TRUE(MarkRequired(Convert(b), Proven(b)).fields[0].required);
  EXPECT_FALSE(MarkRequired(Convert(b), Proven(b)).fields[1].required);
}

TEST(NullEvidenceTest, CountsSumOverRowGroupsAndOneGroupWithNullsSpoils) {
  FooterBuilder b = TwoColumns();
  b.RowGroup(10, {{"a", 0}, {"b", 0}}).RowGroup(10, {{"a", 0}, {"b", 1}});
  EXPECT_THAT(Proven(b), ElementsAre("a"));
}

TEST(NullEvidenceTest, MissingStatisticsProveNothing) {
  FooterBuilder b = TwoColumns();
  b.RowGroup(10, {{"a", 0}, {"b", std::nullopt}})
      .RowGroup(10, {{"a", std::nullopt}, {"b", 0}});
  EXPECT_THAT(Proven(b), IsEmpty());
}

TEST(NullEvidenceTest, EmptyRowGroupsNeitherProveNorSpoil) {
  FooterBuilder b = TwoColumns();
  b.RowGroup(0, {{"a", std::nullopt}, {"b", std::nullopt}})
      .RowGroup(5, {{"a", 0}, {"b", 2}});
  EXPECT_THAT(Proven(b), ElementsAre("a"));
}

FooterBuilder ColumnStructAndList() {
  FooterBuilder b;
  b.TopLevel(3)
      .Leaf("a", Rep::kOptional, Phys::kInt64)
      .Group("s", Rep::kOptional, 1)
      .Leaf("x", Rep::kOptional, Phys::kInt32)
      .Group("l", Rep::kOptional, 1, Kind::kList)
      .Group("list", Rep::kRepeated, 1)
      .Leaf("element", Rep::kOptional, Phys::kInt32);
  return b;
}

TEST(NullEvidenceTest, ZeroRowsProveEverythingOutsideListsAndMaps) {
  FooterBuilder empty_group = ColumnStructAndList();
  empty_group.RowGroup(0, {{"a", std::nullopt},
                           {"s.x", std::nullopt},
                           {"l.list.element", std::nullopt}});
  EXPECT_THAT(Proven(empty_group), ElementsAre("a", "s", "s.x"));
  EXPECT_THAT(Proven(ColumnStructAndList()), ElementsAre("a", "s", "s.x"));
}

TEST(NullEvidenceTest, OneProvenLeafProvesItsStructNothingUnderAList) {
  FooterBuilder b;
  b.TopLevel(3)
      .Group("s", Rep::kOptional, 2)
      .Leaf("x", Rep::kOptional, Phys::kInt32)
      .Leaf("y", Rep::kOptional, Phys::kInt32)
      .Group("t", Rep::kOptional, 2)
      .Leaf("p", Rep::kOptional, Phys::kInt32)
      .Leaf("q", Rep::kOptional, Phys::kInt32)
      .Group("l", Rep::kOptional, 1, Kind::kList)
      .Group("list", Rep::kRepeated, 1)
      .Leaf("element", Rep::kOptional, Phys::kInt32);
  // s.y never null proves s; t's leaves each have nulls (in different rows,
  // perhaps), so t stays optional; a list proves nothing.
  b.RowGroup(
      4,
      {{"s.x", 1}, {"s.y", 0}, {"t.p", 1}, {"t.q", 2}, {"l.list.element", 0}});
  EXPECT_THAT(Proven(b), ElementsAre("s", "s.y"));
}

TEST(CanonicalSchemaTest, SortsFieldsEverywhereAndRenumbersStructsFirst) {
  Field b{5, "b", true, Primitive(TypeKind::kLong), ""};
  Field inner_z{9, "z", false, Primitive(TypeKind::kInt), ""};
  Field inner_a{8, "a", false, Primitive(TypeKind::kInt), ""};
  Field s{6, "S", false, Struct({inner_z, inner_a}), "a doc"};
  Field element{12, "", false, Primitive(TypeKind::kString), ""};
  Field l{7, "a", false, List(element), ""};
  Schema schema{0, {b, s, l}};
  const Schema canonical = Canonical(schema);
  EXPECT_EQ(SchemaToJson(canonical),
            R"({"type":"struct","schema-id":0,"fields":[)"
            R"({"id":1,"name":"S","required":false,"type":{"type":"struct",)"
            R"("fields":[{"id":4,"name":"a","required":false,"type":"int"},)"
            R"({"id":5,"name":"z","required":false,"type":"int"}]},)"
            R"("doc":"a doc"},)"
            R"({"id":2,"name":"a","required":false,"type":{"type":"list",)"
            R"("element-id":6,"element":"string","element-required":false}},)"
            R"({"id":3,"name":"b","required":true,"type":"long"}]})");
  // Any order of the same fields has the same canonical form.
  Schema permuted{0, {l, b, s}};
  permuted.fields[2].type.fields = {inner_a, inner_z};
  EXPECT_EQ(SchemaToJson(Canonical(permuted)), SchemaToJson(canonical));
  EXPECT_EQ(Canonical(canonical), canonical);
}

TEST(CanonicalSchemaTest, MapsSpellTheirKeyAndValueIds) {
  Field key{0, "", true, Primitive(TypeKind::kString), ""};
  Field value{0, "", true, Decimal(9, 2), ""};
  Schema schema{3, {Field{0, "m", false, Map(key, value), ""}}};
  EXPECT_EQ(SchemaToJson(Canonical(schema)),
            R"j({"type":"struct","schema-id":3,"fields":[{"id":1,"name":"m",)j"
            R"j("required":false,"type":{"type":"map","key-id":2,)j"
            R"j("key":"string","value-id":3,"value":"decimal(9, 2)",)j"
            R"j("value-required":true}}]})j");
}

}  // namespace
}  // namespace gcpstream::iceberg
