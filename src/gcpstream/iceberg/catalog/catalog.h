#ifndef GCPSTREAM_ICEBERG_CATALOG_CATALOG_H_
#define GCPSTREAM_ICEBERG_CATALOG_CATALOG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/spec/schema.h"
#include "gcpstream/iceberg/spec/table_metadata.h"

namespace gcpstream::iceberg {

struct TableIdentifier {
  std::vector<std::string> namespace_levels;
  std::string name;
};

// "db.orders": how messages name a table.
std::string TableName(const TableIdentifier& table);

// A table's metadata as a catalog holds it: the version a commit builds on.
struct LoadedTable {
  TableMetadata metadata;
  // The filesystem catalog's version number; 0 where a catalog has none.
  int version = 0;
  std::string metadata_file;
};

// What one add-files commit changes: the update set of an Iceberg REST
// commit, which the filesystem catalog applies itself.
struct TableChange {
  // Added (or, when the table has an equal one, reused) and made current.
  std::optional<Schema> schema;
  // The last column id after `schema`.
  int32_t last_column_id = 0;
  std::map<std::string, std::string> set_properties;
  // Appended; the `main` branch points at it.
  std::optional<Snapshot> snapshot;
};

// A table to create.
struct TableCreation {
  Schema schema;
  int32_t last_column_id = 0;
  // Unpartitioned unless it has fields.
  PartitionSpec spec;
  std::map<std::string, std::string> properties;
};

// `base` with `change` applied at `now_ms`: the metadata a catalog commits.
TableMetadata ApplyTableChange(const TableMetadata& base,
                               const TableChange& change, int64_t now_ms);

// Where tables live and how their metadata is replaced, atomically. Status
// codes carry the commit's outcome:
// - Aborted: the table changed since `base` (or was created by another
//   writer); nothing was committed: reload, recompute, retry;
// - Unknown: the commit may or may not have happened (a crash or timeout
//   after the request); reload and look for it before retrying;
// - anything else: nothing was committed.
class Catalog {
 public:
  virtual ~Catalog() = default;

  // NotFound when the table does not exist.
  virtual absl::StatusOr<LoadedTable> Load(const TableIdentifier& table) = 0;

  // A new, unsorted table. Aborted when it exists already.
  virtual absl::StatusOr<LoadedTable> Create(const TableIdentifier& table,
                                             const TableCreation& creation) = 0;

  virtual absl::StatusOr<LoadedTable> Commit(const TableIdentifier& table,
                                             const LoadedTable& base,
                                             const TableChange& change) = 0;
};

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_CATALOG_CATALOG_H_
