#include "gcpstream/config/field_path.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gcpstream::config {
namespace {

bool StartsName(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool ContinuesName(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == '-';
}

}  // namespace

absl::StatusOr<FieldPath> FieldPath::Parse(absl::string_view text) {
  FieldPath path;
  path.text_ = std::string(text);
  size_t offset = 0;
  for (absl::string_view name : absl::StrSplit(text, '.')) {
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field path '", text, "' has an empty name at offset ", offset));
    }
    for (size_t i = 0; i < name.size(); ++i) {
      if (i == 0 ? !StartsName(name[i]) : !ContinuesName(name[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "field path '", text, "': character '", name.substr(i, 1),
            "' at offset ", offset + i,
            " cannot be part of a field name (letters, digits, '_' and '-', "
            "not starting with a digit or '-')"));
      }
    }
    path.names_.emplace_back(name);
    offset += name.size() + 1;
  }
  return path;
}

absl::StatusOr<json::JsonValue> FieldPath::Find(
    const json::JsonRecord& record) const {
  uint32_t at = json::JsonRecord::kRoot;
  for (const std::string& name : names_) {
    std::optional<uint32_t> child = record.Child(at, name);
    if (!child.has_value()) {
      // Only a failed lookup needs to know why.
      const json::JsonType type = record.ValueAt(at).type();
      if (type != json::JsonType::kObject) {
        return absl::InvalidArgumentError(
            absl::StrCat("field '", text_, "': '", name, "' is looked up in ",
                         json::TypeName(type), ", not an object"));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("field '", text_, "' is missing"));
    }
    at = *child;
  }
  return record.ValueAt(at);
}

void AppendPayloadText(const json::JsonValue& value, std::string& out) {
  if (value.type() == json::JsonType::kString) {
    value.AppendString(out);
  } else {
    value.AppendCompact(out);
  }
}

std::string PayloadText(const json::JsonValue& value) {
  std::string out;
  AppendPayloadText(value, out);
  return out;
}

}  // namespace gcpstream::config
