#ifndef GCPSTREAM_ICEBERG_PARQUET_FIELD_IDS_H_
#define GCPSTREAM_ICEBERG_PARQUET_FIELD_IDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/parquet/parquet_footer.h"
#include "gcpstream/iceberg/spec/schema.h"
#include "gcpstream/iceberg/spec/table_metadata.h"

namespace gcpstream::iceberg {

// A leaf column of a file as the table will read it.
struct ResolvedLeaf {
  // The table column's id, which readers will use to find this leaf.
  int32_t field_id = 0;
  // The file's dotted name (`tags.element`): metrics modes are looked up by
  // it, as Iceberg does.
  std::string name;
  // At or below a list or map.
  bool under_container = false;
  // The table column's type.
  Type table_type;
};

// Whether the file's columns carry field ids; a file without them is read
// through the table's name mapping.
bool HasFieldIds(const ParquetFooter& footer);

// The table column each leaf of the file (the footer's leaves in order)
// will be read as; nullopt for a leaf the table has no column for (it gets
// no metrics). `file_schema` is ConvertParquetSchema(footer).
//
// A file without field ids is read through the name mapping readers use
// (the table's mapping merged with the current schema's). A file with ids
// keeps them only when each agrees with the table: some version of its
// schema, or its mapping, gives the id exactly that path; a new id is fine
// unless its path is a table column under another id. InvalidArgument
// saying why otherwise: swapped or foreign ids, duplicates, ids on only
// some fields (readers would read the others as null).
absl::StatusOr<std::vector<std::optional<ResolvedLeaf>>> ResolveFieldIds(
    const ParquetFooter& footer, const Schema& file_schema,
    const TableMetadata& table);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_PARQUET_FIELD_IDS_H_
