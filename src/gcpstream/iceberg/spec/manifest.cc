#include "gcpstream/iceberg/spec/manifest.h"

#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/avro/avro_container.h"
#include "gcpstream/iceberg/avro/avro_encoder.h"

namespace gcpstream::iceberg {
namespace {

// Iceberg's manifest schemas (spec "Manifests", format v2), with the field
// ids readers resolve fields by. Maps with int keys are arrays of key/value
// records, as the spec requires for non-string keys.
std::string IntMap(const std::string& name, int id, int key_id, int value_id,
                   const std::string& value_type) {
  return absl::StrCat(
      R"({"name":")", name, R"(","type":["null",{"type":"array","items":)",
      R"({"type":"record","name":"k)", key_id, "_v", value_id,
      R"(","fields":[{"name":"key","type":"int","field-id":)", key_id,
      R"(},{"name":"value","type":")", value_type, R"(","field-id":)", value_id,
      R"(}]},"logicalType":"map"}],"default":null,"field-id":)", id, "}");
}

// A partition value's Avro type (optional), by its Iceberg type.
std::string PartitionAvroType(const Type& type) {
  switch (type.kind) {
    case TypeKind::kBoolean:
      return R"("boolean")";
    case TypeKind::kInt:
      return R"("int")";
    case TypeKind::kDate:
      return R"({"type":"int","logicalType":"date"})";
    case TypeKind::kTime:
      return R"({"type":"long","logicalType":"time-micros"})";
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
      return absl::StrCat(
          R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":)",
          type.kind == TypeKind::kTimestampTz ? "true" : "false", "}");
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs:
      return absl::StrCat(
          R"({"type":"long","logicalType":"timestamp-nanos","adjust-to-utc":)",
          type.kind == TypeKind::kTimestampTzNs ? "true" : "false", "}");
    case TypeKind::kString:
      return R"("string")";
    case TypeKind::kBinary:
      return R"("bytes")";
    default:
      return R"("long")";
  }
}

std::string ManifestEntrySchema(const PartitionSpec& spec,
                                const std::vector<Type>& partition_types) {
  std::string partition_fields;
  for (size_t i = 0; i < spec.fields.size(); ++i) {
    absl::StrAppend(&partition_fields, i == 0 ? "" : ",", R"({"name":")",
                    spec.fields[i].name, R"(","type":["null",)",
                    PartitionAvroType(partition_types[i]),
                    R"(],"default":null,"field-id":)", spec.fields[i].field_id,
                    "}");
  }
  return absl::StrCat(
      R"({"type":"record","name":"manifest_entry","fields":[)",
      R"({"name":"status","type":"int","field-id":0},)",
      R"({"name":"snapshot_id","type":["null","long"],"default":null,)",
      R"("field-id":1},)",
      R"({"name":"sequence_number","type":["null","long"],"default":null,)",
      R"("field-id":3},)",
      R"({"name":"file_sequence_number","type":["null","long"],)",
      R"("default":null,"field-id":4},)",
      R"({"name":"data_file","field-id":2,"type":{"type":"record",)",
      R"("name":"r2","fields":[)",
      R"({"name":"content","type":"int","field-id":134},)",
      R"({"name":"file_path","type":"string","field-id":100},)",
      R"({"name":"file_format","type":"string","field-id":101},)",
      R"({"name":"partition","type":{"type":"record","name":"r102",)",
      R"("fields":[)", partition_fields, R"(]},"field-id":102},)",
      R"({"name":"record_count","type":"long","field-id":103},)",
      R"({"name":"file_size_in_bytes","type":"long","field-id":104},)",
      IntMap("column_sizes", 108, 117, 118, "long"), ",",
      IntMap("value_counts", 109, 119, 120, "long"), ",",
      IntMap("null_value_counts", 110, 121, 122, "long"), ",",
      IntMap("nan_value_counts", 137, 138, 139, "long"), ",",
      IntMap("lower_bounds", 125, 126, 127, "bytes"), ",",
      IntMap("upper_bounds", 128, 129, 130, "bytes"), ",",
      R"({"name":"key_metadata","type":["null","bytes"],"default":null,)",
      R"("field-id":131},)",
      R"({"name":"split_offsets","type":["null",{"type":"array",)",
      R"("items":"long","element-id":133}],"default":null,"field-id":132},)",
      R"({"name":"equality_ids","type":["null",{"type":"array",)",
      R"("items":"int","element-id":136}],"default":null,"field-id":135},)",
      R"({"name":"sort_order_id","type":["null","int"],"default":null,)",
      R"("field-id":140}]}}]})");
}

constexpr char kManifestFileSchema[] =
    R"({"type":"record","name":"manifest_file","fields":[)"
    R"({"name":"manifest_path","type":"string","field-id":500},)"
    R"({"name":"manifest_length","type":"long","field-id":501},)"
    R"({"name":"partition_spec_id","type":"int","field-id":502},)"
    R"({"name":"content","type":"int","field-id":517},)"
    R"({"name":"sequence_number","type":"long","field-id":515},)"
    R"({"name":"min_sequence_number","type":"long","field-id":516},)"
    R"({"name":"added_snapshot_id","type":"long","field-id":503},)"
    R"({"name":"added_files_count","type":"int","field-id":504},)"
    R"({"name":"existing_files_count","type":"int","field-id":505},)"
    R"({"name":"deleted_files_count","type":"int","field-id":506},)"
    R"({"name":"added_rows_count","type":"long","field-id":512},)"
    R"({"name":"existing_rows_count","type":"long","field-id":513},)"
    R"({"name":"deleted_rows_count","type":"long","field-id":514},)"
    R"({"name":"partitions","type":["null",{"type":"array","items":)"
    R"({"type":"record","name":"r508","fields":[)"
    R"({"name":"contains_null","type":"boolean","field-id":509},)"
    R"({"name":"contains_nan","type":["null","boolean"],"default":null,)"
    R"("field-id":518},)"
    R"({"name":"lower_bound","type":["null","bytes"],"default":null,)"
    R"("field-id":510},)"
    R"({"name":"upper_bound","type":["null","bytes"],"default":null,)"
    R"("field-id":511}]},"element-id":508}],"default":null,"field-id":507},)"
    R"({"name":"key_metadata","type":["null","bytes"],"default":null,)"
    R"("field-id":519}]})";

void OptionalLong(AvroEncoder& e, const std::optional<int64_t>& value) {
  if (!value.has_value()) {
    e.UnionBranch(0);
    return;
  }
  e.UnionBranch(1);
  e.Long(*value);
}

// An optional int-keyed map: absent when empty, as "not known".
template <typename V, typename EncodeValue>
void OptionalIntMap(AvroEncoder& e, const std::map<int32_t, V>& map,
                    EncodeValue encode_value) {
  if (map.empty()) {
    e.UnionBranch(0);
    return;
  }
  e.UnionBranch(1);
  e.BlockCount(static_cast<int64_t>(map.size()));
  for (const auto& [key, value] : map) {
    e.Int(key);
    encode_value(e, value);
  }
  e.EndBlocks();
}

void Count(AvroEncoder& e, int64_t value) { e.Long(value); }
void Bound(AvroEncoder& e, const std::string& value) { e.Bytes(value); }

void PartitionValue(AvroEncoder& e, const Type& type,
                    const std::optional<PartitionLiteral>& value) {
  if (!value.has_value()) {
    e.UnionBranch(0);
    return;
  }
  e.UnionBranch(1);
  if (const auto* b = std::get_if<bool>(&*value)) {
    e.Boolean(*b);
  } else if (const auto* i = std::get_if<int64_t>(&*value)) {
    if (type.kind == TypeKind::kInt || type.kind == TypeKind::kDate) {
      e.Int(static_cast<int32_t>(*i));
    } else {
      e.Long(*i);
    }
  } else {
    e.Bytes(std::get<std::string>(*value));
  }
}

std::string EncodeEntry(const ManifestEntry& entry,
                        const std::vector<Type>& partition_types) {
  AvroEncoder e;
  e.Int(static_cast<int32_t>(entry.status));
  OptionalLong(e, entry.snapshot_id);
  OptionalLong(e, entry.sequence_number);
  OptionalLong(e, entry.file_sequence_number);
  const DataFile& file = entry.data_file;
  e.Int(0);  // Content: data.
  e.String(file.file_path);
  e.String(file.file_format);
  for (size_t i = 0; i < partition_types.size(); ++i) {
    PartitionValue(e, partition_types[i], file.partition[i]);
  }
  e.Long(file.record_count);
  e.Long(file.file_size_in_bytes);
  OptionalIntMap(e, file.column_sizes, Count);
  OptionalIntMap(e, file.value_counts, Count);
  OptionalIntMap(e, file.null_value_counts, Count);
  e.UnionBranch(0);  // NaN counts: a footer cannot tell them.
  OptionalIntMap(e, file.lower_bounds, Bound);
  OptionalIntMap(e, file.upper_bounds, Bound);
  e.UnionBranch(0);  // No key metadata.
  if (file.split_offsets.empty()) {
    e.UnionBranch(0);
  } else {
    e.UnionBranch(1);
    e.BlockCount(static_cast<int64_t>(file.split_offsets.size()));
    for (int64_t offset : file.split_offsets) e.Long(offset);
    e.EndBlocks();
  }
  e.UnionBranch(0);  // No equality ids: a data file.
  e.UnionBranch(0);  // Sort order unknown.
  return e.Take();
}

}  // namespace

