#ifndef GCPSTREAM_BIGQUERY_STAGED_FILES_H_
#define GCPSTREAM_BIGQUERY_STAGED_FILES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/bigquery/bigquery_sink_options.h"
#include "gcpstream/bigquery/load_committable.h"
#include "gcpstream/bigquery/table_destination.h"
#include "gcpstream/storage/storage_client.h"

namespace gcpstream::bigquery {

// The files one file-loads writer staged in Cloud Storage since its last
// checkpoint, per table. Files are named
// <prefix><sink>/<writer id>/<dataset>.<table>/part-<n>.json, the writer id
// random per writer instance, so a restarted writer never meets a name it
// or another writer used; an upload never replaces an object. Task thread
// only.
class StagedFiles {
 public:
  struct Metrics {
    std::shared_ptr<Counter> files{};
    std::shared_ptr<Counter> bytes{};
    std::shared_ptr<Counter> rows{};
  };

  StagedFiles(const std::string& sink_name, int subtask,
              StagingLocation location, storage::StorageClient client,
              Metrics metrics);

  // Uploads `data` (`rows` newline-delimited JSON rows for `table`) as the
  // table's next file, and empties it. An error names the object; the
  // writer fails (the source replays what was not checkpointed).
  absl::Status Upload(const TableDestination& table, std::string& data,
                      int64_t rows);
  // What was staged since the last call, one LoadCommittable per table.
  std::vector<std::string> TakeCommittables();

 private:
  const std::string sink_name_;
  const StagingLocation location_;
  // <prefix><sink>/<writer id>/
  const std::string directory_;
  storage::StorageClient client_;
  Metrics metrics_;
  int64_t next_part_ = 0;
  std::map<std::string, LoadCommittable> staged_;  // By table spec.
};

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_STAGED_FILES_H_
