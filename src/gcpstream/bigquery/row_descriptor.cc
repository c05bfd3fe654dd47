#include "gcpstream/bigquery/row_descriptor.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "google/cloud/bigquery/storage/v1/annotations.pb.h"

namespace gcpstream::bigquery {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorProto;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FieldDescriptorProto;

FieldDescriptorProto::Type WireTypeOf(FieldType type) {
  switch (type) {
    case FieldType::kInt64:
    case FieldType::kTimestamp:
      return FieldDescriptorProto::TYPE_INT64;
    case FieldType::kFloat64:
      return FieldDescriptorProto::TYPE_DOUBLE;
    case FieldType::kBool:
      return FieldDescriptorProto::TYPE_BOOL;
    case FieldType::kBytes:
      return FieldDescriptorProto::TYPE_BYTES;
    case FieldType::kDate:
      return FieldDescriptorProto::TYPE_INT32;
    case FieldType::kRecord:
      return FieldDescriptorProto::TYPE_MESSAGE;
    case FieldType::kNumeric:
    case FieldType::kBigNumeric:
    case FieldType::kString:
    case FieldType::kDateTime:
    case FieldType::kTime:
    case FieldType::kJson:
    case FieldType::kGeography:
      return FieldDescriptorProto::TYPE_STRING;
  }
  return FieldDescriptorProto::TYPE_STRING;
}

void AddFields(const std::vector<FieldSchema>& fields, DescriptorProto& out) {
  int number = 0;
  for (const FieldSchema& field : fields) {
    ++number;
    FieldDescriptorProto& proto = *out.add_field();
    proto.set_number(number);
    if (IsProtoIdentifier(field.name)) {
      proto.set_name(field.name);
    } else {
      proto.set_name(absl::StrCat("column_", number));
      proto.mutable_options()->SetExtension(
          google::cloud::bigquery::storage::v1::column_name, field.name);
    }
    proto.set_type(WireTypeOf(field.type));
    proto.set_label(field.mode == FieldMode::kRepeated
                        ? FieldDescriptorProto::LABEL_REPEATED
                        : FieldDescriptorProto::LABEL_OPTIONAL);
    if (field.type == FieldType::kRecord) {
      // Named after the field number: unique within `out` whatever the
      // column names are.
      const std::string nested = absl::StrCat("Record_", number);
      DescriptorProto& child = *out.add_nested_type();
      child.set_name(nested);
      AddFields(field.fields, child);
      proto.set_type_name(nested);
    }
  }
}

// Builds the self-contained copy: each message and enum used, wherever it
// is declared, becomes a nested type of the root with a flat name.
class SelfContainedBuilder {
 public:
  explicit SelfContainedBuilder(const Descriptor& root) {
    root_.set_name(root.name());
  }

  absl::Status Build(const Descriptor& root) {
    names_[&root] = root.name();
    return CopyFields(root, root_);
  }
  DescriptorProto& root() { return root_; }

 private:
  static std::string FlatName(absl::string_view full_name) {
    return absl::StrReplaceAll(full_name, {{".", "_"}});
  }

  absl::Status CopyFields(const Descriptor& message, DescriptorProto& out) {
    active_.push_back(&message);
    for (int i = 0; i < message.field_count(); ++i) {
      const FieldDescriptor& field = *message.field(i);
      FieldDescriptorProto& proto = *out.add_field();
      field.CopyTo(&proto);
      // proto2 has neither synthetic oneofs nor proto3's implicit presence.
      proto.clear_oneof_index();
      proto.clear_proto3_optional();
      proto.clear_json_name();
      if (proto.label() == FieldDescriptorProto::LABEL_REQUIRED) {
        proto.set_label(FieldDescriptorProto::LABEL_OPTIONAL);
      }
      if (field.is_map()) {
        return absl::InvalidArgumentError(
            absl::StrCat("field '", field.full_name(),
                         "' is a map, which BigQuery rows cannot hold; use a "
                         "repeated message of key and value"));
      }
      if (const Descriptor* nested = field.message_type(); nested != nullptr) {
        absl::StatusOr<std::string> name = AddMessage(*nested, field);
        if (!name.ok()) return name.status();
        proto.set_type_name(*name);
      } else if (const EnumDescriptor* values = field.enum_type();
                 values != nullptr) {
        proto.set_type_name(AddEnum(*values));
      }
    }
    active_.pop_back();
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> AddMessage(const Descriptor& message,
                                         const FieldDescriptor& used_by) {
    for (const Descriptor* active : active_) {
      if (active == &message) {
        return absl::InvalidArgumentError(
            absl::StrCat("field '", used_by.full_name(), "' makes message '",
                         message.full_name(),
                         "' contain itself, which BigQuery rows cannot hold"));
      }
    }
    if (auto it = names_.find(&message); it != names_.end()) return it->second;
    std::string name = FlatName(message.full_name());
    names_[&message] = name;
    DescriptorProto nested;
    nested.set_name(name);
    if (absl::Status status = CopyFields(message, nested); !status.ok()) {
      return status;
    }
    *root_.add_nested_type() = std::move(nested);
    return name;
  }

  std::string AddEnum(const EnumDescriptor& type) {
    if (auto it = enum_names_.find(&type); it != enum_names_.end()) {
      return it->second;
    }
    const std::string name = FlatName(type.full_name());
    enum_names_[&type] = name;
    google::protobuf::EnumDescriptorProto& proto = *root_.add_enum_type();
    type.CopyTo(&proto);
    proto.set_name(name);
    return name;
  }

  DescriptorProto root_;
  std::map<const Descriptor*, std::string> names_;
  std::map<const EnumDescriptor*, std::string> enum_names_;
  std::vector<const Descriptor*> active_;
};

}  // namespace

bool IsProtoIdentifier(absl::string_view name) {
  if (name.empty() ||
      absl::ascii_isdigit(static_cast<unsigned char>(name.front()))) {
    return false;
  }
  return std::ranges::all_of(name, [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

DescriptorProto RowDescriptorFor(const TableSchema& schema) {
  DescriptorProto row;
  row.set_name("Row");
  AddFields(schema.fields, row);
  return row;
}

absl::StatusOr<DescriptorProto> SelfContainedDescriptor(
    const Descriptor& descriptor) {
  SelfContainedBuilder builder(descriptor);
  if (absl::Status status = builder.Build(descriptor); !status.ok()) {
    return status;
  }
  return std::move(builder.root());
}

}  // namespace gcpstream::bigquery