absl::StatusOr<std::string> WriteManifest(
    const Schema& schema, const PartitionSpec& spec,
    const std::vector<ManifestEntry>& entries) {
  std::vector<Type> partition_types;
  for (const PartitionField& field : spec.fields) {
    absl::StatusOr<Type> type = PartitionResultType(field, schema);
    if (!type.ok()) return type.status();
    partition_types.push_back(*std::move(type));
  }
  for (const ManifestEntry& entry : entries) {
    if (entry.data_file.partition.size() != spec.fields.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          entry.data_file.file_path, ": ", entry.data_file.partition.size(),
          " partition values for a spec of ", spec.fields.size(), " fields"));
    }
  }
  AvroContainerWriter writer(ManifestEntrySchema(spec, partition_types),
                             {{"schema", SchemaToJson(schema)},
                              {"schema-id", absl::StrCat(schema.schema_id)},
                              {"partition-spec", PartitionSpecFieldsJson(spec)},
                              {"partition-spec-id", absl::StrCat(spec.spec_id)},
                              {"format-version", "2"},
                              {"content", "data"}},
                             AvroContainerWriter::RandomSyncMarker());
  for (const ManifestEntry& entry : entries) {
    writer.Add(EncodeEntry(entry, partition_types));
  }
  return writer.Finish();
}

