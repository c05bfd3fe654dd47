#ifndef GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_H_
#define GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/add_files/add_files_options.h"
#include "gcpstream/iceberg/catalog/catalog.h"
#include "gcpstream/iceberg/io/file_io.h"
#include "gcpstream/iceberg/spec/table_metadata.h"

namespace gcpstream::iceberg {

// A file that was not registered, and why.
struct FileError {
  std::string file;
  std::string error;
};

struct AddFilesCounters {
  int64_t files_read = 0;
  int64_t data_files_added = 0;
  int64_t manifests_added = 0;
  int64_t error_files = 0;
  int64_t footer_read_errors = 0;
  int64_t schema_commits = 0;
  int64_t unproven_pin_files = 0;
  int64_t already_added_skipped = 0;
};

struct AddFilesResult {
  // The data commit's snapshot; nullopt when no file was added.
  std::optional<Snapshot> snapshot;
  // The table's metadata file after the run (empty if there is no table).
  std::string metadata_file;
  std::vector<FileError> errors;
  // In a dry run, what would happen (docs/iceberg.md, "Dry run").
  std::optional<nlohmann::ordered_json> dry_run_report;
  AddFilesCounters counters;
};

// Registers the Parquet files at `paths` in `table` as one window
// (docs/iceberg.md, "add-files"): footers read, the window's schema change
// planned and committed, each file checked and registered with metrics
// from its footer, and one append snapshot committed for all of them. A
// file that cannot be registered is an error row; the run fails (status)
// only for what no file can fix: bad options, an unreachable catalog or
// storage, refused schemas under `fail-job`, a partitioned table.
absl::StatusOr<AddFilesResult> AddFiles(Catalog& catalog, FileIO& io,
                                        const TableIdentifier& table,
                                        const std::vector<std::string>& paths,
                                        const AddFilesOptions& options);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_H_
