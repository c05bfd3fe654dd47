#include "gcpstream/bigquery/bigquery_sink_options.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "gcpstream/storage/storage_client.h"

namespace gcpstream::bigquery {
namespace {

absl::Status InRange(absl::string_view key, int64_t value, int64_t ceiling) {
  if (value >= 1 && value <= ceiling) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "option '", key, "' must be between 1 and ", ceiling, ", got ", value));
}

TimePartitioning& Partitioning(BigQuerySinkOptions& options) {
  if (!options.table.time_partitioning.has_value()) {
    options.table.time_partitioning.emplace();
  }
  return *options.table.time_partitioning;
}

absl::Status CheckTableDefinition(const BigQuerySinkOptions& options) {
  const TableDefinition& table = options.table;
  absl::Status status;
  if (table.clustering.size() > 4) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kClusteringKey, "' lists ", table.clustering.size(),
        " columns (", absl::StrJoin(table.clustering, ", "),
        "); BigQuery clusters by at most 4")));
  }
  if (table.time_partitioning.has_value()) {
    const TimePartitioning& partitioning = *table.time_partitioning;
    if (absl::StatusOr<std::string> granularity =
            ParsePartitionGranularity(partitioning.granularity);
        !granularity.ok()) {
      status.Update(absl::InvalidArgumentError(
          absl::StrCat("option '", kPartitionGranularityKey,
                       "': ", granularity.status().message())));
    }
    if (partitioning.expiration.has_value()) {
      status.Update(CheckDurationOption(*partitioning.expiration,
                                        kPartitionExpirationKey));
    }
  }
  const bool creates =
      options.create_disposition == CreateDisposition::kCreateIfNeeded;
  if (!creates && (table.time_partitioning.has_value() ||
                   !table.clustering.empty() || !table.schema.fields.empty())) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "a schema, partitioning or clustering is set but option '",
        kCreateDispositionOption.key(), "' is '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateNever),
        "', so no table would be created with them; set it to '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateIfNeeded),
        "' or remove them")));
  }
  if (creates && table.schema.fields.empty() &&
      (table.time_partitioning.has_value() || !table.clustering.empty())) {
    status.Update(absl::InvalidArgumentError(
        "partitioning or clustering is set without a schema to create "
        "tables with; give the sink a schema (a pipeline file's `schema:` "
        "block)"));
  }
  for (const std::string& column : table.clustering) {
    if (!table.schema.fields.empty() && table.schema.Find(column) == nullptr) {
      status.Update(absl::InvalidArgumentError(
          absl::StrCat("option '", kClusteringKey, "' names column '", column,
                       "', which the schema does not have")));
    }
  }
  if (table.time_partitioning.has_value() &&
      !table.time_partitioning->field.empty() && !table.schema.fields.empty()) {
    const FieldSchema* field =
        table.schema.Find(table.time_partitioning->field);
    if (field == nullptr ||
        (field->type != FieldType::kDate &&
         field->type != FieldType::kTimestamp &&
         field->type != FieldType::kDateTime) ||
        field->mode == FieldMode::kRepeated) {
      status.Update(absl::InvalidArgumentError(absl::StrCat(
          "option '", kPartitionFieldKey, "' names '",
          table.time_partitioning->field,
          "', which is not a DATE, TIMESTAMP or DATETIME column of the "
          "schema")));
    }
  }
  return status;
}

// A target with no credentials of its own takes the channel's.
rest::RestTargetOptions WithChannelCredentials(
    rest::RestTargetOptions target, const BigQuerySinkOptions& options) {
  if (target.credentials.service_account_key_file.empty() &&
      target.credentials.quota_project.empty()) {
    target.credentials = options.channel.credentials;
  }
  return target;
}

