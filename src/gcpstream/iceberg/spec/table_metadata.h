#ifndef GCPSTREAM_ICEBERG_SPEC_TABLE_METADATA_H_
#define GCPSTREAM_ICEBERG_SPEC_TABLE_METADATA_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/iceberg/spec/schema.h"

namespace gcpstream::iceberg {

// A partition field: `transform` of the column `source_id` ("identity",
// "bucket[16]", "day", "truncate[4]", ...).
struct PartitionField {
  int32_t source_id = 0;
  int32_t field_id = 0;
  std::string name;
  std::string transform;
  friend bool operator==(const PartitionField&,
                         const PartitionField&) = default;
};

struct PartitionSpec {
  int32_t spec_id = 0;
  std::vector<PartitionField> fields;
  friend bool operator==(const PartitionSpec&, const PartitionSpec&) = default;
};

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;
  // `operation` ("append") and the counts Iceberg's writers record, as
  // strings.
  std::map<std::string, std::string> summary;
  int32_t schema_id = 0;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
  friend bool operator==(const SnapshotLogEntry&,
                         const SnapshotLogEntry&) = default;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
  friend bool operator==(const MetadataLogEntry&,
                         const MetadataLogEntry&) = default;
};

// An Iceberg table's metadata file (format v2): what a catalog commit
// replaces as a whole.
struct TableMetadata {
  std::string table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<Schema> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpec> partition_specs;
  int32_t default_spec_id = 0;
  // 999 when no partition field was ever assigned (ids start at 1000).
  int32_t last_partition_id = 999;
  std::map<std::string, std::string> properties;
  std::optional<int64_t> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  // The file as read, so that fields this model does not hold (other
  // branches and tags, sort orders, statistics, ...) survive a rewrite.
  nlohmann::ordered_json read_json;

  const Schema* CurrentSchema() const;
  friend bool operator==(const TableMetadata&, const TableMetadata&) = default;
};

// A new, empty table: `schema` becomes schema 0, the unpartitioned spec
// and the unsorted order are the defaults.
TableMetadata NewTableMetadata(std::string table_uuid, std::string location,
                               Schema schema, int32_t last_column_id,
                               std::map<std::string, std::string> properties,
                               int64_t now_ms);

// The metadata file's JSON (spec "Table Metadata Fields", format v2): the
// `main` branch points at the current snapshot; v1-only fields are left
// out. Fields of `read_json` this model does not hold are kept as read.
std::string TableMetadataToJson(const TableMetadata& metadata);

// A snapshot as metadata files and REST commits spell it.
nlohmann::ordered_json SnapshotToJson(const Snapshot& snapshot);

// Reads a metadata file. Format v2 only (Unimplemented naming the version
// otherwise); DataLoss naming the field when it is malformed.
absl::StatusOr<TableMetadata> TableMetadataFromJson(absl::string_view json);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_SPEC_TABLE_METADATA_H_
