#include "gcpstream/spanner/spanner_sink_options.h"

namespace gcpstream::spanner {
namespace {

absl::Status InRange(absl::string_view key, int64_t value, int64_t ceiling) {
  if (value >= 1 && value <= ceiling) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("option '", key, "' must be between 1 and ", ceiling,
                   " (the service's limit), got ", value));
}

}  // namespace

absl::Status CheckSpannerSinkOptions(const SpannerSinkOptions& options) {
  absl::Status status =
      CheckResourceNameComponent(options.database.project, "project");
  status.Update(
      CheckResourceNameComponent(options.database.instance, "instance"));
  status.Update(
      CheckResourceNameComponent(options.database.database, "database"));
  status.Update(InRange(kMaxBatchCellsKey, options.max_batch_cells,
                        kMaxBatchCellsCeiling));
  status.Update(InRange(kMaxBatchMutationsKey, options.max_batch_mutations,
                        kMaxBatchMutationsCeiling));
  status.Update(InRange(kMaxBatchBytesKey, options.max_batch_bytes,
                        kMaxBatchBytesCeiling));
  if (options.max_commit_delay.has_value() &&
      (*options.max_commit_delay < absl::ZeroDuration() ||
       *options.max_commit_delay > absl::Milliseconds(500))) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kMaxCommitDelayKey, "' must be between 0 and 500ms, got ",
        absl::FormatDuration(*options.max_commit_delay))));
  }
  status.Update(CheckDurationOption(options.rpc_timeout, kRpcTimeoutKey));
  return connector::CheckSinkWriterOptions(options, std::move(status));
}

connector::OptionTable<SpannerSinkOptions> SpannerSinkOptionTable() {
  using O = SpannerSinkOptions;
  using connector::EnumField;
  using connector::IntOption;
  const O defaults;
  connector::OptionTable<O> table({
      EnumField<O>(
          kWriteMethodOption,
          [](O& o) -> WriteMethod& { return o.write_method; }, "`batch-write`",
          "commit"),
      EnumField<O>(
          kConstraintViolationPolicyOption,
          [](O& o) -> ConstraintViolationPolicy& {
            return o.constraint_violation_policy;
          },
          "`fail-job`", "route-to-failure-handler"),
      IntOption<O>(
          kMaxBatchCellsKey, [](O& o) -> int64_t& { return o.max_batch_cells; },
          "5000 (ceiling 80,000)", "8000", 1, kMaxBatchCellsCeiling),
      IntOption<O>(
          kMaxBatchMutationsKey,
          [](O& o) -> int64_t& { return o.max_batch_mutations; },
          "500 (ceiling 80,000)", "1000", 1, kMaxBatchMutationsCeiling),
      IntOption<O>(
          kMaxBatchBytesKey, [](O& o) -> int64_t& { return o.max_batch_bytes; },
          "1 MiB (ceiling 100 MiB)", "2097152", 1, kMaxBatchBytesCeiling),
      connector::DurationOption<O, std::optional<absl::Duration>>(
          kMaxCommitDelayKey,
          [](O& o) -> std::optional<absl::Duration>& {
            return o.max_commit_delay;
          },
          "unset", "100ms"),
      EnumField<O, RpcPriority, std::optional<RpcPriority>>(
          kRpcPriorityOption,
          [](O& o) -> std::optional<RpcPriority>& { return o.rpc_priority; },
          "unset (service default)", "low"),
      connector::DurationOption<O>(
          kRpcTimeoutKey, [](O& o) -> absl::Duration& { return o.rpc_timeout; },
          "60 s", "30s"),
  });
  connector::AddSinkWriterOptions(table, defaults);
  return table;
}

}  // namespace gcpstream::spanner
