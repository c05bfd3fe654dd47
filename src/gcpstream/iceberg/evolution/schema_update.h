#ifndef GCPSTREAM_ICEBERG_EVOLUTION_SCHEMA_UPDATE_H_
#define GCPSTREAM_ICEBERG_EVOLUTION_SCHEMA_UPDATE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/spec/schema.h"

namespace gcpstream::iceberg {

// Iceberg's type promotions for v1/v2 tables: int to long, float to
// double, decimal(P, S) to decimal(P', S) with P' > P. Nothing else, and
// only between primitives.
bool IsPromotionAllowed(const Type& from, const Type& to);

// The highest field id in `schema` (0 when it has none).
int32_t HighestFieldId(const Schema& schema);

// Iceberg's union by name of `file` onto `base`, the schema change a file's
// columns ask for. Fields match by exact name at each level:
// - a file field the base lacks is appended, optional, with fresh ids from
//   `last_column_id` + 1 (inside it the file's optionality is kept);
// - a base field the file has as optional becomes optional (a union relaxes
//   but never tightens);
// - a primitive widens when the file's type is a promotion of the base's,
//   and is left alone when the base's is a promotion of the file's (a
//   narrower file is read by widening);
// - anything else different (string vs int, a struct vs a primitive, a
//   decimal scale) is refused: InvalidArgument "cannot change column type:
//   PATH: FROM -> TO".
// Base fields the file lacks are kept as they are. `last_column_id` is
// advanced past the ids given.
absl::StatusOr<Schema> UnionByName(const Schema& base, const Schema& file,
                                   int32_t& last_column_id);

// `schema` with the field at `path` optional: dotted names, through
// `element` of lists and `value` of maps (`items.element.sku`). NotFound
// when there is no such field.
absl::StatusOr<Schema> MakeOptional(const Schema& schema,
                                    const std::string& path);

// How a type reads in messages: "long", "decimal(9, 2)",
// "struct<lat: optional double>", "list<string>", "map<string, long>".
std::string DescribeType(const Type& type);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_EVOLUTION_SCHEMA_UPDATE_H_
