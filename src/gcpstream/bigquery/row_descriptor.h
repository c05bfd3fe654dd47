#ifndef GCPSTREAM_BIGQUERY_ROW_DESCRIPTOR_H_
#define GCPSTREAM_BIGQUERY_ROW_DESCRIPTOR_H_

#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/bigquery/table_schema.h"

namespace gcpstream::bigquery {

// The proto2 message that carries one row of `schema` in AppendRows: field
// i+1 is column i, a RECORD a nested message declared inside it (the
// Storage Write API takes a self-contained descriptor). Wire types: INT64
// int64, FLOAT64 double, BOOL bool, STRING / NUMERIC / BIGNUMERIC /
// DATETIME / TIME / JSON / GEOGRAPHY string, BYTES bytes, DATE int32 (days
// since the epoch), TIMESTAMP int64 (microseconds since the epoch). A
// column whose name is not a proto identifier gets a placeholder field name
// and its real name in the column_name annotation.
google::protobuf::DescriptorProto RowDescriptorFor(const TableSchema& schema);

// Whether `name` can be a proto field name as it is.
bool IsProtoIdentifier(absl::string_view name);

// A self-contained copy of `descriptor` for the Storage Write API: every
// message and enum it uses, from any file, declared inside it, proto2
// (proto3 fields become optional). Refuses maps and recursive messages,
// which BigQuery cannot store, naming the field.
absl::StatusOr<google::protobuf::DescriptorProto> SelfContainedDescriptor(
    const google::protobuf::Descriptor& descriptor);

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_ROW_DESCRIPTOR_H_
