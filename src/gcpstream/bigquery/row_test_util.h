#ifndef GCPSTREAM_BIGQUERY_ROW_TEST_UTIL_H_
#define GCPSTREAM_BIGQUERY_ROW_TEST_UTIL_H_

#include <memory>
#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/text_format.h>

#include "google/cloud/bigquery/storage/v1/annotations.pb.h"

namespace gcpstream::bigquery::testing {

// Reads rows encoded for `descriptor` back as messages, as the service
// would: the descriptor alone in a file of its own.
class RowReader {
 public:
  explicit RowReader(const google::protobuf::DescriptorProto& descriptor) {
    // The column_name annotation's file must be known to the pool.
    google::protobuf::FileDescriptorProto annotations;
    google::protobuf::DescriptorPool::generated_pool()
        ->FindFileByName("google/cloud/bigquery/storage/v1/annotations.proto")
        ->CopyTo(&annotations);
    google::protobuf::FileDescriptorProto field_options;
    google::protobuf::FieldOptions::descriptor()->file()->CopyTo(
        &field_options);
    pool_.BuildFile(field_options);
    pool_.BuildFile(annotations);
    google::protobuf::FileDescriptorProto file;
    file.set_name("row.proto");
    file.set_syntax("proto2");
    *file.add_message_type() = descriptor;
    file_ = pool_.BuildFile(file);
  }

  bool ok() const { return file_ != nullptr; }
  const google::protobuf::Descriptor* descriptor() const {
    return file_->message_type(0);
  }

  // The row in text format ("" when it does not parse).
  std::string Text(const std::string& row) {
    std::unique_ptr<google::protobuf::Message> message(
        factory_.GetPrototype(descriptor())->New());
    if (!message->ParseFromString(row)) return "";
    std::string text;
    google::protobuf::TextFormat::Printer printer;
    printer.SetSingleLineMode(true);
    printer.PrintToString(*message, &text);
    return text;
  }

 private:
  google::protobuf::DescriptorPool pool_;
  google::protobuf::DynamicMessageFactory factory_;
  const google::protobuf::FileDescriptor* file_ = nullptr;
};

}  // namespace gcpstream::bigquery::testing

#endif  // GCPSTREAM_BIGQUERY_ROW_TEST_UTIL_H_
