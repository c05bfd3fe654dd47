#ifndef GCPSTREAM_BIGQUERY_JSON_ROW_ENCODER_H_
#define GCPSTREAM_BIGQUERY_JSON_ROW_ENCODER_H_

#include <string>
#include <vector>

#include <google/protobuf/descriptor.pb.h>
#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "gcpstream/bigquery/table_schema.h"

namespace gcpstream::bigquery {

struct JsonRowEncoderOptions {
  // A record field that is no column is dropped instead of refused.
  bool ignore_unknown_fields = false;
  // CDC upserts: the record fields whose values become the rows'
  // _CHANGE_TYPE and _CHANGE_SEQUENCE_NUMBER (empty: none). Each record
  // must have them; they count as known fields.
  std::string change_type_field{};
  std::string change_sequence_field{};
};

// Encodes JSON objects as rows of one table for AppendRows, straight into
// the wire form of RowDescriptorFor(schema) (no message is built). Fields
// match columns by name, case-insensitively as BigQuery's do. What each
// type takes (docs/bigquery.md, "Records to rows"): INT64 an integer or an
// integer string; FLOAT64 a number or "NaN"/"Infinity"/"-Infinity"; NUMERIC
// and BIGNUMERIC a number or a decimal string within the type's digits;
// BOOL true/false or "true"/"false"; STRING any scalar (a number or boolean
// as its JSON text); BYTES base64; DATE, DATETIME, TIME their text forms;
// TIMESTAMP a date-time text with an optional zone, or a number of seconds
// since the epoch; JSON any value (stored as its JSON text); GEOGRAPHY WKT
// or GeoJSON text, or a GeoJSON object; RECORD an object; REPEATED an
// array (null is an empty array). null or a missing field leaves a
// NULLABLE column NULL and is refused for a REQUIRED one. With CDC fields
// the writer schema ends in the _CHANGE_TYPE (and _CHANGE_SEQUENCE_NUMBER)
// pseudo-columns.
class JsonRowEncoder {
 public:
  JsonRowEncoder(TableSchema schema, JsonRowEncoderOptions options);

  const TableSchema& schema() const { return schema_; }
  const google::protobuf::DescriptorProto& descriptor() const {
    return descriptor_;
  }

  // Appends the row's encoding to `out` (cleared first). A value that does
  // not fit is INVALID_ARGUMENT naming the column path and its type.
  absl::Status Encode(const nlohmann::json& record, std::string& out) const;

 private:
  TableSchema schema_;
  JsonRowEncoderOptions options_;
  google::protobuf::DescriptorProto descriptor_;
};

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_JSON_ROW_ENCODER_H_
