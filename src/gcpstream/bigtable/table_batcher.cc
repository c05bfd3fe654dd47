#include "gcpstream/bigtable/table_batcher.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace gcpstream::bigtable {

using ::google::bigtable::v2::MutateRowsRequest;

// A released batcher's calls have all ended; only their callbacks' last
// steps can be outstanding, which take microseconds.
constexpr absl::Duration kReleaseTimeout = absl::Seconds(30);

TableBatcher::TableBatcher(TableDestination table, std::string app_profile_id,
                           BatchLimits limits, TableState state,
                           ExponentialBackoff retry_backoff)
    : table_(std::move(table)),
      table_name_(table_.ResourceName()),
      app_profile_id_(std::move(app_profile_id)),
      limits_(limits),
      state_(state),
      retry_backoff_(std::move(retry_backoff)) {
  open_.request = NewRequest();
}

MutateRowsRequest TableBatcher::NewRequest() const {
  MutateRowsRequest request;
  request.set_table_name(table_name_);
  if (!app_profile_id_.empty()) request.set_app_profile_id(app_profile_id_);
  return request;
}

bool TableBatcher::WouldOverflow(int64_t bytes, int64_t mutations) const {
  if (open_.empty()) return false;
  return open_.size() + 1 > limits_.max_entries ||
         open_.bytes + bytes > limits_.max_bytes ||
         open_.mutations + mutations > limits_.max_mutations;
}

bool TableBatcher::Add(MutateRowsRequest::Entry&& entry, EntryInfo info,
                       int64_t mutations) {
  *open_.request.add_entries() = std::move(entry);
  open_.infos.push_back(info);
  open_.bytes += info.bytes;
  open_.mutations += mutations;
  return open_.size() >= limits_.max_entries;
}

void TableBatcher::AddRetry(MutateRowsRequest::Entry&& entry, EntryInfo info) {
  const int64_t mutations = entry.mutations_size();
  if (retries_.empty() || retries_.back().size() + 1 > limits_.max_entries ||
      retries_.back().bytes + info.bytes > limits_.max_bytes ||
      retries_.back().mutations + mutations > limits_.max_mutations) {
    retries_.emplace_back();
    retries_.back().request = NewRequest();
  }
  EntryBatch& batch = retries_.back();
  *batch.request.add_entries() = std::move(entry);
  batch.infos.push_back(info);
  batch.bytes += info.bytes;
  batch.mutations += mutations;
}

std::vector<EntryBatch> TableBatcher::TakeRetries() {
  std::vector<EntryBatch> taken = std::move(retries_);
  retries_.clear();
  return taken;
}

EntryBatch TableBatcher::TakeOpen() {
  EntryBatch taken = std::move(open_);
  open_ = EntryBatch();
  open_has_resends_ = false;
  open_.request = NewRequest();
  return taken;
}

absl::Status TableBatcher::Release() {
  if (tracker_->WaitForNone(kReleaseTimeout)) return absl::OkStatus();
  return absl::DeadlineExceededError(
      absl::StrCat("the batcher of ", table_name_, " did not shut down within ",
                   absl::FormatDuration(kReleaseTimeout), ": ",
                   tracker_->pending(), " gRPC callbacks are still pending"));
}

}  // namespace gcpstream::bigtable
