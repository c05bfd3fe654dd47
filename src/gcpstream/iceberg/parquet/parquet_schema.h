#ifndef GCPSTREAM_ICEBERG_PARQUET_PARQUET_SCHEMA_H_
#define GCPSTREAM_ICEBERG_PARQUET_PARQUET_SCHEMA_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/parquet/parquet_footer.h"
#include "gcpstream/iceberg/spec/schema.h"

namespace gcpstream::iceberg {

// The Iceberg schema of a Parquet file, by Iceberg's own conversion rules
// (docs/iceberg.md, "Schema of a Parquet file"):
// - field ids from the file; a file without any gets 1..n for its top-level
//   columns and 1000 upward for everything nested; ids a file with ids lacks
//   are generated from 1000 upward;
// - REQUIRED/OPTIONAL give optionality; REPEATED only inside a LIST or MAP;
// - LIST and MAP in their standard 3-level and legacy 2-level layouts, with
//   Iceberg's names for their parts (`element`, `key`, `value`);
// - each primitive by its logical (or legacy converted) type.
// InvalidArgument naming the column when the file's schema has no Iceberg
// equivalent (a bare REPEATED field, UINT64, INTERVAL, FLOAT16, ...).
absl::StatusOr<Schema> ConvertParquetSchema(const ParquetFooter& footer);

// The dotted paths (as ConvertParquetSchema names them) of the fields of a
// file with field ids that carry none, which the conversion numbers itself;
// empty for a file without any ids.
absl::StatusOr<std::vector<std::string>> FieldsWithoutFileIds(
    const ParquetFooter& footer);

// The dotted paths of the optional columns the footer proves free of nulls,
// sorted: the file's "null evidence". A column counts its nulls over the
// row groups that have rows (an empty row group constrains nothing); one
// such group without a null count makes it unknown. A file with no rows at
// all proves every column and struct outside lists and maps. Otherwise a
// primitive directly under the root or under structs is proven by a known
// count of 0, and a struct by any leaf beneath it (through structs only)
// being proven, since a null struct nulls every leaf. Nothing at or below a
// list or map is ever proven. `schema` is ConvertParquetSchema(footer).
std::vector<std::string> ProvenNullFreeColumns(const ParquetFooter& footer,
                                               const Schema& schema);

// `schema` with the fields at `paths` (dotted, as ProvenNullFreeColumns
// names them) made required.
Schema MarkRequired(const Schema& schema,
                    const std::vector<std::string>& paths);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_PARQUET_PARQUET_SCHEMA_H_
