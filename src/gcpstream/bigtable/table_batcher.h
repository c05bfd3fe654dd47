#ifndef GCPSTREAM_BIGTABLE_TABLE_BATCHER_H_
#define GCPSTREAM_BIGTABLE_TABLE_BATCHER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/base/backoff_policy.h"
#include "gcpstream/bigtable/table_destination.h"
#include "gcpstream/connector/callback_tracker.h"
#include "gcpstream/connector/task_timer.h"
#include "google/bigtable/v2/bigtable.pb.h"

namespace gcpstream::bigtable {

// What the writer knows of one entry besides the entry itself.
struct EntryInfo {
  int64_t bytes = 0;
  bool idempotent = true;
  // Sends so far, and when the first one started (the retry budget).
  int attempts = 0;
  absl::Time first_sent = absl::InfinitePast();
};

// Entries of one table on their way into one MutateRows request. `infos`
// runs parallel to `request.entries`.
struct EntryBatch {
  google::bigtable::v2::MutateRowsRequest request;
  std::vector<EntryInfo> infos;
  int64_t bytes = 0;
  int64_t mutations = 0;

  int64_t size() const { return static_cast<int64_t>(infos.size()); }
  bool empty() const { return infos.empty(); }
};

// Where a table stands for the writer. Under create-never a table is taken
// to exist (kReady) until the service says otherwise; under
// create-if-needed it is looked up first (and created, or given the
// declared families it lacks) before anything is sent to it.
enum class TableState { kReady, kEnsuring };

struct BatchLimits {
  int64_t max_entries = 100;
  int64_t max_bytes = int64_t{20} << 20;
  int64_t max_mutations = 100'000;
};

// One table's batcher: the open batch, the table's state and families,
// and the calls the writer has out for it. Task thread only; the tracker
// counts the gRPC callbacks of its calls so Release() can wait for them.
class TableBatcher {
 public:
  TableBatcher(TableDestination table, std::string app_profile_id,
               BatchLimits limits, TableState state,
               ExponentialBackoff retry_backoff);

  const TableDestination& table() const { return table_; }
  const std::string& table_name() const { return table_name_; }
  TableState state() const { return state_; }
  void set_state(TableState state) { state_ = state; }

  // Whether adding an entry of `bytes` and `mutations` would take the open
  // batch over a limit (an empty batch takes any entry).
  bool WouldOverflow(int64_t bytes, int64_t mutations) const;
  // Adds the entry; true when the batch reached max_entries.
  bool Add(google::bigtable::v2::MutateRowsRequest::Entry&& entry,
           EntryInfo info, int64_t mutations);
  // The open batch holds entries sent before (a first resend rides along
  // with new entries instead of costing a request of its own).
  void MarkOpenHasResends() { open_has_resends_ = true; }
  bool open_has_resends() const { return open_has_resends_; }
  // The open batch (empty when none), leaving a new one open.
  EntryBatch TakeOpen();
  bool has_open() const { return !open_.empty(); }
  // Entries to send again once the table's retry backoff ends (from their
  // second resend on): those of every failed request of the table in that
  // time go out together.
  void AddRetry(google::bigtable::v2::MutateRowsRequest::Entry&& entry,
                EntryInfo info);
  std::vector<EntryBatch> TakeRetries();
  bool has_retries() const { return !retries_.empty(); }
  // The timer of the pending resend (0: none).
  connector::TaskTimer::Id retry_timer = 0;
  // The backoff before resending entries sent `attempts` times.
  absl::Duration RetryDelay(int attempts) {
    return retry_backoff_.DelayForAttempt(attempts);
  }

  // A request for `table` with the table's name and app profile set.
  google::bigtable::v2::MutateRowsRequest NewRequest() const;

  // The families the table has, once known (after ensuring).
  const absl::flat_hash_set<std::string>& families() const { return families_; }
  void set_families(absl::flat_hash_set<std::string> families) {
    families_ = std::move(families);
  }
  bool families_known() const { return families_known_; }
  void set_families_known() { families_known_ = true; }

  // Calls out for this table (sent, waiting out a backoff, or parked).
  void CallStarted() { ++calls_; }
  void CallEnded() { --calls_; }
  const std::shared_ptr<connector::CallbackTracker>& tracker() const {
    return tracker_;
  }

  // Nothing open, nothing out or waiting to go again, not being ensured:
  // safe to release.
  bool IsClean() const {
    return open_.empty() && calls_ == 0 && retries_.empty() &&
           state_ == TableState::kReady;
  }
  // Waits for gRPC to hand back the callbacks of finished calls.
  absl::Status Release();

 private:
  const TableDestination table_;
  const std::string table_name_;
  const std::string app_profile_id_;
  const BatchLimits limits_;
  TableState state_;
  EntryBatch open_;
  bool open_has_resends_ = false;
  std::vector<EntryBatch> retries_;
  ExponentialBackoff retry_backoff_;
  absl::flat_hash_set<std::string> families_;
  bool families_known_ = false;
  int64_t calls_ = 0;
  std::shared_ptr<connector::CallbackTracker> tracker_ =
      std::make_shared<connector::CallbackTracker>();
};

}  // namespace gcpstream::bigtable

#endif  // GCPSTREAM_BIGTABLE_TABLE_BATCHER_H_