absl::Status CheckChangeOptions(const BigQuerySinkOptions& options) {
  absl::Status status;
  const TableDefinition& table = options.table;
  if (!table.primary_key.empty() && table.schema.fields.empty()) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kPrimaryKeyKey,
        "' is for tables the sink creates, but it has no schema to create "
        "them with")));
  }
  if (table.primary_key.size() > 16) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kPrimaryKeyKey, "' lists ", table.primary_key.size(),
        " columns; a BigQuery primary key has at most 16")));
  }
  for (const std::string& column : table.primary_key) {
    const FieldSchema* field = table.schema.Find(column);
    if (!table.schema.fields.empty() &&
        (field == nullptr || field->mode == FieldMode::kRepeated ||
         field->type == FieldType::kRecord)) {
      status.Update(absl::InvalidArgumentError(absl::StrCat(
          "option '", kPrimaryKeyKey, "' names '", column,
          "', which is no top-level, non-repeated column of the schema")));
    }
  }
  if (options.change_type_field.empty()) {
    if (!options.change_sequence_field.empty()) {
      status.Update(absl::InvalidArgumentError(absl::StrCat(
          "option '", kChangeSequenceFieldKey, "' is set without '",
          kChangeTypeFieldKey, "'; CDC upserts need both or the type alone")));
    }
    return status;
  }
  if (options.write_method != WriteMethod::kStorageApiAtLeastOnce) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kChangeTypeFieldKey, "' (CDC upserts) needs option '",
        kWriteMethodKey, "' '",
        kWriteMethodOption.Name(WriteMethod::kStorageApiAtLeastOnce),
        "': BigQuery applies changes from the default stream only, not '",
        kWriteMethodOption.Name(options.write_method), "'")));
  }
  if (options.create_disposition == CreateDisposition::kCreateIfNeeded &&
      !table.schema.fields.empty() && table.primary_key.empty()) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kChangeTypeFieldKey,
        "' (CDC upserts) needs tables with a primary key: set option '",
        kPrimaryKeyKey, "' for the tables the sink creates")));
  }
  return status;
}

absl::Status CheckFileLoadOptions(const BigQuerySinkOptions& options) {
  const bool file_loads = options.write_method == WriteMethod::kFileLoads;
  if (!file_loads) {
    if (options.staging_path.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "option '", kStagingPathKey, "' is set but option '", kWriteMethodKey,
        "' is '", kWriteMethodOption.Name(options.write_method),
        "', which stages nothing; set it to '",
        kWriteMethodOption.Name(WriteMethod::kFileLoads),
        "' or remove the staging path"));
  }
  absl::Status status;
  if (options.staging_path.empty()) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kWriteMethodKey, "' is '",
        kWriteMethodOption.Name(WriteMethod::kFileLoads), "', which needs '",
        kStagingPathKey,
        "': a gs://BUCKET/PREFIX the load jobs read staged files from")));
  } else if (absl::StatusOr<StagingLocation> location =
                 ParseStagingPath(options.staging_path);
             !location.ok()) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kStagingPathKey, "': ", location.status().message())));
  }
  status.Update(InRange(kMaxStagingFileBytesKey, options.max_staging_file_bytes,
                        int64_t{4} << 30));
  status.Update(
      CheckDurationOption(options.load_job_timeout, kLoadJobTimeoutKey));
  return status;
}

}  // namespace

absl::StatusOr<StagingLocation> ParseStagingPath(absl::string_view path) {
  absl::string_view rest = path;
  if (!absl::ConsumePrefix(&rest, "gs://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path,
                     "' is not a gs:// path: write gs://BUCKET or "
                     "gs://BUCKET/PREFIX"));
  }
  const size_t slash = rest.find('/');
  StagingLocation location{.bucket = std::string(rest.substr(0, slash))};
  if (location.bucket.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' names no bucket"));
  }
  if (slash != absl::string_view::npos) {
    absl::string_view prefix = rest.substr(slash + 1);
    while (absl::ConsumeSuffix(&prefix, "/")) {
    }
    if (!prefix.empty()) location.prefix = absl::StrCat(prefix, "/");
  }
  return location;
}

