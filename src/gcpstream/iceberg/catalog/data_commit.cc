#include "gcpstream/iceberg/catalog/data_commit.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gcpstream/iceberg/io/random_ids.h"
#include "gcpstream/iceberg/spec/manifest_reading.h"

namespace gcpstream::iceberg {
namespace {

const Snapshot* CurrentSnapshot(const TableMetadata& table) {
  if (!table.current_snapshot_id.has_value()) return nullptr;
  for (const Snapshot& snapshot : table.snapshots) {
    if (snapshot.snapshot_id == *table.current_snapshot_id) return &snapshot;
  }
  return nullptr;
}

absl::StatusOr<std::vector<ManifestFile>> CurrentManifests(
    FileIO& io, const TableMetadata& table) {
  const Snapshot* current = CurrentSnapshot(table);
  if (current == nullptr) return std::vector<ManifestFile>();
  return ReadManifestList(io, current->manifest_list);
}

// The summary Iceberg's writers give an append: what it adds, and the
// table's totals where the parent's summary has them to add to.
std::map<std::string, std::string> AppendSummary(
    const Snapshot* parent, const std::vector<ManifestFile>& manifests,
    const AppendTotals& totals) {
  const int64_t added_bytes = totals.files_size;
  int64_t files = 0;
  int64_t records = 0;
  for (const ManifestFile& manifest : manifests) {
    files += manifest.added_files_count;
    records += manifest.added_rows_count;
  }
  std::map<std::string, std::string> summary = {
      {"operation", "append"},
      {"added-data-files", absl::StrCat(files)},
      {"added-records", absl::StrCat(records)},
      {"added-files-size", absl::StrCat(added_bytes)},
      {"changed-partition-count", absl::StrCat(totals.changed_partitions)},
  };
  const std::map<std::string, int64_t> added = {
      {"total-data-files", files},       {"total-records", records},
      {"total-files-size", added_bytes}, {"total-delete-files", 0},
      {"total-position-deletes", 0},     {"total-equality-deletes", 0}};
  for (const auto& [key, count] : added) {
    int64_t previous = 0;
    if (parent != nullptr) {
      auto it = parent->summary.find(key);
      // Without the parent's total there is nothing to add to.
      if (it == parent->summary.end() ||
          !absl::SimpleAtoi(it->second, &previous)) {
        continue;
      }
    }
    summary[key] = absl::StrCat(previous + count);
  }
  return summary;
}

}  // namespace

std::string ComparablePath(const std::string& path) { return LocalPath(path); }

absl::StatusOr<std::set<std::string>> LiveDataFiles(
    FileIO& io, const TableMetadata& table) {
  absl::StatusOr<std::vector<ManifestFile>> manifests =
      CurrentManifests(io, table);
  if (!manifests.ok()) return manifests.status();
  std::set<std::string> live;
  for (const ManifestFile& manifest : *manifests) {
    if (manifest.content != 0) continue;  // Delete files.
    absl::StatusOr<std::vector<ManifestEntry>> entries =
        ReadManifest(io, manifest);
    if (!entries.ok()) return entries.status();
    for (const ManifestEntry& entry : *entries) {
      if (entry.status != EntryStatus::kDeleted) {
        live.insert(ComparablePath(entry.data_file.file_path));
      }
    }
  }
  return live;
}

absl::StatusOr<std::vector<ManifestFile>> WriteDataManifests(
    FileIO& io, const TableMetadata& table, const std::vector<DataFile>& files,
    int32_t files_per_manifest) {
  const Schema* schema = table.CurrentSchema();
  if (schema == nullptr) {
    return absl::FailedPreconditionError("the table has no current schema");
  }
  const PartitionSpec* spec = nullptr;
  for (const PartitionSpec& candidate : table.partition_specs) {
    if (candidate.spec_id == table.default_spec_id) spec = &candidate;
  }
  if (spec == nullptr) {
    return absl::FailedPreconditionError("the table has no default spec");
  }
  const std::string prefix = RandomUuid();
  std::vector<ManifestFile> out;
  for (size_t start = 0; start < files.size();
       start += static_cast<size_t>(files_per_manifest)) {
    const size_t end =
        std::min(files.size(), start + static_cast<size_t>(files_per_manifest));
    std::vector<ManifestEntry> entries;
    entries.reserve(end - start);
    ManifestFile manifest;
    manifest.partition_spec_id = spec->spec_id;
    for (size_t i = start; i < end; ++i) {
      ManifestEntry entry;
      entry.data_file = files[i];
      entries.push_back(std::move(entry));
      ++manifest.added_files_count;
      manifest.added_rows_count += files[i].record_count;
    }
    absl::StatusOr<std::string> bytes = WriteManifest(*schema, *spec, entries);
    if (!bytes.ok()) return bytes.status();
    manifest.manifest_path = absl::StrCat(table.location, "/metadata/", prefix,
                                          "-m", out.size(), ".avro");
    manifest.manifest_length = static_cast<int64_t>(bytes->size());
    if (absl::Status written = io.Write(manifest.manifest_path, *bytes);
        !written.ok()) {
      return written;
    }
    out.push_back(std::move(manifest));
  }
  return out;
}

AppendTotals TotalsOf(const std::vector<DataFile>& files) {
  AppendTotals totals;
  std::set<PartitionTuple> partitions;
  for (const DataFile& file : files) {
    totals.files_size += file.file_size_in_bytes;
    partitions.insert(file.partition);
  }
  totals.changed_partitions = static_cast<int64_t>(partitions.size());
  return totals;
}

std::string CommitIdOf(const std::vector<ManifestFile>& manifests) {
  std::vector<std::string> paths;
  paths.reserve(manifests.size());
  for (const ManifestFile& manifest : manifests) {
    paths.push_back(manifest.manifest_path);
  }
  std::sort(paths.begin(), paths.end());
  std::string joined;
  for (const std::string& path : paths) absl::StrAppend(&joined, path, "\n");
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(joined.data(), joined.size(), digest.data(), &length, EVP_sha256(),
             nullptr);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    absl::StrAppend(&hex, absl::Hex(digest[i], absl::kZeroPad2));
  }
  return hex;
}

