#include "gcpstream/iceberg/add_files/add_files_sink.h"

#include "absl/time/clock.h"

namespace gcpstream::iceberg {
namespace {

constexpr char kConnector[] = "iceberg";

}  // namespace

absl::StatusOr<std::unique_ptr<AddFilesWindow>> AddFilesWindow::Create(
    const AddFilesSinkOptions& options, const CatalogFactory& catalog,
    std::unique_ptr<IcebergFailureHandler> handler,
    const runtime::SinkWriterContext& context) {
  if (absl::Status valid = ValidateAddFilesOptions(options.add_files);
      !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.name, ": ", valid.message()));
  }
  if (!catalog) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.name, ": an add-files sink needs a catalog"));
  }
  absl::StatusOr<std::unique_ptr<Catalog>> opened = catalog();
  if (!opened.ok()) return opened.status();
  if (handler == nullptr) handler = FailJob<IcebergFailedElement>();
  auto window = std::make_unique<AddFilesWindow>(
      options, *std::move(opened), std::move(handler), context.subtask_index);
  if (absl::Status registered = window->RegisterMetrics(context);
      !registered.ok()) {
    return registered;
  }
  MetricLabels labels{context.pipeline, context.sink_name,
                      context.subtask_index, std::nullopt};
  if (absl::Status opened_handler = window->handler_->Open(
          FailureHandlerContext{.subtask_index = context.subtask_index,
                                .connector = kConnector,
                                .metrics = context.metrics,
                                .labels = labels});
      !opened_handler.ok()) {
    return opened_handler;
  }
  return window;
}

AddFilesWindow::AddFilesWindow(AddFilesSinkOptions options,
                               std::unique_ptr<Catalog> catalog,
                               std::unique_ptr<IcebergFailureHandler> handler,
                               int subtask_index)
    : options_(std::move(options)),
      catalog_(std::move(catalog)),
      handler_(std::move(handler)),
      io_(options_.storage),
      subtask_index_(subtask_index) {}

absl::Status AddFilesWindow::RegisterMetrics(
    const runtime::SinkWriterContext& context) {
  MetricsRegistry private_registry;
  MetricsRegistry& registry =
      context.metrics != nullptr ? *context.metrics : private_registry;
  const MetricLabels labels{context.pipeline, context.sink_name,
                            context.subtask_index, std::nullopt};
  absl::StatusOr<SinkMetrics> sink = SinkMetrics::Create(registry, labels);
  if (!sink.ok()) return sink.status();
  metrics_ = *std::move(sink);
  struct Wanted {
    std::shared_ptr<Counter>* counter;
    const char* name;
    const char* help;
  };
  const Wanted wanted[] = {
      {&files_added_, "gcpstream_iceberg_files_added_total",
       "Data files registered in the table."},
      {&files_skipped_, "gcpstream_iceberg_files_already_added_total",
       "Files skipped because the table already held them."},
      {&error_files_, "gcpstream_iceberg_error_files_total",
       "Files that could not be registered (handed to the failure handler)."},
      {&footer_read_errors_, "gcpstream_iceberg_footer_read_errors_total",
       "Files whose Parquet footer could not be read."},
      {&manifests_added_, "gcpstream_iceberg_manifests_added_total",
       "Manifests written by data commits."},
      {&schema_commits_, "gcpstream_iceberg_schema_commits_total",
       "Metadata commits of schema changes (or the table's creation)."},
      {&snapshots_, "gcpstream_iceberg_snapshots_total",
       "Append snapshots committed."},
  };
  for (const Wanted& metric : wanted) {
    absl::StatusOr<std::shared_ptr<Counter>> counter =
        registry.GetCounter(metric.name, metric.help, labels);
    if (!counter.ok()) return counter.status();
    *metric.counter = *std::move(counter);
  }
  return absl::OkStatus();
}

void AddFilesWindow::Add(std::string path) {
  metrics_.records_in->Increment();
  paths_.push_back(std::move(path));
}

absl::Status AddFilesWindow::Refuse(const absl::Status& status,
                                    const WriterContext& context) {
  metrics_.records_in->Increment();
  IcebergFailedElement failed;
  failed.connector = kConnector;
  failed.destination = TableName(options_.table);
  failed.status = absl::Status(
      status.code(), absl::StrCat("record #", context.record_position,
                                  " names no file: ", status.message()));
  failed.payload = RecordPayloadOf(status);
  failed.failure_time = absl::Now();
  failed.subtask_index = subtask_index_;
  metrics_.records_routed->Increment();
  return handler_->Handle(failed);
}

absl::Status AddFilesWindow::Route(const std::string& file,
                                   const absl::Status& status) {
  IcebergFailedElement failed;
  failed.connector = kConnector;
  failed.destination = TableName(options_.table);
  failed.status = status;
  failed.file = file;
  failed.payload = file;
  failed.failure_time = absl::Now();
  failed.subtask_index = subtask_index_;
  metrics_.records_routed->Increment();
  return handler_->Handle(failed);
}

absl::Status AddFilesWindow::Flush() {
  if (!paths_.empty()) {
    const absl::Time start = absl::Now();
    metrics_.requests->Increment();
    absl::StatusOr<AddFilesResult> result =
        AddFiles(*catalog_, io_, options_.table, paths_, options_.add_files);
    metrics_.flush_duration->Observe(
        absl::ToDoubleSeconds(absl::Now() - start));
    // Kept on failure: the restore replays them anyway, and a retry of the
    // checkpoint must not lose them.
    if (!result.ok()) {
      return absl::Status(
          result.status().code(),
          absl::StrCat(options_.name, ": table ", TableName(options_.table),
                       ": ", result.status().message()));
    }
    paths_.clear();
    const AddFilesCounters& counters = result->counters;
    files_added_->Increment(counters.data_files_added);
    metrics_.records_written->Increment(counters.data_files_added);
    files_skipped_->Increment(counters.already_added_skipped);
    metrics_.records_skipped->Increment(counters.already_added_skipped);
    error_files_->Increment(counters.error_files);
    footer_read_errors_->Increment(counters.footer_read_errors);
    manifests_added_->Increment(counters.manifests_added);
    schema_commits_->Increment(counters.schema_commits);
    if (result->snapshot.has_value()) snapshots_->Increment();
    for (const FileError& error : result->errors) {
      if (absl::Status handled =
              Route(error.file, absl::InvalidArgumentError(error.error));
          !handled.ok()) {
        return handled;
      }
    }
  }
  return handler_->Flush();
}

void AddFilesWindow::Close() { handler_->Close(); }

}  // namespace gcpstream::iceberg
