#include "gcpstream/bigquery/staged_files.h"

#include <utility>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gcpstream::bigquery {
namespace {

// Object-name safe: letters, digits, '-', '_' and '.'.
std::string PathPart(absl::string_view text) {
  std::string out;
  for (const char c : text) {
    out += absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' ? c : '_';
  }
  return out;
}

std::string WriterId(int subtask) {
  absl::BitGen random;
  return absl::StrFormat("%016x-s%d", absl::Uniform<uint64_t>(random), subtask);
}

}  // namespace

StagedFiles::StagedFiles(const std::string& sink_name, int subtask,
                         StagingLocation location,
                         storage::StorageClient client, Metrics metrics)
    : sink_name_(sink_name),
      location_(std::move(location)),
      directory_(absl::StrCat(location_.prefix, PathPart(sink_name), "/",
                              WriterId(subtask), "/")),
      client_(std::move(client)),
      metrics_(std::move(metrics)) {}

absl::Status StagedFiles::Upload(const TableDestination& table,
                                 std::string& data, int64_t rows) {
  if (rows == 0) return absl::OkStatus();
  const std::string object =
      absl::StrCat(directory_, PathPart(table.dataset), ".",
                   PathPart(table.table), "/part-", next_part_, ".json");
  absl::StatusOr<storage::ObjectMetadata> uploaded = client_.Upload(
      location_.bucket, object, data, {.if_generation_match = 0});
  if (!uploaded.ok()) {
    return absl::Status(
        uploaded.status().code(),
        absl::StrCat(sink_name_, ": staging ", rows, " rows of table ",
                     table.Spec(), " as gs://", location_.bucket, "/", object,
                     " failed: ", uploaded.status().message()));
  }
  ++next_part_;
  metrics_.files->Increment();
  metrics_.bytes->Increment(data.size());
  metrics_.rows->Increment(static_cast<uint64_t>(rows));
  LoadCommittable& committable = staged_[table.Spec()];
  committable.table = table.Spec();
  committable.uris.push_back(
      absl::StrCat("gs://", location_.bucket, "/", object));
  committable.rows += rows;
  data.clear();
  return absl::OkStatus();
}

std::vector<std::string> StagedFiles::TakeCommittables() {
  std::vector<std::string> committables;
  committables.reserve(staged_.size());
  for (const auto& [table, committable] : staged_) {
    committables.push_back(committable.Encode());
  }
  staged_.clear();
  return committables;
}

}  // namespace gcpstream::bigquery
