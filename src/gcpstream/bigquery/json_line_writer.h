#ifndef GCPSTREAM_BIGQUERY_JSON_LINE_WRITER_H_
#define GCPSTREAM_BIGQUERY_JSON_LINE_WRITER_H_

#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/bigquery/row_format.h"
#include "gcpstream/bigquery/table_schema.h"

namespace gcpstream::bigquery {

// Turns rows encoded in a table's RowFormat into the newline-delimited JSON
// a load job reads (file-loads): one object per line, keyed by column name,
// each value in the form BigQuery loads into the column's type. DATE (days)
// becomes "YYYY-MM-DD", TIMESTAMP (microseconds) "YYYY-MM-DD
// HH:MM:SS.ffffff UTC", BYTES base64, a JSON column's text its JSON value,
// RECORD an object and REPEATED an array; an unset field is left out
// (NULL). Made once per table writer; task thread only (the format's
// descriptor pool).
class JsonLineWriter {
 public:
  // Matches every field of the format's message to a column of `schema`
  // (by its column_name annotation, else its name; case-insensitive). A
  // field without a column is left out under `ignore_unknown_fields`,
  // else refused naming it.
  static absl::StatusOr<JsonLineWriter> Create(
      const std::shared_ptr<const RowFormat>& format, const TableSchema& schema,
      bool ignore_unknown_fields);

  // Appends `row` as one line (ending in '\n') to `out`, leaving `out` as it
  // was on error. InvalidArgument names the column when a value has no JSON
  // form its column loads: a string that is not UTF-8, a JSON column's text
  // that is not JSON, a wire type the column cannot take.
  absl::Status AppendLine(const std::string& row, std::string& out);

 private:
  struct Column {
    const google::protobuf::FieldDescriptor* field = nullptr;
    std::string key{};  // "\"name\":", escaped once.
    const FieldSchema* schema = nullptr;
    int nested = -1;  // Index in plans_ of a RECORD's fields.
  };
  using Plan = std::vector<Column>;

  JsonLineWriter(std::shared_ptr<const RowFormat> format,
                 std::shared_ptr<const TableSchema> schema)
      : format_(std::move(format)), schema_(std::move(schema)) {}

  absl::StatusOr<int> AddPlan(const google::protobuf::Descriptor& message,
                              const google::protobuf::DescriptorProto& proto,
                              const std::vector<FieldSchema>& columns,
                              const std::string& path,
                              bool ignore_unknown_fields);
  absl::Status AppendObject(const google::protobuf::Message& message, int plan,
                            std::string& out) const;
  absl::Status AppendValue(const google::protobuf::Message& message,
                           const Column& column, int index,
                           std::string& out) const;

  std::shared_ptr<const RowFormat> format_;
  // Owned here so that columns' schema pointers outlive the caller's.
  std::shared_ptr<const TableSchema> schema_;
  std::vector<Plan> plans_;  // plans_[0]: the row.
  // Every row is parsed into this one message.
  std::unique_ptr<google::protobuf::Message> row_;
};

// `text` as a JSON string literal (quotes included) appended to `out`;
// false, with `out` unchanged, when `text` is not UTF-8.
bool AppendJsonString(absl::string_view text, std::string& out);

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_JSON_LINE_WRITER_H_
