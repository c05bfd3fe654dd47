#include "gcpstream/iceberg/table_metadata.h"

#include <utility>

#include <nlohmann/json.hpp>

namespace gcpstream::iceberg {
namespace {

using Json = nlohmann::ordered_json;

Json SpecJson(const PartitionSpec& spec) {
  Json fields = Json::array();
  for (const PartitionField& field : spec.fields) {
    fields.push_back(Json{{"name", field.name},
                          {"transform", field.transform},
                          {"source-id", field.source_id},
                          {"field-id", field.field_id}});
  }
  return Json{{"spec-id", spec.spec_id}, {"fields", std::move(fields)}};
}

Json SnapshotJson(const Snapshot& snapshot) {
  Json out{{"snapshot-id", snapshot.snapshot_id}};
  if (snapshot.parent_snapshot_id.has_value()) {
    out["parent-snapshot-id"] = *snapshot.parent_snapshot_id;
  }
  out["sequence-number"] = snapshot.sequence_number;
  out["timestamp-ms"] = snapshot.timestamp_ms;
  out["manifest-list"] = snapshot.manifest_list;
  Json summary = Json::object();
  for (const auto& [key, value] : snapshot.summary) summary[key] = value;
  out["summary"] = std::move(summary);
  out["schema-id"] = snapshot.schema_id;
  return out;
}

}  // namespace

const Schema* TableMetadata::CurrentSchema() const {
  for (const Schema& schema : schemas) {
    if (schema.schema_id == current_schema_id) return &schema;
  }
  return nullptr;
}

TableMetadata NewTableMetadata(std::string table_uuid, std::string location,
                               Schema schema, int32_t last_column_id,
                               std::map<std::string, std::string> properties,
                               int64_t now_ms) {
  TableMetadata metadata;
  metadata.table_uuid = std::move(table_uuid);
  metadata.location = std::move(location);
  metadata.last_updated_ms = now_ms;
  metadata.last_column_id = last_column_id;
  schema.schema_id = 0;
  metadata.schemas.push_back(std::move(schema));
  metadata.partition_specs.emplace_back();
  metadata.properties = std::move(properties);
  return metadata;
}

std::string TableMetadataToJson(const TableMetadata& metadata) {
  Json out{{"format-version", 2},
           {"table-uuid", metadata.table_uuid},
           {"location", metadata.location},
           {"last-sequence-number", metadata.last_sequence_number},
           {"last-updated-ms", metadata.last_updated_ms},
           {"last-column-id", metadata.last_column_id}};
  Json schemas = Json::array();
  for (const Schema& schema : metadata.schemas) {
    schemas.push_back(SchemaJson(schema));
  }
  out["schemas"] = std::move(schemas);
  out["current-schema-id"] = metadata.current_schema_id;
  Json specs = Json::array();
  for (const PartitionSpec& spec : metadata.partition_specs) {
    specs.push_back(SpecJson(spec));
  }
  out["partition-specs"] = std::move(specs);
  out["default-spec-id"] = metadata.default_spec_id;
  out["last-partition-id"] = metadata.last_partition_id;
  // Add-files never sorts: the one unsorted order.
  out["sort-orders"] =
      Json::array({Json{{"order-id", 0}, {"fields", Json::array()}}});
  out["default-sort-order-id"] = 0;
  Json properties = Json::object();
  for (const auto& [key, value] : metadata.properties) properties[key] = value;
  out["properties"] = std::move(properties);
  if (metadata.current_snapshot_id.has_value()) {
    out["current-snapshot-id"] = *metadata.current_snapshot_id;
    out["refs"] =
        Json{{"main", Json{{"snapshot-id", *metadata.current_snapshot_id},
                           {"type", "branch"}}}};
  } else {
    out["refs"] = Json::object();
  }
  Json snapshots = Json::array();
  for (const Snapshot& snapshot : metadata.snapshots) {
    snapshots.push_back(SnapshotJson(snapshot));
  }
  out["snapshots"] = std::move(snapshots);
  Json snapshot_log = Json::array();
  for (const SnapshotLogEntry& entry : metadata.snapshot_log) {
    snapshot_log.push_back(Json{{"timestamp-ms", entry.timestamp_ms},
                                {"snapshot-id", entry.snapshot_id}});
  }
  out["snapshot-log"] = std::move(snapshot_log);
  Json metadata_log = Json::array();
  for (const MetadataLogEntry& entry : metadata.metadata_log) {
    metadata_log.push_back(Json{{"timestamp-ms", entry.timestamp_ms},
                                {"metadata-file", entry.metadata_file}});
  }
  out["metadata-log"] = std::move(metadata_log);
  return out.dump(2);
}

}  // namespace gcpstream::iceberg
