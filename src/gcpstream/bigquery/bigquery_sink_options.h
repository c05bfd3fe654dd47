#ifndef GCPSTREAM_BIGQUERY_BIGQUERY_SINK_OPTIONS_H_
#define GCPSTREAM_BIGQUERY_BIGQUERY_SINK_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gcpstream/base/options.h"
#include "gcpstream/base/rejection_confirmation.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/bigquery/bigquery_write_stub.h"
#include "gcpstream/bigquery/change_columns.h"
#include "gcpstream/bigquery/table_schema.h"
#include "gcpstream/bigquery/tables_client.h"
#include "gcpstream/connector/client_options.h"
#include "gcpstream/connector/create_disposition.h"
#include "gcpstream/connector/option_table.h"

namespace gcpstream::bigquery {

// Option keys, as written in a pipeline file.
inline constexpr char kWriteMethodKey[] = "write-method";
inline constexpr char kMaxBatchRowsKey[] = "max-batch-rows";
inline constexpr char kMaxBatchBytesKey[] = "max-batch-bytes";
inline constexpr char kMaxInFlightRowsKey[] = "max-in-flight-rows";
inline constexpr char kMaxInFlightBytesKey[] = "max-in-flight-bytes";
inline constexpr char kWriteProgressTimeoutKey[] = "write-progress-timeout";
inline constexpr char kDestinationIdleTimeoutKey[] = "destination-idle-timeout";
inline constexpr char kMaxActiveDestinationsKey[] = "max-active-destinations";
inline constexpr char kMaxAppendConnectionsKey[] = "max-append-connections";
inline constexpr char kIgnoreUnknownFieldsKey[] = "ignore-unknown-fields";
inline constexpr char kPartitionFieldKey[] = "partition-field";
inline constexpr char kPartitionGranularityKey[] = "partition-granularity";
inline constexpr char kPartitionExpirationKey[] = "partition-expiration";
inline constexpr char kClusteringKey[] = "clustering";
inline constexpr char kSchemaUpdateOptionsKey[] = "schema-update-options";
inline constexpr char kAllowFieldAddition[] = "allow-field-addition";
inline constexpr char kAllowFieldRelaxation[] = "allow-field-relaxation";
inline constexpr char kPrimaryKeyKey[] = "primary-key";
inline constexpr char kStagingPathKey[] = "staging-path";
inline constexpr char kMaxStagingFileBytesKey[] = "max-staging-file-bytes";
inline constexpr char kLoadJobTimeoutKey[] = "load-job-timeout";

// An AppendRows request is at most 10 MB; rows are batched under 9 MiB so
// the request's other fields always fit, and a single row over it is
// refused client side (routed) instead of failing its whole request.
inline constexpr int64_t kMaxRowBytes = int64_t{9} << 20;

// How rows reach the table (docs/bigquery.md compares them).
enum class WriteMethod {
  // The table's _default stream: rows are committed as they are appended;
  // a replay after a restart may append a row again.
  kStorageApiAtLeastOnce,
  // Application-created streams with offsets, committed per checkpoint.
  kStorageApiExactlyOnce,
  // Staged files loaded by one load job per table per checkpoint.
  kFileLoads,
};
inline constexpr EnumSpelling<WriteMethod> kWriteMethodSpellings[] = {
    {"storage-api-at-least-once", WriteMethod::kStorageApiAtLeastOnce},
    {"storage-api-exactly-once", WriteMethod::kStorageApiExactlyOnce},
    {"file-loads", WriteMethod::kFileLoads}};
inline constexpr EnumOption<WriteMethod> kWriteMethodOption(
    kWriteMethodKey, kWriteMethodSpellings);

using connector::CreateDisposition;
using connector::kCreateDispositionOption;

// channel, clock, make_timer, make_stub: see ClientOptions; `channel`
// reaches the Storage Write API (BIGQUERY_STORAGE_EMULATOR_HOST on an
// emulator). `tables` reaches the REST API (BIGQUERY_EMULATOR_HOST).
struct BigQuerySinkOptions
    : connector::ClientOptions<BigQueryWriteStubFactory> {
  // Names the sink in errors, logs and metrics.
  std::string name = "bigquery-sink";
  WriteMethod write_method = WriteMethod::kStorageApiAtLeastOnce;
  // max-batch-rows / max-batch-bytes: one table's AppendRows request is
  // sent when the next row would exceed either, on input idle, and on
  // Flush.
  int64_t max_batch_rows = 10'000;
  int64_t max_batch_bytes = kMaxRowBytes;
  // max-in-flight-rows / max-in-flight-bytes: rows taken and not yet
  // written or routed, over every table; at a cap Write() yields to the
  // mailbox until answers free room.
  int64_t max_in_flight_rows = 100'000;
  int64_t max_in_flight_bytes = int64_t{64} << 20;
  // write-progress-timeout: the longest a wait (for room, or in Flush) goes
  // without any answer from the service; expiry fails the writer.
  absl::Duration write_progress_timeout = absl::Minutes(10);
  // destination-idle-timeout: a table unused for longer has its state
  // (schema, writer schema) released at the end of a successful non-final
  // flush; max-active-destinations: beyond this many tables, the least
  // recently used idle one is released.
  absl::Duration destination_idle_timeout = absl::Hours(1);
  int64_t max_active_destinations = 1000;
  // max-append-connections (exactly-once): tables appending at once, each
  // on an AppendRows connection of its own (explicit streams cannot share
  // one); a table waiting for a turn gets the next free one, and a table
  // with more to send yields its turn when others wait.
  int64_t max_append_connections = 4;
  // Missing tables: created from `table` below (the dataset too) under
  // create-if-needed; a failure naming the table under create-never.
  CreateDisposition create_disposition = CreateDisposition::kCreateIfNeeded;
  // The schema, partitioning and clustering of created tables. A pipeline
  // file gives the schema as a `schema:` block and the rest as
  // partition-field, partition-granularity, partition-expiration and
  // clustering.
  TableDefinition table{};
  // schema-update-options: allow-field-addition, allow-field-relaxation. An
  // existing table whose schema lacks columns of `table.schema` (NULLABLE
  // or REPEATED ones), or has REQUIRED ones it has NULLABLE, is patched
  // when the writer first uses it.
  std::vector<std::string> schema_update_options{};
  // ignore-unknown-fields: a record field that is no column is dropped
  // instead of making the record fail (JSON records).
  bool ignore_unknown_fields = false;
  // CDC upserts (storage-api-at-least-once, JSON records):
  // change-type-field names the record field saying UPSERT or DELETE,
  // change-sequence-field the one ordering changes of a key; they become
  // the rows' _CHANGE_TYPE and _CHANGE_SEQUENCE_NUMBER. The table needs a
  // primary key (`table.primary_key`, option primary-key, for tables the
  // sink creates).
  std::string change_type_field{};
  std::string change_sequence_field{};
  // The REST API's endpoint and credentials (tables, datasets, jobs); the
  // channel's credentials apply when this has none of its own.
  rest::RestTargetOptions tables_target{};
  // file-loads: staging-path "gs://bucket[/prefix]" (required): where each
  // writer stages its rows as newline-delimited JSON files, under
  // <prefix>/<sink name>/<writer>/, until the checkpoint's load job read
  // them. max-staging-file-bytes: a table's file is finished (uploaded)
  // when the next row would take it past this, and at every checkpoint.
  // load-job-timeout: how long a commit waits for one load job; expiry
  // fails the commit, and the next attempt waits for the same job.
  std::string staging_path{};
  int64_t max_staging_file_bytes = int64_t{16} << 20;
  absl::Duration load_job_timeout = absl::Hours(1);
  // Cloud Storage's endpoint and credentials (file-loads staging); the
  // channel's credentials apply when this has none of its own.
  rest::RestTargetOptions storage_target{};
  // Resending appends refused with a transient code (UNAVAILABLE,
  // RESOURCE_EXHAUSTED, ...): 100 ms growing 2x to 60 s, 10 min in total.
  RetryOptions retry = {
      .max_attempts = 1000,
      .total_timeout = absl::Minutes(10),
      .backoff = {.initial_delay = absl::Milliseconds(100),
                  .max_delay = absl::Seconds(60),
                  .multiplier = 2.0},
  };
  // max-consecutive-rejections (rejection confirmation's guard).
  int64_t max_consecutive_rejections =
      RejectionConfirmation::kDefaultMaxConsecutiveRejections;
};

// InvalidArgument naming the option key when an option is unusable;
// UNIMPLEMENTED for a write method not built yet.
absl::Status CheckBigQuerySinkOptions(const BigQuerySinkOptions& options);

// What schema-update-options allows (checked options only).
SchemaUpdates AllowedSchemaUpdates(const BigQuerySinkOptions& options);

// The REST client options of the tables and jobs API, and of Cloud Storage
// (file-loads staging), for checked options.
absl::StatusOr<rest::RestClientOptions> TablesRestOptions(
    const BigQuerySinkOptions& options);
absl::StatusOr<rest::RestClientOptions> StorageRestOptions(
    const BigQuerySinkOptions& options);

// A checked staging-path split into bucket and object prefix ("" or ending
// in '/').
struct StagingLocation {
  std::string bucket;
  std::string prefix{};
};
absl::StatusOr<StagingLocation> ParseStagingPath(absl::string_view path);

// Every option above that a pipeline file sets (all but the name, the
// schema, channel, clock, timer and stub), with docs defaults.
connector::OptionTable<BigQuerySinkOptions> BigQuerySinkOptionTable();

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_BIGQUERY_SINK_OPTIONS_H_
