#include "gcpstream/bigtable/row_mutation.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::bigtable {
namespace {

using ::google::bigtable::v2::MutateRowsRequest;
using ::google::bigtable::v2::Mutation;

absl::Status Refused(int index, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("mutation #", index, " ", what));
}

absl::Status CheckTimestamp(int index, int64_t micros) {
  if (micros == kServerTimestamp) return absl::OkStatus();
  if (micros < 0 || micros % 1000 != 0) {
    return Refused(
        index,
        absl::StrCat("has timestamp ", micros,
                     " microseconds: Bigtable keeps milliseconds, so a cell "
                     "timestamp must be a multiple of 1000 (or -1 for "
                     "the server's time)"));
  }
  return absl::OkStatus();
}

absl::Status CheckFamily(int index, const std::string& family) {
  if (!family.empty()) return absl::OkStatus();
  return Refused(index, "has an empty column family name");
}

absl::Status CheckMutation(int index, const Mutation& mutation) {
  switch (mutation.mutation_case()) {
    case Mutation::kSetCell: {
      const Mutation::SetCell& cell = mutation.set_cell();
      if (absl::Status family = CheckFamily(index, cell.family_name());
          !family.ok()) {
        return family;
      }
      if (static_cast<int64_t>(cell.value().size()) > kMaxCellValueBytes) {
        return Refused(index,
                       absl::StrCat("sets a cell of ", cell.value().size(),
                                    " bytes; Bigtable's limit is ",
                                    kMaxCellValueBytes, " bytes per cell"));
      }
      return CheckTimestamp(index, cell.timestamp_micros());
    }
    case Mutation::kDeleteFromColumn: {
      const Mutation::DeleteFromColumn& column = mutation.delete_from_column();
      if (absl::Status family = CheckFamily(index, column.family_name());
          !family.ok()) {
        return family;
      }
      if (!column.has_time_range()) return absl::OkStatus();
      const auto& range = column.time_range();
      for (const int64_t micros :
           {range.start_timestamp_micros(), range.end_timestamp_micros()}) {
        if (micros < 0 || micros % 1000 != 0) {
          return Refused(index,
                         absl::StrCat("deletes cells from or to ", micros,
                                      " microseconds: time range bounds "
                                      "must be non-negative multiples "
                                      "of 1000"));
        }
      }
      if (range.end_timestamp_micros() != 0 &&
          range.end_timestamp_micros() < range.start_timestamp_micros()) {
        return Refused(index,
                       "deletes a time range that ends before it starts");
      }
      return absl::OkStatus();
    }
    case Mutation::kDeleteFromFamily:
      return CheckFamily(index, mutation.delete_from_family().family_name());
    case Mutation::kDeleteFromRow:
      return absl::OkStatus();
    default:
      return Refused(index,
                     "is of a kind the sink does not write (set a cell, "
                     "delete cells, a family or the row)");
  }
}

}  // namespace

RowMutationEntry::RowMutationEntry(std::string row_key) {
  entry_.set_row_key(std::move(row_key));
}

RowMutationEntry& RowMutationEntry::SetCell(std::string family,
                                            std::string qualifier,
                                            std::string value,
                                            int64_t timestamp_micros) {
  Mutation::SetCell& cell = *entry_.add_mutations()->mutable_set_cell();
  cell.set_family_name(std::move(family));
  cell.set_column_qualifier(std::move(qualifier));
  cell.set_value(std::move(value));
  cell.set_timestamp_micros(timestamp_micros);
  return *this;
}

RowMutationEntry& RowMutationEntry::SetCell(std::string family,
                                            std::string qualifier,
                                            std::string value) {
  return SetCell(std::move(family), std::move(qualifier), std::move(value),
                 kWriterTimestamp);
}

RowMutationEntry& RowMutationEntry::SetCellWithServerTimestamp(
    std::string family, std::string qualifier, std::string value) {
  return SetCell(std::move(family), std::move(qualifier), std::move(value),
                 kServerTimestamp);
}

RowMutationEntry& RowMutationEntry::DeleteCells(
    std::string family, std::string qualifier,
    std::optional<int64_t> start_micros, std::optional<int64_t> end_micros) {
  Mutation::DeleteFromColumn& column =
      *entry_.add_mutations()->mutable_delete_from_column();
  column.set_family_name(std::move(family));
  column.set_column_qualifier(std::move(qualifier));
  if (start_micros.has_value() || end_micros.has_value()) {
    column.mutable_time_range()->set_start_timestamp_micros(
        start_micros.value_or(0));
    column.mutable_time_range()->set_end_timestamp_micros(
        end_micros.value_or(0));
  }
  return *this;
}

RowMutationEntry& RowMutationEntry::DeleteFamily(std::string family) {
  entry_.add_mutations()->mutable_delete_from_family()->set_family_name(
      std::move(family));
  return *this;
}

RowMutationEntry& RowMutationEntry::DeleteRow() {
  entry_.add_mutations()->mutable_delete_from_row();
  return *this;
}

absl::StatusOr<CheckedEntry> PrepareEntry(
    MutateRowsRequest::Entry& entry,
    absl::FunctionRef<int64_t()> writer_micros) {
  if (entry.row_key().empty()) {
    return absl::InvalidArgumentError("the row key is empty");
  }
  if (static_cast<int64_t>(entry.row_key().size()) > kMaxRowKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the row key has ", entry.row_key().size(),
                     " bytes; Bigtable's limit is ", kMaxRowKeyBytes));
  }
  if (entry.mutations_size() == 0) {
    return absl::InvalidArgumentError(
        "the entry has no mutations (return nullopt from the serializer to "
        "skip a record)");
  }
  if (entry.mutations_size() > kMaxMutationsPerEntry) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the entry has ", entry.mutations_size(),
        " mutations; Bigtable's limit is ", kMaxMutationsPerEntry, " per row"));
  }
  CheckedEntry checked;
  for (int i = 0; i < entry.mutations_size(); ++i) {
    Mutation& mutation = *entry.mutable_mutations(i);
    if (mutation.has_set_cell() &&
        mutation.set_cell().timestamp_micros() == kWriterTimestamp) {
      mutation.mutable_set_cell()->set_timestamp_micros(writer_micros());
    }
    if (absl::Status status = CheckMutation(i, mutation); !status.ok()) {
      return status;
    }
    if (mutation.has_set_cell() &&
        mutation.set_cell().timestamp_micros() == kServerTimestamp) {
      checked.idempotent = false;
    }
  }
  checked.bytes = static_cast<int64_t>(entry.ByteSizeLong());
  if (checked.bytes > kMaxEntryBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the entry has ", checked.bytes, " bytes; the sink's limit is ",
        kMaxEntryBytes, " bytes per row"));
  }
  return checked;
}

}  // namespace gcpstream::bigtable
