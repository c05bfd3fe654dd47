#ifndef GCPSTREAM_ICEBERG_FILESYSTEM_CATALOG_H_
#define GCPSTREAM_ICEBERG_FILESYSTEM_CATALOG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/table_metadata.h"

namespace gcpstream::iceberg {

struct TableIdentifier {
  std::vector<std::string> namespace_levels;
  std::string name;
};

// A table's metadata as a catalog holds it: the version a commit builds on.
struct LoadedTable {
  TableMetadata metadata;
  int version = 0;
  std::string metadata_file;
};

// Iceberg's filesystem ("Hadoop") catalog on local files: a table lives in
// `<warehouse>/<namespace levels>/<name>`, its versions are
// `metadata/v<N>.metadata.json`, and `metadata/version-hint.text` names the
// latest. A commit creates `v<N+1>` only if no other commit did first (a
// hard link, which never replaces: POSIX rename would), so two writers
// from the same version cannot both win.
class FilesystemCatalog {
 public:
  explicit FilesystemCatalog(std::string warehouse);

  std::string TableLocation(const TableIdentifier& table) const;

  // The latest version: the hint's, or a later one it lags behind, or the
  // highest on disk when the hint is missing. NotFound when the table has
  // no version.
  absl::StatusOr<LoadedTable> Load(const TableIdentifier& table) const;

  // Version 1 of a new table; AlreadyExists when the table exists.
  absl::StatusOr<LoadedTable> Create(const TableIdentifier& table,
                                     TableMetadata metadata);

  // Version `base.version + 1` with `updated` (the previous file joins its
  // metadata log). Aborted when another commit made that version first:
  // reload, recompute, retry.
  absl::StatusOr<LoadedTable> Commit(const TableIdentifier& table,
                                     const LoadedTable& base,
                                     TableMetadata updated);

 private:
  absl::StatusOr<LoadedTable> Write(const TableIdentifier& table, int version,
                                    TableMetadata metadata) const;

  std::string warehouse_;
};

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_FILESYSTEM_CATALOG_H_
