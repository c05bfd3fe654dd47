#include "gcpstream/iceberg/catalog/catalog.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gcpstream::iceberg {
namespace {

// The id of a schema in `schemas` with `fields`, or the highest id + 1.
int32_t SchemaIdFor(const std::vector<Schema>& schemas,
                    const std::vector<Field>& fields, bool& exists) {
  int32_t highest = -1;
  for (const Schema& schema : schemas) {
    if (schema.fields == fields) {
      exists = true;
      return schema.schema_id;
    }
    highest = std::max(highest, schema.schema_id);
  }
  exists = false;
  return highest + 1;
}

}  // namespace

std::string TableName(const TableIdentifier& table) {
  if (table.namespace_levels.empty()) return table.name;
  return absl::StrCat(absl::StrJoin(table.namespace_levels, "."), ".",
                      table.name);
}

TableMetadata ApplyTableChange(const TableMetadata& base,
                               const TableChange& change, int64_t now_ms) {
  TableMetadata next = base;
  next.last_updated_ms = std::max(now_ms, base.last_updated_ms);
  if (change.schema.has_value()) {
    bool exists = false;
    Schema schema = *change.schema;
    schema.schema_id = SchemaIdFor(next.schemas, schema.fields, exists);
    if (!exists) next.schemas.push_back(schema);
    next.current_schema_id = schema.schema_id;
    next.last_column_id = std::max(next.last_column_id, change.last_column_id);
  }
  for (const auto& [key, value] : change.set_properties) {
    next.properties[key] = value;
  }
  if (change.snapshot.has_value()) {
    next.snapshots.push_back(*change.snapshot);
    next.current_snapshot_id = change.snapshot->snapshot_id;
    next.last_sequence_number = change.snapshot->sequence_number;
    next.snapshot_log.push_back(
        {change.snapshot->timestamp_ms, change.snapshot->snapshot_id});
  }
  return next;
}

}  // namespace gcpstream::iceberg