absl::StatusOr<rest::RestClientOptions> TablesRestOptions(
    const BigQuerySinkOptions& options) {
  absl::StatusOr<rest::RestClientOptions> client = rest::ResolveRestTarget(
      BigQueryRestService(),
      WithChannelCredentials(options.tables_target, options));
  if (client.ok()) return client;
  return absl::Status(client.status().code(),
                      absl::StrCat(options.name, ": the tables API: ",
                                   client.status().message()));
}

absl::StatusOr<rest::RestClientOptions> StorageRestOptions(
    const BigQuerySinkOptions& options) {
  absl::StatusOr<rest::RestClientOptions> client = rest::ResolveRestTarget(
      storage::StorageRestService(),
      WithChannelCredentials(options.storage_target, options));
  if (client.ok()) return client;
  return absl::Status(
      client.status().code(),
      absl::StrCat(options.name, ": Cloud Storage (option '", kStagingPathKey,
                   "'): ", client.status().message()));
}

absl::Status CheckBigQuerySinkOptions(const BigQuerySinkOptions& options) {
  absl::Status status;
  status.Update(InRange(kMaxBatchRowsKey, options.max_batch_rows, 1'000'000));
  status.Update(
      InRange(kMaxBatchBytesKey, options.max_batch_bytes, kMaxRowBytes));
  status.Update(InRange(kMaxInFlightRowsKey, options.max_in_flight_rows,
                        int64_t{1} << 40));
  status.Update(InRange(kMaxInFlightBytesKey, options.max_in_flight_bytes,
                        int64_t{1} << 40));
  status.Update(InRange(kMaxActiveDestinationsKey,
                        options.max_active_destinations, 1'000'000));
  status.Update(
      InRange(kMaxAppendConnectionsKey, options.max_append_connections, 1000));
  status.Update(CheckDurationOption(options.write_progress_timeout,
                                    kWriteProgressTimeoutKey));
  if (options.destination_idle_timeout != absl::InfiniteDuration()) {
    status.Update(CheckDurationOption(options.destination_idle_timeout,
                                      kDestinationIdleTimeoutKey));
  }
  status.Update(CheckTableDefinition(options));
  status.Update(CheckFileLoadOptions(options));
  status.Update(CheckChangeOptions(options));
  for (const std::string& update : options.schema_update_options) {
    if (update != kAllowFieldAddition && update != kAllowFieldRelaxation) {
      status.Update(absl::InvalidArgumentError(absl::StrCat(
          "option '", kSchemaUpdateOptionsKey, "': '", update, "' is none of '",
          kAllowFieldAddition, "', '", kAllowFieldRelaxation, "'")));
    }
  }
  if (!options.schema_update_options.empty() &&
      options.table.schema.fields.empty()) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kSchemaUpdateOptionsKey,
        "' needs the sink's schema (a pipeline file's `schema:` block) to "
        "know what to add or relax")));
  }
  return connector::CheckSinkWriterOptions(options, std::move(status));
}

SchemaUpdates AllowedSchemaUpdates(const BigQuerySinkOptions& options) {
  SchemaUpdates updates;
  for (const std::string& update : options.schema_update_options) {
    updates.add_fields = updates.add_fields || update == kAllowFieldAddition;
    updates.relax_fields =
        updates.relax_fields || update == kAllowFieldRelaxation;
  }
  return updates;
}

