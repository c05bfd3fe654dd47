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

absl::StatusOr<const nlohmann::json*> FieldPath::Find(
    const nlohmann::json& record) const {
  const nlohmann::json* at = &record;
  for (const std::string& name : names_) {
    if (!at->is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat("field '", text_, "': '", name, "' is looked up in ",
                       at->type_name(), ", not an object"));
    }
    auto it = at->find(name);
    if (it == at->end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("field '", text_, "' is missing"));
    }
    at = &*it;
  }
  return at;
}

}  // namespace gcpstream::config
