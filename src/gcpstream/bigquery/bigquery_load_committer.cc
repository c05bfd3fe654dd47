#include "gcpstream/bigquery/bigquery_load_committer.h"

#include <algorithm>
#include <map>
#include <utility>

#include <spdlog/spdlog.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gcpstream/bigquery/load_committable.h"
#include "gcpstream/connector/metric_set.h"
#include "gcpstream/runtime/stable_hash.h"
#include "gcpstream/storage/gcs_uri.h"

namespace gcpstream::bigquery {
namespace {

// Polling a running load job: 1 s, growing 1.5x to 30 s.
constexpr absl::Duration kFirstPoll = absl::Seconds(1);
constexpr absl::Duration kMaxPoll = absl::Seconds(30);
constexpr double kPollGrowth = 1.5;
// Job ids are at most 1024 characters; the sink's name is cut to this.
constexpr size_t kMaxNameInJobId = 200;

std::string LabelValue(const std::string& text) {
  std::string out;
  for (const char c : text) {
    out += absl::ascii_isalnum(c) || c == '-' || c == '_'
               ? absl::ascii_tolower(c)
               : '_';
    if (out.size() == 63) break;
  }
  return out;
}

}  // namespace

std::string LoadJobId(const std::string& sink_name, int64_t checkpoint_id,
                      const std::string& table,
                      const std::vector<std::string>& sorted_uris) {
  std::string name;
  for (const char c : sink_name.substr(0, kMaxNameInJobId)) {
    name += absl::ascii_isalnum(c) || c == '_' ? c : '_';
  }
  std::string key = table;
  for (const std::string& uri : sorted_uris) absl::StrAppend(&key, "\n", uri);
  return absl::StrFormat("gcpstream_%s_c%d_%016x", name, checkpoint_id,
                         runtime::StableHash(key));
}

BigQueryLoadCommitter::BigQueryLoadCommitter(BigQuerySinkOptions options)
    : options_(std::move(options)) {}

void BigQueryLoadCommitter::Bind(const runtime::CommitterContext& context) {
  if (context.metrics == nullptr) return;
  MetricLabels labels;
  labels.pipeline = context.pipeline;
  labels.operator_name = context.sink_name;
  connector::MetricSet set(*context.metrics, std::move(labels));
  metrics_ = Metrics{
      .started = set.AddCounter("load_jobs_started",
                                "Load jobs the committer started."),
      .found = set.AddCounter(
          "load_jobs_found",
          "Load jobs found started already (a commit run again) and waited "
          "for instead of started."),
      .failed = set.AddCounter(
          "load_jobs_failed",
          "Load jobs that ended with an error (the commit failed)."),
      .rows = set.AddCounter("rows_loaded",
                             "Staged rows of the load jobs that succeeded."),
      .deleted = set.AddCounter(
          "staged_files_deleted",
          "Staged files deleted after their load job succeeded."),
      .not_deleted = set.AddCounter(
          "staged_files_not_deleted",
          "Loaded staged files whose deletion failed (logged; left for a "
          "lifecycle rule)."),
      .duration = set.AddHistogram(
          "load_job_duration_seconds",
          "Seconds from looking a load job up to its end.",
          {0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}),
  };
  if (!set.status().ok()) {
    spdlog::warn("sink={} load-job metrics not exported: {}", options_.name,
                 std::string(set.status().message()));
  }
}

absl::Status BigQueryLoadCommitter::Open() {
  if (jobs_.has_value()) return absl::OkStatus();
  absl::StatusOr<rest::RestClientOptions> tables = TablesRestOptions(options_);
  if (!tables.ok()) return tables.status();
  absl::StatusOr<rest::RestClientOptions> storage =
      StorageRestOptions(options_);
  if (!storage.ok()) return storage.status();
  tables_.emplace(rest::RestClient(*tables));
  storage_.emplace(rest::RestClient(*std::move(storage)));
  jobs_.emplace(rest::RestClient(*std::move(tables)));
  return absl::OkStatus();
}

absl::Status BigQueryLoadCommitter::Commit(
    int64_t checkpoint_id, const std::vector<std::string>& committables) {
  struct TableFiles {
    std::vector<std::string> uris;
    int64_t rows = 0;
  };
  std::map<std::string, TableFiles> files_by_table;
  for (const std::string& text : committables) {
    absl::StatusOr<LoadCommittable> committable = LoadCommittable::Decode(text);
    if (!committable.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(options_.name, ": checkpoint ", checkpoint_id, ": ",
                       committable.status().message()));
    }
    TableFiles& files = files_by_table[committable->table];
    files.rows += committable->rows;
    for (std::string& uri : committable->uris) {
      files.uris.push_back(std::move(uri));
    }
  }
  if (absl::Status opened = Open(); !opened.ok()) return opened;
  for (auto& [table, files] : files_by_table) {
    if (absl::Status loaded =
            LoadTable(checkpoint_id, table, std::move(files.uris), files.rows);
        !loaded.ok()) {
      return absl::Status(
          loaded.code(),
          absl::StrCat(options_.name, ": loading checkpoint ", checkpoint_id,
                       " into ", table, ": ", loaded.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status BigQueryLoadCommitter::LoadTable(int64_t checkpoint_id,
                                              const std::string& table,
                                              std::vector<std::string> uris,
                                              int64_t rows) {
  absl::StatusOr<TableDestination> destination = ParseTableSpec(table);
  if (!destination.ok()) return destination.status();
  // The job runs where the table is; the table also must still exist, as
  // the job does not create it.
  absl::StatusOr<TableInfo> info = tables_->GetTable(*destination);
  if (!info.ok()) {
    return absl::Status(
        info.status().code(),
        absl::StrCat("reading the table failed (its ", uris.size(),
                     " staged files are kept): ", info.status().message()));
  }
  std::sort(uris.begin(), uris.end());
  uris.erase(std::unique(uris.begin(), uris.end()), uris.end());
  std::vector<std::string> schema_updates;
  const SchemaUpdates updates = AllowedSchemaUpdates(options_);
  if (updates.add_fields) schema_updates.emplace_back("ALLOW_FIELD_ADDITION");
  if (updates.relax_fields) {
    schema_updates.emplace_back("ALLOW_FIELD_RELAXATION");
  }
  for (size_t first = 0; first < uris.size(); first += kMaxUrisPerLoadJob) {
    std::vector<std::string> chunk(
        uris.begin() + static_cast<ptrdiff_t>(first),
        uris.begin() + static_cast<ptrdiff_t>(
                           std::min(uris.size(), first + kMaxUrisPerLoadJob)));
    LoadJobRequest request{
        .job_id = LoadJobId(options_.name, checkpoint_id, table, chunk),
        .location = info->location,
        .table = *destination,
        .uris = std::move(chunk),
        .schema_update_options = schema_updates,
        .labels = {{"gcpstream-sink", LabelValue(options_.name)}}};
    const absl::Time started = absl::Now();
    absl::StatusOr<LoadJobState> job = RunJob(request);
    if (!job.ok()) return job.status();
    metrics_.duration->Observe(absl::ToDoubleSeconds(absl::Now() - started));
    if (job->error.has_value()) {
      metrics_.failed->Increment();
      return absl::Status(
          job->error->code(),
          absl::StrCat("load job ", request.job_id, " failed (its ",
                       request.uris.size(),
                       " staged files are kept; docs/bigquery.md says how to "
                       "recover): ",
                       job->error->message()));
    }
    spdlog::info(
        "sink={} checkpoint={} table={} load job {} done: {} files, {} rows "
        "staged, {} rows reported, {}",
        options_.name, checkpoint_id, table, request.job_id,
        request.uris.size(), rows,
        job->output_rows.has_value() ? absl::StrCat(*job->output_rows) : "?",
        absl::FormatDuration(absl::Now() - started));
    DeleteStaged(request.uris);
  }
  metrics_.rows->Increment(static_cast<uint64_t>(rows));
  return absl::OkStatus();
}

absl::StatusOr<LoadJobState> BigQueryLoadCommitter::RunJob(
    const LoadJobRequest& request) {
  const std::string& project = request.table.project;
  // Looked up first: a replayed commit finds its job, and a service that
  // would run a repeated id again (the emulator) never sees one.
  absl::StatusOr<LoadJobState> job =
      jobs_->Get(project, request.job_id, request.location);
  if (job.ok()) {
    metrics_.found->Increment();
  } else if (job.status().code() == absl::StatusCode::kNotFound) {
    job = jobs_->Insert(request);
    if (job.ok()) {
      metrics_.started->Increment();
    } else if (job.status().code() == absl::StatusCode::kAlreadyExists) {
      metrics_.found->Increment();
      job = jobs_->Get(project, request.job_id, request.location);
    }
  }
  const absl::Time deadline = absl::Now() + options_.load_job_timeout;
  absl::Duration poll = kFirstPoll;
  while (job.ok() && !job->done) {
    if (absl::Now() + poll > deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "load job ", request.job_id, " is not done after ",
          absl::FormatDuration(options_.load_job_timeout), " (option '",
          kLoadJobTimeoutKey, "'); the next attempt waits for the same job"));
    }
    absl::SleepFor(poll);
    poll = std::min(kMaxPoll, poll * kPollGrowth);
    const std::string location =
        job->location.empty() ? request.location : job->location;
    job = jobs_->Get(project, request.job_id, location);
  }
  if (!job.ok()) {
    return absl::Status(job.status().code(),
                        absl::StrCat("load job ", request.job_id, ": ",
                                     job.status().message()));
  }
  return job;
}

void BigQueryLoadCommitter::DeleteStaged(const std::vector<std::string>& uris) {
  for (const std::string& uri : uris) {
    absl::StatusOr<std::pair<std::string, std::string>> object =
        storage::ParseGcsUri(uri);
    absl::Status deleted = object.status();
    if (object.ok()) deleted = storage_->Delete(object->first, object->second);
    // Gone already: a replayed commit deleted it before.
    if (deleted.ok() || deleted.code() == absl::StatusCode::kNotFound) {
      metrics_.deleted->Increment();
    } else {
      metrics_.not_deleted->Increment();
      spdlog::warn("sink={} staged file {} was loaded but not deleted: {}",
                   options_.name, uri, std::string(deleted.message()));
    }
  }
}

}  // namespace gcpstream::bigquery
