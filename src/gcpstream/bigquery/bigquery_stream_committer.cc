#include "gcpstream/bigquery/bigquery_stream_committer.h"

#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gcpstream/auth/channel_factory.h"

namespace gcpstream::bigquery {
namespace {

using storage_v1::StorageError;

// Rounds of BatchCommitWriteStreams per table: the first, one after
// streams found committed are dropped, one after streams found unfinalized
// are finalized.
constexpr int kMaxCommitRounds = 3;

}  // namespace

BigQueryStreamCommitter::BigQueryStreamCommitter(BigQuerySinkOptions options)
    : options_(std::move(options)) {}

absl::Status BigQueryStreamCommitter::Commit(
    int64_t checkpoint_id, const std::vector<std::string>& committables) {
  std::map<std::string, std::vector<std::string>> streams_by_table;
  for (const std::string& text : committables) {
    absl::StatusOr<StreamCommittable> committable =
        StreamCommittable::Decode(text);
    if (!committable.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(options_.name, ": checkpoint ", checkpoint_id, ": ",
                       committable.status().message()));
    }
    streams_by_table[committable->table].push_back(committable->stream);
  }
  if (!admin_.has_value()) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
        auth::MakeChannel(auth::Service::kBigQueryStorage, options_.channel);
    if (!channel.ok()) return channel.status();
    admin_.emplace(*std::move(channel),
                   WriteStreamAdminOptions{.retry = options_.retry});
  }
  for (auto& [table, streams] : streams_by_table) {
    if (absl::Status committed = CommitTable(table, std::move(streams));
        !committed.ok()) {
      return absl::Status(
          committed.code(),
          absl::StrCat(options_.name, ": committing checkpoint ", checkpoint_id,
                       " into ", table, ": ", committed.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status BigQueryStreamCommitter::CommitTable(
    const std::string& table, std::vector<std::string> streams) {
  for (int round = 0; round < kMaxCommitRounds && !streams.empty(); ++round) {
    absl::StatusOr<storage_v1::BatchCommitWriteStreamsResponse> response =
        admin_->BatchCommit(table, streams);
    if (!response.ok()) return response.status();
    if (response->stream_errors().empty()) {
      if (response->has_commit_time()) return absl::OkStatus();
      return absl::UnknownError(
          "BatchCommitWriteStreams answered neither a commit time nor "
          "errors");
    }
    // Nothing was committed: the streams not found committed go again.
    std::map<std::string, bool> done;
    for (const StorageError& error : response->stream_errors()) {
      switch (error.code()) {
        case StorageError::STREAM_ALREADY_COMMITTED:
          done[error.entity()] = true;
          break;
        case StorageError::INVALID_STREAM_STATE: {
          absl::StatusOr<bool> committed = IsCommitted(error.entity());
          if (!committed.ok()) return committed.status();
          done[error.entity()] = *committed;
          break;
        }
        case StorageError::STREAM_NOT_FOUND:
          return absl::DataLossError(absl::StrCat(
              "stream ", error.entity(),
              " no longer exists, and its rows with it (a PENDING stream "
              "not committed in time is deleted by the service): ",
              error.error_message()));
        default:
          return absl::FailedPreconditionError(
              absl::StrCat("stream ", error.entity(), " refused (",
                           StorageError::StorageErrorCode_Name(error.code()),
                           "): ", error.error_message()));
      }
    }
    std::vector<std::string> again;
    for (std::string& stream : streams) {
      if (!done[stream]) again.push_back(std::move(stream));
    }
    streams = std::move(again);
  }
  if (streams.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "streams ", absl::StrJoin(streams, ", "), " not committed after ",
      kMaxCommitRounds, " rounds of BatchCommitWriteStreams"));
}

absl::StatusOr<bool> BigQueryStreamCommitter::IsCommitted(
    const std::string& stream) {
  absl::StatusOr<storage_v1::WriteStream> described = admin_->Get(stream);
  if (!described.ok()) return described.status();
  if (described->has_commit_time()) return true;
  absl::StatusOr<int64_t> finalized = admin_->Finalize(stream);
  if (finalized.ok()) return false;
  // The emulator's answer for a committed stream (the service's shows in
  // commit_time above).
  if (finalized.status().code() == absl::StatusCode::kFailedPrecondition &&
      absl::StrContains(finalized.status().message(), "committed")) {
    return true;
  }
  return finalized.status();
}

}  // namespace gcpstream::bigquery
