#ifndef GCPSTREAM_BIGQUERY_LOAD_JOBS_CLIENT_H_
#define GCPSTREAM_BIGQUERY_LOAD_JOBS_CLIENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/bigquery/table_destination.h"
#include "gcpstream/rest/rest_client.h"

namespace gcpstream::bigquery {

// What a load job is asked to do.
struct LoadJobRequest {
  std::string job_id;
  // Where the job runs: the destination's location; empty lets the service
  // choose (US and EU datasets, and the emulator).
  std::string location;
  TableDestination table;
  std::vector<std::string> uris;  // Newline-delimited JSON files.
  // ALLOW_FIELD_ADDITION / ALLOW_FIELD_RELAXATION.
  std::vector<std::string> schema_update_options;
  // Labels the job carries (key -> value).
  std::vector<std::pair<std::string, std::string>> labels;
};

// A load job as the jobs API describes it.
struct LoadJobState {
  std::string location;
  bool done = false;
  // Set when the job ended without loading: the errorResult, with the first
  // of `errors` (the service names bad rows and files there).
  std::optional<absl::Status> error;
  std::optional<int64_t> output_rows;
};

// BigQuery's jobs API, the part file loads use: synchronous, on the REST
// client (the committer's own thread).
class LoadJobsClient {
 public:
  explicit LoadJobsClient(rest::RestClient client)
      : client_(std::move(client)) {}

  // Starts the job: WRITE_APPEND, CREATE_NEVER, newline-delimited JSON.
  // ALREADY_EXISTS when a job with this id exists (a replayed commit).
  absl::StatusOr<LoadJobState> Insert(const LoadJobRequest& request) const;
  // NOT_FOUND when no job has this id (in `location`, when given).
  absl::StatusOr<LoadJobState> Get(const std::string& project,
                                   const std::string& job_id,
                                   const std::string& location) const;

 private:
  rest::RestClient client_;
};

// The job's state in a jobs API answer.
absl::StatusOr<LoadJobState> LoadJobStateFromJson(const std::string& body);

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_LOAD_JOBS_CLIENT_H_
