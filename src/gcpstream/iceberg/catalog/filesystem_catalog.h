#ifndef GCPSTREAM_ICEBERG_CATALOG_FILESYSTEM_CATALOG_H_
#define GCPSTREAM_ICEBERG_CATALOG_FILESYSTEM_CATALOG_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/catalog/catalog.h"
#include "gcpstream/iceberg/io/file_io.h"
#include "gcpstream/iceberg/spec/table_metadata.h"

namespace gcpstream::iceberg {

// Iceberg's filesystem ("Hadoop") catalog: a table lives in
// `<warehouse>/<namespace levels>/<name>`, its versions are
// `metadata/v<N>.metadata.json`, and `metadata/version-hint.text` names the
// latest. A commit creates `v<N+1>` only if no other commit did first
// (FileIO::WriteNew: a hard link locally, which never replaces as POSIX
// rename would; an upload with ifGenerationMatch=0 on Cloud Storage), so
// two writers from the same version cannot both win. The warehouse is a
// directory, a `file://` URI or a `gs://bucket/prefix`.
class FilesystemCatalog final : public Catalog {
 public:
  // `io` null: local files and `gs://` by scheme (SchemeFileIO).
  explicit FilesystemCatalog(std::string warehouse,
                             std::shared_ptr<FileIO> io = nullptr);

  std::string TableLocation(const TableIdentifier& table) const;

  // The latest version: the hint's, or a later one it lags behind, or the
  // highest on disk when the hint is missing. NotFound when the table has
  // no version.
  absl::StatusOr<LoadedTable> Load(const TableIdentifier& table) override;

  // Version 1 of a new table with a random uuid.
  absl::StatusOr<LoadedTable> Create(const TableIdentifier& table,
                                     const TableCreation& creation) override;

  // Version `base.version + 1`: `change` applied to `base`.
  absl::StatusOr<LoadedTable> Commit(const TableIdentifier& table,
                                     const LoadedTable& base,
                                     const TableChange& change) override;

  // The primitives the above are made of. CreateMetadata: version 1;
  // Aborted when the table exists. CommitMetadata: version
  // `base.version + 1` with `updated` (the previous file joins its metadata
  // log); Aborted when another commit made that version first.
  absl::StatusOr<LoadedTable> CreateMetadata(const TableIdentifier& table,
                                             TableMetadata metadata);
  absl::StatusOr<LoadedTable> CommitMetadata(const TableIdentifier& table,
                                             const LoadedTable& base,
                                             TableMetadata updated);

 private:
  absl::StatusOr<LoadedTable> Write(const TableIdentifier& table, int version,
                                    TableMetadata metadata) const;

  // The latest version at or after `version` (0: none).
  absl::StatusOr<int> LatestFrom(const std::string& metadata_dir,
                                 int version) const;

  std::string warehouse_;
  std::shared_ptr<FileIO> io_;
};

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_CATALOG_FILESYSTEM_CATALOG_H_
