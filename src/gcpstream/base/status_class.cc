#include "gcpstream/base/status_class.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace gcpstream {

absl::string_view StatusClassName(StatusClass status_class) {
  switch (status_class) {
    case StatusClass::kTransient:
      return "transient";
    case StatusClass::kPerRecord:
      return "per-record";
    case StatusClass::kFatal:
      return "fatal";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, StatusClass status_class) {
  return os << StatusClassName(status_class);
}

StatusClass ClassificationTable::Level::Classify(absl::StatusCode code) const {
  const int index = static_cast<int>(code);
  if (index == 0) {
    // Classifying success means the caller lost track of what failed; failing
    // loudly beats guessing a class that might drop or retry a record.
    std::fputs(
        "gcpstream: ClassificationTable asked to classify an OK status\n",
        stderr);
    std::abort();
  }
  // Codes newer than this table (or foreign integers) take the default.
  if (index < 0 || index >= kCodeCount) return default_class_;
  return classes_[index].value_or(default_class_);
}

bool ClassificationTable::Level::Lists(absl::StatusCode code) const {
  const int index = static_cast<int>(code);
  return index > 0 && index < kCodeCount && classes_[index].has_value();
}

std::string ClassificationTable::Level::ToString() const {
  std::string out;
  for (int index = 1; index < kCodeCount; ++index) {
    if (!classes_[index].has_value()) continue;
    absl::StrAppend(
        &out, absl::StatusCodeToString(static_cast<absl::StatusCode>(index)),
        "=", StatusClassName(*classes_[index]), ", ");
  }
  absl::StrAppend(&out, "default=", StatusClassName(default_class_));
  return out;
}

void ClassificationTable::Level::InvalidEntry(absl::StatusCode code) {
  std::fprintf(stderr,
               "gcpstream: invalid ClassificationTable entry for status code "
               "%d (OK, out of range, or listed twice)\n",
               static_cast<int>(code));
  std::abort();
}

std::string ClassificationTable::ToString() const {
  return absl::StrCat("request: ", request_level_.ToString(),
                      "; entry: ", entry_level_.ToString());
}

}  // namespace gcpstream
