#include "gcpstream/bigquery/change_columns.h"

#include <cstdint>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace gcpstream::bigquery {
namespace {

constexpr int kMaxSections = 4;
constexpr size_t kMaxSectionDigits = 16;

std::string ShownValue(const nlohmann::json& value) {
  std::string text =
      value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 40) + "...";
  return text;
}

bool IsHexSections(absl::string_view text) {
  const std::vector<absl::string_view> sections = absl::StrSplit(text, '/');
  if (sections.size() > kMaxSections) return false;
  for (absl::string_view section : sections) {
    if (section.empty() || section.size() > kMaxSectionDigits) return false;
    for (const char c : section) {
      if (!absl::ascii_isxdigit(c)) return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> ParseChangeType(const nlohmann::json& value) {
  if (value.is_string()) {
    std::string upper =
        absl::AsciiStrToUpper(value.get_ref<const std::string&>());
    if (upper == "UPSERT" || upper == "DELETE") return upper;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      ShownValue(value), R"( is no change type: write "UPSERT" or "DELETE")"));
}

absl::StatusOr<std::string> ParseChangeSequence(const nlohmann::json& value) {
  if (value.is_number_unsigned() ||
      (value.is_number_integer() && value.get<int64_t>() >= 0)) {
    return absl::StrFormat("%X", value.get<uint64_t>());
  }
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (IsHexSections(text)) return absl::AsciiStrToUpper(text);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      ShownValue(value),
      " is no change sequence number: write a non-negative integer (a JSON "
      "number), or a string of 1 to 4 sections of 1 to 16 hexadecimal "
      "digits separated by '/'"));
}

}  // namespace gcpstream::bigquery
