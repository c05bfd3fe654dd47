#ifndef GCPSTREAM_BIGTABLE_ROW_MUTATION_H_
#define GCPSTREAM_BIGTABLE_ROW_MUTATION_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/bigtable/v2/bigtable.pb.h"

namespace gcpstream::bigtable {

// The service's limits the sink enforces itself (the emulator enforces
// none of them): a record over one is a per-record failure, decided before
// anything is sent.
inline constexpr int64_t kMaxRowKeyBytes = int64_t{4} * 1024;
inline constexpr int64_t kMaxCellValueBytes = int64_t{100} << 20;
inline constexpr int64_t kMaxMutationsPerEntry = 100'000;
inline constexpr int64_t kMaxEntryBytes = int64_t{200} << 20;
// SetCell with this timestamp lets the server stamp the cell.
inline constexpr int64_t kServerTimestamp = -1;
// SetCell with this timestamp is stamped by the writer when it takes the
// entry (PrepareEntry): the writer's clock, in whole milliseconds.
inline constexpr int64_t kWriterTimestamp = std::numeric_limits<int64_t>::min();

// What a serializer makes of a record: the mutations of one row, applied
// atomically. Builds the MutateRows entry the sink sends, so handing it to a
// request costs no copy.
//
//   RowMutationEntry entry("order#42");
//   entry.SetCell("cf", "status", "shipped", event_time_micros);
class RowMutationEntry {
 public:
  explicit RowMutationEntry(std::string row_key);

  // A cell at `timestamp_micros` (a multiple of 1000: Bigtable keeps
  // milliseconds). Writing it again overwrites that version: idempotent.
  RowMutationEntry& SetCell(std::string family, std::string qualifier,
                            std::string value, int64_t timestamp_micros);
  // A cell stamped with the writer's clock when the sink takes the entry:
  // a resend overwrites that version (idempotent); a replay after a restart
  // stamps it anew, so the cell may get a second version.
  RowMutationEntry& SetCell(std::string family, std::string qualifier,
                            std::string value);
  // A cell the server stamps on arrival: every write adds a version, so
  // the entry is not idempotent (docs/bigtable.md, "Idempotence").
  RowMutationEntry& SetCellWithServerTimestamp(std::string family,
                                               std::string qualifier,
                                               std::string value);
  // Deletes the column's cells with start <= timestamp < end (microseconds;
  // unset: unbounded).
  RowMutationEntry& DeleteCells(std::string family, std::string qualifier,
                                std::optional<int64_t> start_micros = {},
                                std::optional<int64_t> end_micros = {});
  RowMutationEntry& DeleteFamily(std::string family);
  RowMutationEntry& DeleteRow();

  const std::string& row_key() const { return entry_.row_key(); }
  int mutation_count() const { return entry_.mutations_size(); }

  const google::bigtable::v2::MutateRowsRequest::Entry& entry() const {
    return entry_;
  }
  google::bigtable::v2::MutateRowsRequest::Entry& mutable_entry() {
    return entry_;
  }

 private:
  google::bigtable::v2::MutateRowsRequest::Entry entry_;
};

struct CheckedEntry {
  // The entry's size on the wire.
  int64_t bytes = 0;
  // Whether resending it has the effect of sending it once: false when a
  // SetCell has the server's timestamp.
  bool idempotent = true;
};

// Stamps the entry's kWriterTimestamp cells with `writer_micros` (the
// writer's clock, whole milliseconds), then checks it against the limits
// the service would refuse it for (the mutation itself could not be
// written, so it is a per-record failure): an empty or oversized row key,
// no mutations or more than kMaxMutationsPerEntry, a cell value over
// kMaxCellValueBytes, an entry over kMaxEntryBytes, a timestamp that is not
// a multiple of 1000 (or -1), an empty family, a time range that ends
// before it starts, a mutation kind the sink does not write.
// InvalidArgument naming the limit and the mutation.
absl::StatusOr<CheckedEntry> PrepareEntry(
    google::bigtable::v2::MutateRowsRequest::Entry& entry,
    absl::FunctionRef<int64_t()> writer_micros);

// The families the entry's mutations name (a row deletion names none).
template <typename F>
void ForEachFamily(const google::bigtable::v2::MutateRowsRequest::Entry& entry,
                   F&& f) {
  for (const google::bigtable::v2::Mutation& mutation : entry.mutations()) {
    switch (mutation.mutation_case()) {
      case google::bigtable::v2::Mutation::kSetCell:
        f(absl::string_view(mutation.set_cell().family_name()));
        break;
      case google::bigtable::v2::Mutation::kDeleteFromColumn:
        f(absl::string_view(mutation.delete_from_column().family_name()));
        break;
      case google::bigtable::v2::Mutation::kDeleteFromFamily:
        f(absl::string_view(mutation.delete_from_family().family_name()));
        break;
      default:
        break;
    }
  }
}

}  // namespace gcpstream::bigtable

#endif  // GCPSTREAM_BIGTABLE_ROW_MUTATION_H_
