#ifndef GCPSTREAM_BIGQUERY_TABLE_SCHEMA_H_
#define GCPSTREAM_BIGQUERY_TABLE_SCHEMA_H_

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gcpstream::bigquery {

// A column's type, by its GoogleSQL name; the tables API also spells some
// the legacy way (INTEGER, FLOAT, BOOLEAN, RECORD), which parse the same.
enum class FieldType {
  kInt64,
  kFloat64,
  kNumeric,
  kBigNumeric,
  kBool,
  kString,
  kBytes,
  kDate,
  kDateTime,
  kTime,
  kTimestamp,
  kJson,
  kGeography,
  kRecord,
};

enum class FieldMode { kNullable, kRequired, kRepeated };

// "INT64", "RECORD", ...: the GoogleSQL name (RECORD for structs, as the
// tables API answers).
absl::string_view FieldTypeName(FieldType type);
absl::string_view FieldModeName(FieldMode mode);
// Case-insensitive; both spellings of each type. The error lists them.
absl::StatusOr<FieldType> ParseFieldType(absl::string_view name);
absl::StatusOr<FieldMode> ParseFieldMode(absl::string_view name);

struct FieldSchema {
  std::string name;
  FieldType type = FieldType::kString;
  FieldMode mode = FieldMode::kNullable;
  std::vector<FieldSchema> fields{};  // RECORD only
  std::string description{};
};

// A table's columns, as the tables API and the Storage Write API describe
// them.
struct TableSchema {
  std::vector<FieldSchema> fields;

  // The top-level column named `name` (case-insensitive, as BigQuery
  // compares column names), or null.
  const FieldSchema* Find(absl::string_view name) const;
};

// From the tables API's `schema` object ({"fields": [...]}). Refuses an
// unknown type or mode, a RECORD without fields, an unnamed column, and
// two columns whose names differ only in case, naming the column.
absl::StatusOr<TableSchema> TableSchemaFromJson(const nlohmann::json& schema);
// The tables API's `schema` object.
nlohmann::json TableSchemaToJson(const TableSchema& schema);

// Whether `next` only adds NULLABLE (or REPEATED) columns to `current` or
// relaxes REQUIRED ones to NULLABLE, at any depth: the changes BigQuery
// allows without rewriting the table. The error names the first column
// changed otherwise.
absl::Status CheckCompatibleChange(const TableSchema& current,
                                   const TableSchema& next);

// Which changes a sink may make to a table whose schema lags behind its own
// (option schema-update-options).
struct SchemaUpdates {
  // Columns of `wanted` the table lacks, at any depth, added (NULLABLE or
  // REPEATED ones; a REQUIRED one cannot be added and is an error).
  bool add_fields = false;
  // REQUIRED columns that `wanted` has NULLABLE, relaxed.
  bool relax_fields = false;
};

// `current` with the changes `updates` allows toward `wanted`, or nullopt
// when there are none. Columns only `current` has are kept; type changes
// are not made (writes then refuse the values). FailedPrecondition names a
// REQUIRED column that would have to be added.
absl::StatusOr<std::optional<TableSchema>> UpdatedSchema(
    const TableSchema& current, const TableSchema& wanted,
    const SchemaUpdates& updates);

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_TABLE_SCHEMA_H_