std::optional<Snapshot> FindCommit(const TableMetadata& table,
                                   const std::string& commit_id) {
  for (const Snapshot& snapshot : table.snapshots) {
    auto it = snapshot.summary.find(kCommitIdSummaryKey);
    if (it != snapshot.summary.end() && it->second == commit_id) {
      return snapshot;
    }
  }
  return std::nullopt;
}

absl::StatusOr<LoadedTable> AppendManifests(
    Catalog& catalog, FileIO& io, const TableIdentifier& table,
    const LoadedTable& base, const std::vector<ManifestFile>& manifests,
    const AppendTotals& totals, const std::string& commit_id) {
  const TableMetadata& metadata = base.metadata;
  absl::StatusOr<std::vector<ManifestFile>> listed =
      CurrentManifests(io, metadata);
  if (!listed.ok()) return listed.status();
  Snapshot snapshot;
  snapshot.snapshot_id = RandomSnapshotId();
  snapshot.parent_snapshot_id = metadata.current_snapshot_id;
  snapshot.sequence_number = metadata.last_sequence_number + 1;
  snapshot.timestamp_ms =
      std::max(absl::ToUnixMillis(absl::Now()), metadata.last_updated_ms + 1);
  snapshot.schema_id = metadata.current_schema_id;
  std::vector<ManifestFile> ours = manifests;
  for (ManifestFile& manifest : ours) {
    manifest.sequence_number = snapshot.sequence_number;
    manifest.min_sequence_number = snapshot.sequence_number;
    manifest.added_snapshot_id = snapshot.snapshot_id;
  }
  snapshot.summary = AppendSummary(CurrentSnapshot(metadata), ours, totals);
  snapshot.summary[kCommitIdSummaryKey] = commit_id;
  // New manifests first, as Iceberg's fast append lists them.
  listed->insert(listed->begin(), ours.begin(), ours.end());
  snapshot.manifest_list =
      absl::StrCat(metadata.location, "/metadata/snap-", snapshot.snapshot_id,
                   "-1-", RandomUuid(), ".avro");
  if (absl::Status written = io.Write(
          snapshot.manifest_list,
          WriteManifestList(snapshot.snapshot_id, snapshot.parent_snapshot_id,
                            snapshot.sequence_number, *listed));
      !written.ok()) {
    return written;
  }
  TableChange change;
  change.snapshot = std::move(snapshot);
  return catalog.Commit(table, base, change);
}

}  // namespace gcpstream::iceberg
