#include "gcpstream/base/options.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spdlog/spdlog.h"

namespace gcpstream {
namespace {

absl::Status InvalidDuration(absl::string_view key, absl::string_view shown,
                             absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(key, ": '", shown, "' is not a valid duration (", why,
                   "); expected e.g. '500ms', '30s', '2m' or '1h30m'"));
}

// Why `value` is not a usable duration option, or empty if it is.
absl::string_view OutOfBounds(absl::Duration value) {
  if (value < absl::Nanoseconds(1)) return "must be at least 1ns";
  if (value > kMaxDurationOption) {
    return "must be at most 2562047h47m16.854775807s, the int64 nanosecond "
           "limit";
  }
  return "";
}

bool IsValidSpelling(absl::string_view spelling) {
  if (spelling.empty() || spelling.front() == '-' || spelling.back() == '-') {
    return false;
  }
  if (absl::StrContains(spelling, "--")) return false;
  return std::all_of(spelling.begin(), spelling.end(), [](char c) {
    return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '-';
  });
}

}  // namespace

absl::StatusOr<absl::Duration> ParseDurationOption(absl::string_view text,
                                                   absl::string_view key) {
  absl::Duration value;
  if (!absl::ParseDuration(text, &value)) {
    return InvalidDuration(key, text,
                           "not a number followed by one of the units ns, us, "
                           "ms, s, m, h, or too large");
  }
  if (absl::string_view why = OutOfBounds(value); !why.empty()) {
    return InvalidDuration(key, text, why);
  }
  return value;
}

absl::Status CheckDurationOption(absl::Duration value, absl::string_view key) {
  if (absl::string_view why = OutOfBounds(value); !why.empty()) {
    return InvalidDuration(key, absl::FormatDuration(value), why);
  }
  return absl::OkStatus();
}

absl::Status CheckResourceNameComponent(absl::string_view value,
                                        absl::string_view key) {
  absl::string_view why;
  if (value.empty()) {
    why = "it is empty";
  } else if (absl::StrContains(value, '/')) {
    why = "it contains '/'";
  } else if (absl::StripAsciiWhitespace(value) != value) {
    why = "it has leading or trailing whitespace";
  } else {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      key, ": '", value, "' is not a valid resource name component: ", why));
}

namespace internal_options {

absl::Status UnknownEnumValue(absl::string_view key, absl::string_view text,
                              const std::vector<absl::string_view>& accepted) {
  return absl::InvalidArgumentError(
      absl::StrCat(key, ": unknown value '", text,
                   "'; accepted values: ", absl::StrJoin(accepted, ", ")));
}

void WarnDeprecatedSpelling(absl::string_view key, absl::string_view old,
                            absl::string_view current) {
  spdlog::warn("option '{}': '{}' is deprecated; write '{}' instead",
               std::string(key), std::string(old), std::string(current));
}

absl::Status CheckEnumSpellings(absl::string_view key,
                                const std::vector<absl::string_view>& spellings,
                                const std::vector<int>& values,
                                const std::vector<bool>& deprecated) {
  if (spellings.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(key, ": enum option lists no spellings"));
  }
  std::set<absl::string_view> seen_spellings;
  std::set<int> seen_values;
  for (size_t i = 0; i < spellings.size(); ++i) {
    if (!IsValidSpelling(spellings[i])) {
      return absl::FailedPreconditionError(
          absl::StrCat(key, ": spelling '", spellings[i],
                       "' is not lower-case words joined by single hyphens"));
    }
    // Valid spellings are lower-case, so a case-insensitive duplicate is an
    // exact one.
    if (!seen_spellings.insert(spellings[i]).second) {
      return absl::FailedPreconditionError(
          absl::StrCat(key, ": spelling '", spellings[i], "' listed twice"));
    }
    // An old spelling names a value that has its current one.
    if (deprecated[i] ? !seen_values.contains(values[i])
                      : !seen_values.insert(values[i]).second) {
      return absl::FailedPreconditionError(
          absl::StrCat(key, ": value of '", spellings[i],
                       deprecated[i] ? "' has no current spelling before it"
                                     : "' already has another spelling"));
    }
  }
  return absl::OkStatus();
}

}  // namespace internal_options
}  // namespace gcpstream