std::string WriteManifestList(int64_t snapshot_id,
                              std::optional<int64_t> parent_snapshot_id,
                              int64_t sequence_number,
                              const std::vector<ManifestFile>& manifests) {
  AvroContainerWriter writer(
      kManifestFileSchema,
      {{"snapshot-id", absl::StrCat(snapshot_id)},
       // Iceberg's own writer spells a missing parent "null".
       {"parent-snapshot-id", parent_snapshot_id.has_value()
                                  ? absl::StrCat(*parent_snapshot_id)
                                  : "null"},
       {"sequence-number", absl::StrCat(sequence_number)},
       {"format-version", "2"}},
      AvroContainerWriter::RandomSyncMarker());
  for (const ManifestFile& m : manifests) {
    AvroEncoder e;
    e.String(m.manifest_path);
    e.Long(m.manifest_length);
    e.Int(m.partition_spec_id);
    e.Int(m.content);
    e.Long(m.sequence_number);
    e.Long(m.min_sequence_number);
    e.Long(m.added_snapshot_id);
    e.Int(m.added_files_count);
    e.Int(m.existing_files_count);
    e.Int(m.deleted_files_count);
    e.Long(m.added_rows_count);
    e.Long(m.existing_rows_count);
    e.Long(m.deleted_rows_count);
    // No field summaries (optional): readers then prune by the entries'
    // partition values.
    e.UnionBranch(0);
    e.UnionBranch(0);  // No key metadata.
    writer.Add(e.bytes());
  }
  return writer.Finish();
}

}  // namespace gcpstream::iceberg
