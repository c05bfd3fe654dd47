#ifndef GCPSTREAM_ICEBERG_SPEC_MANIFEST_H_
#define GCPSTREAM_ICEBERG_SPEC_MANIFEST_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/spec/partition.h"
#include "gcpstream/iceberg/spec/schema.h"
#include "gcpstream/iceberg/spec/table_metadata.h"

namespace gcpstream::iceberg {

// A data file as a manifest records it (format v2, data content). Metrics
// are keyed by field id; an absent map means "not known", never zero.
struct DataFile {
  std::string file_path;
  std::string file_format = "PARQUET";
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int32_t, int64_t> column_sizes;
  std::map<int32_t, int64_t> value_counts;
  std::map<int32_t, int64_t> null_value_counts;
  // Single-value serialized bounds (spec "Binary single-value
  // serialization").
  std::map<int32_t, std::string> lower_bounds;
  std::map<int32_t, std::string> upper_bounds;
  // Row-group start offsets, ascending.
  std::vector<int64_t> split_offsets;
  // One value per field of the manifest's partition spec.
  PartitionTuple partition;
};

enum class EntryStatus : int32_t { kExisting = 0, kAdded = 1, kDeleted = 2 };

// An added entry leaves its snapshot id and sequence numbers unset: readers
// inherit them from the manifest list, so a manifest is reusable when a
// commit is retried.
struct ManifestEntry {
  EntryStatus status = EntryStatus::kAdded;
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> sequence_number;
  std::optional<int64_t> file_sequence_number;
  DataFile data_file;
};

// A manifest file (Avro `manifest_entry` records) of data files of one
// partition spec, with the header metadata Iceberg requires. Each entry's
// partition holds one value per spec field; InvalidArgument when it does
// not, Unimplemented for a spec add-files cannot write (see
// PartitionResultType).
absl::StatusOr<std::string> WriteManifest(
    const Schema& schema, const PartitionSpec& spec,
    const std::vector<ManifestEntry>& entries);

// A manifest as a manifest list records it.
struct ManifestFile {
  std::string manifest_path;
  int64_t manifest_length = 0;
  int32_t partition_spec_id = 0;
  // 0: data files; 1: delete files.
  int32_t content = 0;
  // For a manifest written by this snapshot, the snapshot's.
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  int32_t added_files_count = 0;
  int32_t existing_files_count = 0;
  int32_t deleted_files_count = 0;
  int64_t added_rows_count = 0;
  int64_t existing_rows_count = 0;
  int64_t deleted_rows_count = 0;
};

// A snapshot's manifest list: every manifest of the snapshot (a fast
// append carries the parent's manifests and adds its own).
std::string WriteManifestList(int64_t snapshot_id,
                              std::optional<int64_t> parent_snapshot_id,
                              int64_t sequence_number,
                              const std::vector<ManifestFile>& manifests);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_SPEC_MANIFEST_H_
