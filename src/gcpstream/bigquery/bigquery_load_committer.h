#ifndef GCPSTREAM_BIGQUERY_BIGQUERY_LOAD_COMMITTER_H_
#define GCPSTREAM_BIGQUERY_BIGQUERY_LOAD_COMMITTER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/bigquery/bigquery_sink_options.h"
#include "gcpstream/bigquery/load_jobs_client.h"
#include "gcpstream/bigquery/tables_client.h"
#include "gcpstream/runtime/sink.h"
#include "gcpstream/storage/storage_client.h"

namespace gcpstream::bigquery {

// A load job takes at most this many source URIs.
inline constexpr size_t kMaxUrisPerLoadJob = 10'000;

// The id of the load job for `uris` into `table` at `checkpoint_id`:
// "gcpstream_<sink>_c<checkpoint>_<hash of table and sorted uris>", letters,
// digits and '_' only. The same staged files always make the same id, so a
// replayed commit finds its job instead of loading twice.
std::string LoadJobId(const std::string& sink_name, int64_t checkpoint_id,
                      const std::string& table,
                      const std::vector<std::string>& sorted_uris);

// Loads the files a file-loads BigQuery sink staged for a checkpoint, once
// the checkpoint is durable: per table one load job (WRITE_APPEND) over
// every writer's files (10,000 URIs per job at most), then the files are
// deleted.
//
// Idempotent, because it runs again after a crash between "checkpoint
// durable" and "commit done": the job id is derived from the checkpoint,
// the table and the files, and the job is looked up before it is started
// (and once more when the start is refused as existing), so a job is
// waited for, never run twice. A job that ends with an error fails the
// commit and keeps the files; the next attempt finds the same failed job
// (docs/bigquery.md says how to recover).
class BigQueryLoadCommitter final : public runtime::Committer {
 public:
  explicit BigQueryLoadCommitter(BigQuerySinkOptions options);

  // Registers the load-job metrics (labels: the pipeline, the sink,
  // subtask 0). Unbound, it counts into metrics nobody reads.
  void Bind(const runtime::CommitterContext& context) override;
  absl::Status Commit(int64_t checkpoint_id,
                      const std::vector<std::string>& committables) override;

 private:
  absl::Status Open();
  absl::Status LoadTable(int64_t checkpoint_id, const std::string& table,
                         std::vector<std::string> uris, int64_t rows);
  // Starts the job unless it exists, and waits until it is done.
  absl::StatusOr<LoadJobState> RunJob(const LoadJobRequest& request);
  void DeleteStaged(const std::vector<std::string>& uris);

  struct Metrics {
    std::shared_ptr<Counter> started = std::make_shared<Counter>();
    std::shared_ptr<Counter> found = std::make_shared<Counter>();
    std::shared_ptr<Counter> failed = std::make_shared<Counter>();
    std::shared_ptr<Counter> rows = std::make_shared<Counter>();
    std::shared_ptr<Counter> deleted = std::make_shared<Counter>();
    std::shared_ptr<Counter> not_deleted = std::make_shared<Counter>();
    std::shared_ptr<Histogram> duration =
        std::make_shared<Histogram>(std::vector<double>{});
  };

  BigQuerySinkOptions options_;
  Metrics metrics_;
  // Made on the first commit.
  std::optional<TablesClient> tables_;
  std::optional<LoadJobsClient> jobs_;
  std::optional<storage::StorageClient> storage_;
};

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_BIGQUERY_LOAD_COMMITTER_H_
