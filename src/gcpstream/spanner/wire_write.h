#ifndef GCPSTREAM_SPANNER_WIRE_WRITE_H_
#define GCPSTREAM_SPANNER_WIRE_WRITE_H_

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/spanner/schema_catalog.h"
#include "gcpstream/spanner/spanner_mutation.h"
#include "gcpstream/spanner/spanner_value.h"
#include "google/protobuf/arena.h"

namespace gcpstream::spanner {

// Builds the wire form of one insert, update, insert-or-update or replace,
// column by column, checking each value against the column's type. It is
// how SchemaCatalog::Encode encodes a typed Mutation's write, and how a
// serializer that reads its values straight from a record (pipeline files)
// builds the same proto without the typed Mutation in between.
class WireWrite {
 public:
  // Null when `table` is not in the catalog. The proto is allocated on
  // `arena` (the open batch's).
  static std::optional<WireWrite> Start(const SchemaCatalog& catalog,
                                        absl::string_view table,
                                        Operation operation, size_t columns,
                                        google::protobuf::Arena& arena);

  // NotFound when the table has no such column; InvalidArgument naming
  // table, column, column type and value type when the value does not fit.
  absl::Status Add(absl::string_view column, const Value& value);
  // Add(column, Value::String(text)) without copying `text` into a Value:
  // false where Add would return an error. The write is then incomplete:
  // drop it (its proto stays on the arena until the batch is freed).
  bool AddText(absl::string_view column, absl::string_view text);

  // InvalidArgument when no column was set.
  absl::StatusOr<EncodedMutation> Finish() &&;

 private:
  void Added(const ColumnInfo& column);

  WireWrite(const TableSchema& table, Operation operation,
            EncodedMutation encoded,
            google::spanner::v1::Mutation::Write* write,
            google::protobuf::ListValue* row)
      : table_(&table),
        operation_(operation),
        encoded_(encoded),
        write_(write),
        row_(row) {}

  const TableSchema* table_;
  Operation operation_;
  EncodedMutation encoded_;
  google::spanner::v1::Mutation::Write* write_;
  google::protobuf::ListValue* row_;
};

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_WIRE_WRITE_H_
