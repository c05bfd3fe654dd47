#ifndef GCPSTREAM_BIGQUERY_BIGQUERY_STREAM_COMMITTER_H_
#define GCPSTREAM_BIGQUERY_BIGQUERY_STREAM_COMMITTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gcpstream/bigquery/bigquery_sink_options.h"
#include "gcpstream/bigquery/stream_committable.h"
#include "gcpstream/bigquery/write_stream_admin.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::bigquery {

// Makes the rows of an exactly-once BigQuery sink visible once their
// checkpoint is durable: the finalized PENDING streams of each table
// (StreamCommittables) are committed together by BatchCommitWriteStreams,
// atomically per table.
//
// Idempotent, because it runs again after a crash between "checkpoint
// durable" and "commit done": a stream the service reports committed
// (STREAM_ALREADY_COMMITTED, or a commit_time on the stream) is done. The
// emulator answers a second commit with INVALID_STREAM_STATE and sets no
// commit_time; such a stream is finalized again, and a refusal because it
// is committed means done (docs/bigquery.md, emulator deviations). A
// stream that no longer exists fails the commit with DATA_LOSS.
class BigQueryStreamCommitter final : public runtime::Committer {
 public:
  explicit BigQueryStreamCommitter(BigQuerySinkOptions options);

  absl::Status Commit(int64_t checkpoint_id,
                      const std::vector<std::string>& committables) override;

 private:
  absl::Status CommitTable(const std::string& table,
                           std::vector<std::string> streams);
  // Whether a stream the service refused to commit for its state is
  // committed already; if not, it is finalized now.
  absl::StatusOr<bool> IsCommitted(const std::string& stream);

  BigQuerySinkOptions options_;
  std::optional<WriteStreamAdmin> admin_;  // Made on the first commit.
};

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_BIGQUERY_STREAM_COMMITTER_H_
