#ifndef GCPSTREAM_CONNECTOR_ENTRY_OUTCOMES_H_
#define GCPSTREAM_CONNECTOR_ENTRY_OUTCOMES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gcpstream/base/status_class.h"

namespace gcpstream::connector {

// The answers to one batch request whose service reports a status per entry
// (Spanner BatchWrite groups, Bigtable MutateRows entries, BigQuery row
// errors), by the entry's index in the request. An entry the service did not
// report is undecided: it may or may not have been applied, and is sent
// again.
class EntryOutcomes {
 public:
  explicit EntryOutcomes(size_t entries)
      : statuses_(entries), reported_(entries, false) {}

  // Records the status of entry `index`. False, and ignored, for an index
  // out of range or one already reported: answers no service gives, which
  // must not decide an entry twice.
  bool Report(int64_t index, const absl::Status& status);

  size_t size() const { return statuses_.size(); }
  bool reported(size_t index) const { return reported_[index]; }
  // The status reported for entry `index` (OK when none was).
  const absl::Status& status(size_t index) const { return statuses_[index]; }

  // Every entry sorted by `table`'s entry level, and the request's own
  // status by its request level.
  struct Sorted {
    std::vector<size_t> written;
    std::vector<std::pair<size_t, absl::Status>> routed;
    // Transient entries and undecided ones, in index order.
    std::vector<size_t> retry;
    // Why to retry: the last transient status (an entry's or the
    // request's); UNAVAILABLE naming the undecided entries when only those
    // are left.
    absl::Status retry_status;
    // The first entry refused fatally, if any, and all of them.
    std::optional<std::pair<size_t, absl::Status>> fatal_entry;
    std::vector<std::pair<size_t, absl::Status>> fatal_entries;
    // The request's status when it is neither OK nor transient: a
    // request-level refusal is never routed.
    absl::Status fatal_request;
  };
  Sorted Sort(const ClassificationTable& table,
              const absl::Status& request_status) const;

 private:
  std::vector<absl::Status> statuses_;
  std::vector<bool> reported_;
};

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_ENTRY_OUTCOMES_H_
