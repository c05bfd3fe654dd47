#include "gcpstream/bigquery/table_destination.h"

#include <algorithm>
#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"

namespace gcpstream::bigquery {

absl::Status CheckTableNamePart(absl::string_view value,
                                absl::string_view what) {
  const auto invalid = [&](absl::string_view rule) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", what, " '", value, "' is not valid: ", rule));
  };
  if (value.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("the ", what, " is empty"));
  }
  if (what == "project") {
    for (const char c : value) {
      if (!absl::ascii_islower(static_cast<unsigned char>(c)) &&
          !absl::ascii_isdigit(static_cast<unsigned char>(c)) && c != '-' &&
          c != '.' && c != ':') {
        return invalid(
            "a project id is lower-case letters, digits and '-' (or "
            "domain:project)");
      }
    }
    return absl::OkStatus();
  }
  if (value.size() > 1024) return invalid("at most 1024 characters");
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (what == "dataset" ? !(absl::ascii_isalnum(u) || c == '_')
                          : (c == '/' || c == '.' || absl::ascii_iscntrl(u))) {
      return invalid(what == "dataset"
                         ? "a dataset id is letters, digits and '_'"
                         : "a table id has no '/', '.' or control characters");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<TableDestination> ParseTableSpec(absl::string_view spec) {
  std::string text(spec);
  // The bq tool's "project:dataset.table"; a domain-scoped project
  // ("example.com:p") keeps its colon.
  const size_t colon = text.rfind(':');
  if (colon != std::string::npos &&
      text.find('.', colon) != std::string::npos &&
      std::count(text.begin() + static_cast<std::ptrdiff_t>(colon), text.end(),
                 '.') == 1) {
    text[colon] = '.';
  }
  const size_t last = text.rfind('.');
  const size_t middle = last == std::string::npos || last == 0
                            ? std::string::npos
                            : text.rfind('.', last - 1);
  if (middle == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", spec, "' is not a table: write it as project.dataset.table"));
  }
  TableDestination table(text.substr(0, middle),
                         text.substr(middle + 1, last - middle - 1),
                         text.substr(last + 1));
  absl::Status status = CheckTableNamePart(table.project, "project");
  status.Update(CheckTableNamePart(table.dataset, "dataset"));
  status.Update(CheckTableNamePart(table.table, "table"));
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("table '", spec, "': ", status.message()));
  }
  return table;
}

}  // namespace gcpstream::bigquery
