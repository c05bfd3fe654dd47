// The reader against hand-built containers whose schemas a valid writer
// never produces: each must decode deterministically or give DataLoss,
// never throw or touch freed memory (regressions found by the fuzzer).

#include "gcpstream/iceberg/avro/avro_reader.h"

#include <string>

#include <nlohmann/json.hpp>

#include "absl/strings/string_view.h"
#include "gcpstream/iceberg/avro/avro_encoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

constexpr absl::string_view kSync = "0123456789abcdef";

// A null-codec container with `schema` and one block of `count` datums
// whose encoded bytes are `datums`.
std::string Container(const Json& schema, int64_t count,
                      absl::string_view datums) {
  AvroEncoder out;
  out.Fixed("Obj\x01");
  out.BlockCount(1);
  out.String("avro.schema");
  out.Bytes(schema.dump());
  out.EndBlocks();
  out.Fixed(kSync);
  out.Long(count);
  out.Long(static_cast<int64_t>(datums.size()));
  out.Fixed(datums);
  out.Fixed(kSync);
  return out.Take();
}

TEST(AvroReaderTest, ReadsNamedReferencesAndNestedTypes) {
  const Json schema = Json::parse(R"({
    "type": "record", "name": "outer", "fields": [
      {"name": "first", "type": {"type": "record", "name": "pair",
                                 "fields": [{"name": "n", "type": "int"}]}},
      {"name": "second", "type": "pair"},
      {"name": "tags", "type": {"type": "array", "items": "string"}},
      {"name": "kind",
       "type": {"type": "enum", "name": "kind", "symbols": ["a", "b"]}},
      {"name": "maybe", "type": ["null", "long"]}]})");
  AvroEncoder datum;
  datum.Int(7);
  datum.Int(-3);
  datum.BlockCount(2);
  datum.String("x");
  datum.String("y");
  datum.EndBlocks();
  datum.Int(1);
  datum.UnionBranch(0);
  absl::StatusOr<AvroFile> file =
      ReadAvroFile(Container(schema, 1, datum.bytes()));
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->records.size(), 1u);
  EXPECT_EQ(file->records[0], Json::parse(R"({
    "first": {"n": 7}, "second": {"n": -3}, "tags": ["x", "y"],
    "kind": "b", "maybe": null})"));
}

TEST(AvroReaderTest, RedefinedNamedTypeKeepsItsFirstDefinition) {
  // `pair` is referenced, and the referenced definition's own field
  // redefines `pair`: the reference must stay bound to the first one
  // (Avro forbids the redefinition; replacing the definition while it was
  // being decoded freed the schema under the decoder).
  const Json schema = Json::parse(R"({
    "type": "record", "name": "outer", "fields": [
      {"name": "a", "type": {"type": "record", "name": "pair", "fields": [
        {"name": "inner", "type": ["null", {"type": "record", "name": "pair",
          "fields": [{"name": "s", "type": "string"}]}]}]}},
      {"name": "b", "type": "pair"}]})");
  AvroEncoder datum;
  datum.UnionBranch(0);  // a.inner = null
  datum.UnionBranch(1);  // b.inner = the nested record
  datum.String("hello");
  absl::StatusOr<AvroFile> file =
      ReadAvroFile(Container(schema, 1, datum.bytes()));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->records.at(0), Json::parse(R"({"a": {"inner": null},
                            "b": {"inner": {"s": "hello"}}})"));
}

TEST(AvroReaderTest, IllTypedSchemaMembersAreDataLossNotExceptions) {
  // A name of another type only loses the name: the record still decodes.
  absl::StatusOr<AvroFile> nameless = ReadAvroFile(Container(
      Json::parse(R"({"type": "record", "name": 5, "fields": []})"), 1, ""));
  ASSERT_TRUE(nameless.ok()) << nameless.status();
  EXPECT_EQ(nameless->records.at(0), Json::object());
  for (const char* schema : {
           R"({"type": "record", "name": "r"})",
           R"({"type": "record", "name": "r", "fields": "f"})",
           R"({"type": "record", "name": "r", "fields": [1]})",
           R"({"type": "record", "name": "r", "fields": [{"name": "f"}]})",
           R"({"type": "fixed", "name": "f", "size": "4"})",
           R"({"type": "enum", "name": "e", "symbols": "ab"})",
           R"({"type": "array"})",
           R"({"type": "map", "items": "int"})",
       }) {
    absl::StatusOr<AvroFile> file =
        ReadAvroFile(Container(Json::parse(schema), 1, std::string(8, '\0')));
    EXPECT_EQ(file.status().code(), absl::StatusCode::kDataLoss) << schema;
    EXPECT_THAT(file.status().message(), HasSubstr("not a valid Avro file"))
        << schema;
  }
}

}  // namespace
}  // namespace gcpstream::iceberg
