#include "gcpstream/bigquery/row_format.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "google/cloud/bigquery/storage/v1/annotations.pb.h"

namespace gcpstream::bigquery {
namespace {

// The generated files a row descriptor may use (its column_name options).
void AddGeneratedFile(const char* name,
                      google::protobuf::DescriptorPool& pool) {
  const google::protobuf::FileDescriptor* file =
      google::protobuf::DescriptorPool::generated_pool()->FindFileByName(name);
  if (file == nullptr) return;
  google::protobuf::FileDescriptorProto proto;
  file->CopyTo(&proto);
  pool.BuildFile(proto);
}

}  // namespace

const google::protobuf::Descriptor* RowFormat::MessageDescriptor() const {
  if (pool_ == nullptr) {
    pool_ = std::make_unique<google::protobuf::DescriptorPool>();
    AddGeneratedFile("google/protobuf/descriptor.proto", *pool_);
    AddGeneratedFile("google/cloud/bigquery/storage/v1/annotations.proto",
                     *pool_);
    google::protobuf::FileDescriptorProto file;
    file.set_name("gcpstream_bigquery_row.proto");
    file.set_syntax("proto2");
    *file.add_message_type() = descriptor_;
    if (const google::protobuf::FileDescriptor* built = pool_->BuildFile(file);
        built != nullptr) {
      message_ = built->message_type(0);
      factory_ = std::make_unique<google::protobuf::DynamicMessageFactory>();
    }
  }
  return message_;
}

std::unique_ptr<google::protobuf::Message> RowFormat::NewRow() const {
  if (MessageDescriptor() == nullptr) return nullptr;
  return std::unique_ptr<google::protobuf::Message>(
      factory_->GetPrototype(message_)->New());
}

std::unique_ptr<google::protobuf::Message> RowFormat::ParseRow(
    const std::string& row) const {
  std::unique_ptr<google::protobuf::Message> message = NewRow();
  if (message == nullptr || !message->ParseFromString(row)) return nullptr;
  return message;
}

std::string RowFormat::RowAsJson(const std::string& row) const {
  std::unique_ptr<google::protobuf::Message> message = ParseRow(row);
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  if (message == nullptr ||
      !google::protobuf::util::MessageToJsonString(*message, &json, options)
           .ok()) {
    return absl::StrCat(R"({"row_base64":")", absl::Base64Escape(row), R"("})");
  }
  return json;
}

}  // namespace gcpstream::bigquery
