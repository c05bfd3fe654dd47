#ifndef GCPSTREAM_ICEBERG_SPEC_SCHEMA_H_
#define GCPSTREAM_ICEBERG_SPEC_SCHEMA_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace gcpstream::iceberg {

// Iceberg's types (format v2, plus the v3 nanosecond timestamps and variant
// that Parquet files may carry).
enum class TypeKind {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,
  kTime,
  kTimestamp,
  kTimestampTz,
  kTimestampNs,
  kTimestampTzNs,
  kString,
  kUuid,
  kFixed,
  kBinary,
  kVariant,
  kStruct,
  kList,
  kMap,
};

struct Field;

// A type is a value: nested types own their fields. A list has one field
// (`element`), a map two (`key`, `value`), a struct any number.
struct Type {
  TypeKind kind = TypeKind::kBoolean;
  int32_t precision = 0;  // kDecimal.
  int32_t scale = 0;      // kDecimal.
  int32_t length = 0;     // kFixed.
  std::vector<Field> fields;

  bool is_nested() const {
    return kind == TypeKind::kStruct || kind == TypeKind::kList ||
           kind == TypeKind::kMap;
  }
  friend bool operator==(const Type&, const Type&) = default;
};

struct Field {
  int32_t id = 0;
  std::string name;
  bool required = false;
  Type type;
  std::string doc;
  friend bool operator==(const Field&, const Field&) = default;
};

Type Primitive(TypeKind kind);
Type Decimal(int32_t precision, int32_t scale);
Type Fixed(int32_t length);
Type Struct(std::vector<Field> fields);
Type List(Field element);
Type Map(Field key, Field value);

// A table schema: the fields of its top-level struct.
struct Schema {
  int32_t schema_id = 0;
  std::vector<Field> fields;
  friend bool operator==(const Schema&, const Schema&) = default;
};

// The type as Iceberg's JSON spells a primitive ("long", "decimal(9, 2)",
// "fixed[16]", "timestamptz"); for nested types their kind ("struct").
std::string TypeName(const Type& type);

// The schema in Iceberg's JSON form (spec "Schemas"), with its schema-id;
// fields in their order, docs only where set.
nlohmann::ordered_json SchemaJson(const Schema& schema);
// The same, compact.
std::string SchemaToJson(const Schema& schema);

// A schema from Iceberg's JSON form (as written by any Iceberg writer:
// "decimal(9,2)" and "decimal( 9, 2 )" alike). DataLoss naming what is
// malformed or unknown.
absl::StatusOr<Schema> SchemaFromJson(const nlohmann::ordered_json& json);

// Renumbers `fields` and everything they nest from `last_id` + 1, each
// struct's fields before what they nest (as Iceberg assigns fresh ids), and
// leaves `last_id` at the last id given.
void AssignFreshIds(std::vector<Field>& fields, int32_t& last_id);

// The canonical form used to group files by schema: struct fields sorted by
// name (byte order, so upper case first) at every level, then every id
// renumbered from 1, each struct's fields before anything nested in them
// (as Iceberg assigns fresh ids). Names, types, optionality and docs are
// kept; two schemas that differ only in field order or ids have the same
// canonical form.
Schema Canonical(const Schema& schema);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_SPEC_SCHEMA_H_
