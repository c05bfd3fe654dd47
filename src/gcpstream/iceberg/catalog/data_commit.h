#ifndef GCPSTREAM_ICEBERG_CATALOG_DATA_COMMIT_H_
#define GCPSTREAM_ICEBERG_CATALOG_DATA_COMMIT_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/catalog/catalog.h"
#include "gcpstream/iceberg/io/file_io.h"
#include "gcpstream/iceberg/spec/manifest.h"
#include "gcpstream/iceberg/spec/table_metadata.h"

namespace gcpstream::iceberg {

// The snapshot summary key that carries a data commit's id, so a commit
// whose outcome was unknown is found instead of repeated.
inline constexpr char kCommitIdSummaryKey[] = "gcpstream.add-files-commit-id";

// The paths of the data files live in the table's current snapshot, as its
// manifests record them (as ComparablePath spells them, so local paths
// compare equal however a writer spelled them).
absl::StatusOr<std::set<std::string>> LiveDataFiles(FileIO& io,
                                                    const TableMetadata& table);

// `path` as LiveDataFiles spells it: `file:` URIs as local paths.
std::string ComparablePath(const std::string& path);

// New manifests (under the table's metadata directory, unique names) for
// `files`, at most `files_per_manifest` each, of the current schema and
// the table's default spec. Their sequence numbers and snapshot are set by
// the commit that lists them.
absl::StatusOr<std::vector<ManifestFile>> WriteDataManifests(
    FileIO& io, const TableMetadata& table, const std::vector<DataFile>& files,
    int32_t files_per_manifest);

// SHA-256 (hex) of the sorted manifest paths: the data commit's id.
std::string CommitIdOf(const std::vector<ManifestFile>& manifests);

// The snapshot of `table` whose summary carries `commit_id`, if any.
std::optional<Snapshot> FindCommit(const TableMetadata& table,
                                   const std::string& commit_id);

// What the data files of an append add up to, for its summary.
struct AppendTotals {
  int64_t files_size = 0;
  int64_t changed_partitions = 0;
};

// The totals of `files`.
AppendTotals TotalsOf(const std::vector<DataFile>& files);

// One attempt at a fast append of `manifests` to `base`: a snapshot whose
// manifest list is the parent's plus these. The catalog's status for the
// commit (Aborted when `base` is stale).
absl::StatusOr<LoadedTable> AppendManifests(
    Catalog& catalog, FileIO& io, const TableIdentifier& table,
    const LoadedTable& base, const std::vector<ManifestFile>& manifests,
    const AppendTotals& totals, const std::string& commit_id);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_CATALOG_DATA_COMMIT_H_
