#include "gcpstream/connector/entry_outcomes.h"

#include "absl/strings/str_cat.h"

namespace gcpstream::connector {

bool EntryOutcomes::Report(int64_t index, const absl::Status& status) {
  if (index < 0 || index >= static_cast<int64_t>(statuses_.size()) ||
      reported_[index]) {
    return false;
  }
  reported_[index] = true;
  statuses_[index] = status;
  return true;
}

EntryOutcomes::Sorted EntryOutcomes::Sort(
    const ClassificationTable& table,
    const absl::Status& request_status) const {
  Sorted sorted;
  size_t undecided = 0;
  for (size_t i = 0; i < statuses_.size(); ++i) {
    if (!reported_[i]) {
      sorted.retry.push_back(i);
      ++undecided;
      continue;
    }
    const absl::Status& status = statuses_[i];
    if (status.ok()) {
      sorted.written.push_back(i);
      continue;
    }
    switch (table.ClassifyEntry(status)) {
      case StatusClass::kPerRecord:
        sorted.routed.emplace_back(i, status);
        break;
      case StatusClass::kTransient:
        sorted.retry.push_back(i);
        sorted.retry_status = status;
        break;
      case StatusClass::kFatal:
        if (!sorted.fatal_entry.has_value()) {
          sorted.fatal_entry.emplace(i, status);
        }
        sorted.fatal_entries.emplace_back(i, status);
        break;
    }
  }
  if (!request_status.ok()) {
    if (table.ClassifyRequest(request_status) == StatusClass::kTransient) {
      sorted.retry_status = request_status;
    } else {
      sorted.fatal_request = request_status;
    }
  }
  if (!sorted.retry.empty() && sorted.retry_status.ok()) {
    sorted.retry_status = absl::UnavailableError(
        absl::StrCat("the response ended without a status for ", undecided,
                     " of ", statuses_.size(), " entries"));
  }
  return sorted;
}

}  // namespace gcpstream::connector
