#include "gcpstream/iceberg/spec/table_metadata.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

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

}  // namespace

Json SnapshotToJson(const Snapshot& snapshot) {
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

namespace {

absl::Status MalformedMetadata(absl::string_view what) {
  return absl::DataLossError(
      absl::StrCat("malformed Iceberg table metadata: ", what));
}

absl::StatusOr<TableMetadata> Parse(const Json& json) {
  TableMetadata out;
  const int version = json.at("format-version").get<int>();
  if (version != 2) {
    return absl::UnimplementedError(absl::StrCat(
        "Iceberg table format version ", version,
        " is not supported; add-files writes format version 2 tables"));
  }
  out.table_uuid = json.at("table-uuid").get<std::string>();
  out.location = json.at("location").get<std::string>();
  out.last_sequence_number = json.at("last-sequence-number").get<int64_t>();
  out.last_updated_ms = json.at("last-updated-ms").get<int64_t>();
  out.last_column_id = json.at("last-column-id").get<int32_t>();
  for (const Json& schema : json.at("schemas")) {
    absl::StatusOr<Schema> parsed = SchemaFromJson(schema);
    if (!parsed.ok()) return parsed.status();
    out.schemas.push_back(*std::move(parsed));
  }
  out.current_schema_id = json.at("current-schema-id").get<int32_t>();
  if (out.CurrentSchema() == nullptr) {
    return MalformedMetadata(absl::StrCat(
        "no schema has the current schema id ", out.current_schema_id));
  }
  for (const Json& spec : json.at("partition-specs")) {
    PartitionSpec parsed;
    parsed.spec_id = spec.at("spec-id").get<int32_t>();
    for (const Json& field : spec.at("fields")) {
      parsed.fields.push_back(
          PartitionField{field.at("source-id").get<int32_t>(),
                         field.at("field-id").get<int32_t>(),
                         field.at("name").get<std::string>(),
                         field.at("transform").get<std::string>()});
    }
    out.partition_specs.push_back(std::move(parsed));
  }
  out.default_spec_id = json.at("default-spec-id").get<int32_t>();
  out.last_partition_id = json.at("last-partition-id").get<int32_t>();
  if (json.contains("properties")) {
    for (const auto& [key, value] : json["properties"].items()) {
      out.properties[key] = value.get<std::string>();
    }
  }
  // Java wrote -1 for "no snapshot" in v1/v2 files.
  if (json.contains("current-snapshot-id") &&
      !json["current-snapshot-id"].is_null() &&
      json["current-snapshot-id"].get<int64_t>() != -1) {
    out.current_snapshot_id = json["current-snapshot-id"].get<int64_t>();
  }
  for (const Json& snapshot : json.value("snapshots", Json::array())) {
    Snapshot parsed;
    parsed.snapshot_id = snapshot.at("snapshot-id").get<int64_t>();
    if (snapshot.contains("parent-snapshot-id") &&
        !snapshot["parent-snapshot-id"].is_null()) {
      parsed.parent_snapshot_id = snapshot["parent-snapshot-id"].get<int64_t>();
    }
    parsed.sequence_number = snapshot.value("sequence-number", int64_t{0});
    parsed.timestamp_ms = snapshot.at("timestamp-ms").get<int64_t>();
    parsed.manifest_list = snapshot.at("manifest-list").get<std::string>();
    for (const auto& [key, value] : snapshot.at("summary").items()) {
      parsed.summary[key] = value.get<std::string>();
    }
    parsed.schema_id = snapshot.value("schema-id", out.current_schema_id);
    out.snapshots.push_back(std::move(parsed));
  }
  for (const Json& entry : json.value("snapshot-log", Json::array())) {
    out.snapshot_log.push_back({entry.at("timestamp-ms").get<int64_t>(),
                                entry.at("snapshot-id").get<int64_t>()});
  }
  for (const Json& entry : json.value("metadata-log", Json::array())) {
    out.metadata_log.push_back({entry.at("timestamp-ms").get<int64_t>(),
                                entry.at("metadata-file").get<std::string>()});
  }
  out.read_json = json;
  return out;
}

}  // namespace

absl::StatusOr<TableMetadata> TableMetadataFromJson(absl::string_view json) {
  const Json parsed = Json::parse(json.begin(), json.end(), nullptr,
                                  /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return MalformedMetadata("not a JSON object");
  }
  try {
    return Parse(parsed);
  } catch (const nlohmann::json::exception& error) {
    return MalformedMetadata(error.what());
  }
}

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
  // What was read first: fields this model does not hold stay as they were.
  Json out =
      metadata.read_json.is_object() ? metadata.read_json : Json::object();
  out["format-version"] = 2;
  out["table-uuid"] = metadata.table_uuid;
  out["location"] = metadata.location;
  out["last-sequence-number"] = metadata.last_sequence_number;
  out["last-updated-ms"] = metadata.last_updated_ms;
  out["last-column-id"] = metadata.last_column_id;
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
  if (!out.contains("sort-orders")) {
    // Add-files never sorts: the one unsorted order.
    out["sort-orders"] =
        Json::array({Json{{"order-id", 0}, {"fields", Json::array()}}});
    out["default-sort-order-id"] = 0;
  }
  Json properties = Json::object();
  for (const auto& [key, value] : metadata.properties) properties[key] = value;
  out["properties"] = std::move(properties);
  // Other branches and tags are kept; `main` is the current snapshot.
  Json refs = out.contains("refs") && out["refs"].is_object() ? out["refs"]
                                                              : Json::object();
  if (metadata.current_snapshot_id.has_value()) {
    out["current-snapshot-id"] = *metadata.current_snapshot_id;
    refs["main"] = Json{{"snapshot-id", *metadata.current_snapshot_id},
                        {"type", "branch"}};
  } else {
    out.erase("current-snapshot-id");
    refs.erase("main");
  }
  out["refs"] = std::move(refs);
  Json snapshots = Json::array();
  for (const Snapshot& snapshot : metadata.snapshots) {
    snapshots.push_back(SnapshotToJson(snapshot));
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
