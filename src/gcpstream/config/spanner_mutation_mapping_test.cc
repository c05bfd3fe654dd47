// The wire encoder of pipeline files against the typed path it shortcuts:
// whatever it encodes must be byte for byte what SchemaCatalog::Encode makes
// of ToMutation's result, and it must decline whatever that path refuses.

#include "gcpstream/config/spanner_mutation_mapping.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace gcpstream::config {
namespace {

using ::google::spanner::v1::ResultSet;
using spanner::Operation;

void AddRow(ResultSet& result, const std::vector<std::string>& cells) {
  auto& row = *result.add_rows();
  for (const std::string& cell : cells) {
    row.add_values()->set_string_value(cell);
  }
}

// One column of each type a field can be written to.
const std::vector<std::pair<std::string, std::string>>& Columns() {
  static const auto* const kColumns =
      new std::vector<std::pair<std::string, std::string>>{
          {"Id", "INT64"},        {"Name", "STRING(MAX)"},
          {"Short", "STRING(4)"}, {"Score", "FLOAT64"},
          {"Ratio", "FLOAT32"},   {"Price", "NUMERIC"},
          {"Day", "DATE"},        {"At", "TIMESTAMP"},
          {"Doc", "JSON"},        {"Blob", "BYTES(MAX)"},
          {"Flag", "BOOL"},       {"Tags", "ARRAY<INT64>"},
          {"Odd", "PROTO<x.Y>"}};
  return *kColumns;
}

spanner::SchemaCatalog Catalog() {
  ResultSet columns;
  ResultSet indexes;
  for (const auto& [column, type] : Columns()) {
    AddRow(columns, {"", "Things", column, type, "YES"});
  }
  AddRow(indexes, {"", "Things", "PRIMARY_KEY", "PRIMARY_KEY", "Id", "1"});
  AddRow(indexes, {"", "Things", "ThingsByName", "INDEX", "Name", "1"});
  auto catalog = spanner::SchemaCatalog::FromResults(
      spanner::Dialect::kGoogleSql, columns, indexes);
  EXPECT_TRUE(catalog.ok()) << catalog.status();
  return *std::move(catalog);
}

MutationMapping Mapping(absl::string_view table, Operation operation,
                        const std::vector<std::string>& columns) {
  MutationMapping mapping{.table = *DestinationTemplate::Parse(table),
                          .operation = operation};
  // Field "id" feeds the first column (the key), "v" the others.
  for (size_t i = 0; i < columns.size(); ++i) {
    mapping.columns.emplace_back(columns[i],
                                 *FieldPath::Parse(i == 0 ? "id" : "v"));
  }
  return mapping;
}

enum class Path { kWire, kTyped };

// Encodes `record` both ways; fails the test when they disagree, and says
// which path the record took.
Path Check(const MutationMapping& mapping, absl::string_view line) {
  static const spanner::SchemaCatalog& catalog = *new auto(Catalog());
  google::protobuf::Arena arena;
  absl::StatusOr<json::JsonRecord> record = json::JsonRecord::Parse(line);
  EXPECT_TRUE(record.ok()) << line;
  const WriterContext context;
  std::optional<spanner::EncodedMutation> wire =
      EncodeWire(mapping, *record, context, catalog, arena);
  auto typed = ToMutation(mapping, *record, context);
  if (!wire.has_value()) return Path::kTyped;
  EXPECT_TRUE(typed.ok() && typed->has_value())
      << line << ": encoded directly, refused typed: " << typed.status();
  if (!typed.ok() || !typed->has_value()) return Path::kWire;
  absl::StatusOr<spanner::EncodedMutation> expected =
      catalog.Encode(**typed, arena);
  EXPECT_TRUE(expected.ok())
      << line << ": encoded directly, refused typed: " << expected.status();
  if (!expected.ok()) return Path::kWire;
  EXPECT_EQ(wire->proto->SerializeAsString(),
            expected->proto->SerializeAsString())
      << line << "\nwire:  " << wire->proto->ShortDebugString()
      << "\ntyped: " << expected->proto->ShortDebugString();
  EXPECT_EQ(wire->cells, expected->cells) << line;
  EXPECT_EQ(wire->bytes, expected->bytes) << line;
  EXPECT_EQ(wire->table, expected->table) << line;
  return Path::kWire;
}

struct Case {
  std::string column;
  std::string value;  // JSON text of field "v".
  Path path;
};

TEST(SpannerMutationMappingTest, WireEncodingIsTheTypedEncoding) {
  const std::vector<Case> cases = {
      {"Name", R"("plain")", Path::kWire},
      {"Name", R"("tab\tquote\"é\u00e9 \ud83d\ude00")", Path::kWire},
      {"Name", R"("")", Path::kWire},
      {"Name", "null", Path::kWire},
      {"Name", "12", Path::kTyped},  // INT64 into STRING: refused.
      {"Short", R"("longer than four")", Path::kWire},  // Length: service's.
      {"Score", "1.5", Path::kWire},
      {"Score", "-0.0", Path::kWire},
      {"Score", "1e308", Path::kWire},
      {"Score", "7", Path::kWire},  // INT64 widens to FLOAT64.
      {"Score", R"("1.5")", Path::kTyped},
      {"Ratio", "2", Path::kWire},
      {"Ratio", "2.5", Path::kTyped},  // FLOAT64 does not narrow.
      {"Price", R"("-12.50")", Path::kWire},
      {"Price", "12", Path::kWire},
      {"Price", R"("12.")", Path::kTyped},
      {"Price", R"("1e3")", Path::kTyped},
      {"Day", R"("2026-12-07")", Path::kWire},
      {"Day", R"("2026-13-07")", Path::kTyped},
      {"At", R"("2026-12-07T10:11:12.5+01:00")", Path::kWire},
      {"At", R"("2026-12-07T10:11:12Z")", Path::kWire},
      {"At", R"("yesterday")", Path::kTyped},
      {"Doc", R"({"a": [1, {"b": null}], "c": "d"})", Path::kWire},
      {"Doc", R"("{\"a\":1}")", Path::kWire},
      {"Doc", R"("{not json")", Path::kTyped},
      {"Doc", R"([1, 2])", Path::kTyped},  // Arrays take the typed path.
      {"Blob", R"("aGVsbG8=")", Path::kWire},
      {"Blob", R"("not base64!")", Path::kTyped},
      {"Flag", "true", Path::kWire},
      {"Flag", "false", Path::kWire},
      {"Flag", R"("true")", Path::kTyped},
      {"Tags", "[1, 2, 3]", Path::kTyped},
      {"Tags", "null", Path::kWire},
      {"Tags", R"("1")", Path::kTyped},
      {"Odd", R"("x")", Path::kTyped},
      {"Odd", "null", Path::kTyped},
      {"Id", "18446744073709551615", Path::kTyped},  // Beyond INT64.
      {"Missing", R"("x")", Path::kTyped},           // No such column.
  };
  for (const Operation operation :
       {Operation::kInsert, Operation::kUpdate, Operation::kInsertOrUpdate,
        Operation::kReplace}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(absl::StrCat(spanner::OperationName(operation), " ",
                                c.column, " <- ", c.value));
      const std::string line =
          absl::StrCat(R"({"id": 7, "v": )", c.value, R"(, "pad": "x"})");
      EXPECT_EQ(Check(Mapping("Things", operation, {"Id", c.column}), line),
                c.path);
    }
  }
}

TEST(SpannerMutationMappingTest, TablesAndRecordsThatDecline) {
  const std::string line = R"({"id": 7, "v": "x", "t": "Things"})";
  // Table names match case-insensitively and may come from the record.
  EXPECT_EQ(Check(Mapping("things", Operation::kInsert, {"Id", "Name"}), line),
            Path::kWire);
  EXPECT_EQ(Check(Mapping("{t}", Operation::kInsert, {"Id", "Name"}), line),
            Path::kWire);
  EXPECT_EQ(Check(Mapping("{nope}", Operation::kInsert, {"Id"}), line),
            Path::kTyped);
  EXPECT_EQ(Check(Mapping("Nothing", Operation::kInsert, {"Id"}), line),
            Path::kTyped);
  // Deletes always take the typed path.
  EXPECT_EQ(Check(Mapping("Things", Operation::kDelete, {"Id"}), line),
            Path::kTyped);
  // A missing field, a record whose field is not an object on the way.
  MutationMapping nested = Mapping("Things", Operation::kInsert, {"Id"});
  nested.columns.emplace_back("Name", *FieldPath::Parse("v.deeper"));
  EXPECT_EQ(Check(nested, line), Path::kTyped);
  EXPECT_EQ(Check(Mapping("Things", Operation::kInsert, {"Id", "Name"}),
                  R"({"id": 7})"),
            Path::kTyped);
}

}  // namespace
}  // namespace gcpstream::config