connector::OptionTable<BigQuerySinkOptions> BigQuerySinkOptionTable() {
  using O = BigQuerySinkOptions;
  using connector::DurationOption;
  using connector::IntOption;
  const O defaults;
  connector::OptionTable<O> table({
      connector::EnumField<O>(
          kWriteMethodOption,
          [](O& o) -> WriteMethod& { return o.write_method; },
          "`storage-api-at-least-once`", "storage-api-at-least-once"),
      IntOption<O>(
          kMaxBatchRowsKey, [](O& o) -> int64_t& { return o.max_batch_rows; },
          "10000", "500", 1, 1'000'000),
      IntOption<O>(
          kMaxBatchBytesKey, [](O& o) -> int64_t& { return o.max_batch_bytes; },
          "9 MiB (the ceiling)", "1048576", 1, kMaxRowBytes),
      IntOption<O>(
          kMaxInFlightRowsKey,
          [](O& o) -> int64_t& { return o.max_in_flight_rows; }, "100000",
          "20000", 1),
      IntOption<O>(
          kMaxInFlightBytesKey,
          [](O& o) -> int64_t& { return o.max_in_flight_bytes; }, "64 MiB",
          "16777216", 1),
      DurationOption<O>(
          kWriteProgressTimeoutKey,
          [](O& o) -> absl::Duration& { return o.write_progress_timeout; },
          "10 min", "5m"),
      DurationOption<O>(
          kDestinationIdleTimeoutKey,
          [](O& o) -> absl::Duration& { return o.destination_idle_timeout; },
          "1 h", "30m"),
      IntOption<O>(
          kMaxActiveDestinationsKey,
          [](O& o) -> int64_t& { return o.max_active_destinations; }, "1000",
          "100", 1, 1'000'000),
      IntOption<O>(
          kMaxAppendConnectionsKey,
          [](O& o) -> int64_t& { return o.max_append_connections; }, "4", "8",
          1, 1000),
      connector::EnumField<O>(
          kCreateDispositionOption,
          [](O& o) -> CreateDisposition& { return o.create_disposition; },
          "`create-if-needed`", "create-if-needed"),
      connector::BoolOption<O>(
          kIgnoreUnknownFieldsKey,
          [](O& o) -> bool& { return o.ignore_unknown_fields; }, "false",
          "true"),
      connector::StringOption<O>(
          kPartitionFieldKey,
          [](O& o) -> std::string& { return Partitioning(o).field; },
          "unset (no partitioning)", "ts"),
      connector::StringOption<O>(
          kPartitionGranularityKey,
          [](O& o) -> std::string& { return Partitioning(o).granularity; },
          "`DAY` (when partitioned)", "HOUR"),
      DurationOption<O, std::optional<absl::Duration>>(
          kPartitionExpirationKey,
          [](O& o) -> std::optional<absl::Duration>& {
            return Partitioning(o).expiration;
          },
          "unset (partitions are kept)", "2160h"),
      connector::StringListOption<O>(
          kClusteringKey,
          [](O& o) -> std::vector<std::string>& { return o.table.clustering; },
          "unset (no clustering)", "[region]"),
      connector::StringListOption<O>(
          kSchemaUpdateOptionsKey,
          [](O& o) -> std::vector<std::string>& {
            return o.schema_update_options;
          },
          "unset (tables are not changed)", "[allow-field-addition]"),
      connector::StringListOption<O>(
          kPrimaryKeyKey,
          [](O& o) -> std::vector<std::string>& { return o.table.primary_key; },
          "unset (no primary key)", "[region]"),
      connector::StringOption<O>(
          kChangeTypeFieldKey,
          [](O& o) -> std::string& { return o.change_type_field; },
          "unset (rows are appended)", "op"),
      connector::StringOption<O>(
          kChangeSequenceFieldKey,
          [](O& o) -> std::string& { return o.change_sequence_field; },
          "unset (applied in arrival order)", "lsn"),
      connector::StringOption<O>(
          kStagingPathKey, [](O& o) -> std::string& { return o.staging_path; },
          "unset (required by `file-loads`)",
          "gs://my-bucket/bigquery-staging"),
      IntOption<O>(
          kMaxStagingFileBytesKey,
          [](O& o) -> int64_t& { return o.max_staging_file_bytes; }, "16 MiB",
          "67108864", 1, int64_t{4} << 30),
      DurationOption<O>(
          kLoadJobTimeoutKey,
          [](O& o) -> absl::Duration& { return o.load_job_timeout; }, "1 h",
          "2h"),
  });
  connector::AddSinkWriterOptions(table, defaults);
  return table;
}

}  // namespace gcpstream::bigquery
