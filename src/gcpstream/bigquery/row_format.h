#ifndef GCPSTREAM_BIGQUERY_ROW_FORMAT_H_
#define GCPSTREAM_BIGQUERY_ROW_FORMAT_H_

#include <memory>
#include <optional>
#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>

#include "gcpstream/bigquery/json_row_encoder.h"

namespace gcpstream::bigquery {

// The rows of one table as one writer sends them: the writer schema every
// row follows (AppendRows' proto descriptor) and, for JSON records, the
// encoder that writes them in it. Made once per table by the serializer.
class RowFormat {
 public:
  explicit RowFormat(google::protobuf::DescriptorProto descriptor,
                     std::optional<JsonRowEncoder> json = std::nullopt)
      : descriptor_(std::move(descriptor)), json_(std::move(json)) {}

  const google::protobuf::DescriptorProto& descriptor() const {
    return descriptor_;
  }
  // Set for JSON records.
  const JsonRowEncoder* json() const {
    return json_.has_value() ? &*json_ : nullptr;
  }

  // An encoded row as JSON text, for the failure handler's payload (the
  // dead-letter queue); the row's bytes in base64 when they do not parse.
  // Task thread only: the descriptor pool is built on first use.
  std::string RowAsJson(const std::string& row) const;
  // The encoded row as a message of the writer schema, or null when it
  // does not parse. Task thread only, as RowAsJson().
  std::unique_ptr<google::protobuf::Message> ParseRow(
      const std::string& row) const;
  // The writer schema's message in this format's own descriptor pool (what
  // ParseRow() answers with), or null when the descriptor does not build.
  // Task thread only, as RowAsJson().
  const google::protobuf::Descriptor* MessageDescriptor() const;
  // An empty message of the writer schema (null as above), for a caller
  // that parses many rows into one.
  std::unique_ptr<google::protobuf::Message> NewRow() const;

 private:
  google::protobuf::DescriptorProto descriptor_;
  std::optional<JsonRowEncoder> json_;
  mutable std::unique_ptr<google::protobuf::DescriptorPool> pool_;
  mutable std::unique_ptr<google::protobuf::DynamicMessageFactory> factory_;
  mutable const google::protobuf::Descriptor* message_ = nullptr;
};

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_ROW_FORMAT_H_
