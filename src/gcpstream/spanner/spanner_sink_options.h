#ifndef GCPSTREAM_SPANNER_SPANNER_SINK_OPTIONS_H_
#define GCPSTREAM_SPANNER_SPANNER_SINK_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/destination.h"
#include "gcpstream/base/options.h"
#include "gcpstream/base/rejection_confirmation.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/connector/client_options.h"
#include "gcpstream/connector/option_table.h"
#include "gcpstream/connector/task_timer.h"
#include "gcpstream/spanner/spanner_stub.h"

namespace gcpstream::spanner {

// The one database a Spanner sink writes; each mutation names its table.
struct DatabaseDestination : DestinationIdentity<DatabaseDestination> {
  DatabaseDestination() = default;
  DatabaseDestination(std::string project_id, std::string instance_id,
                      std::string database_id)
      : project(std::move(project_id)),
        instance(std::move(instance_id)),
        database(std::move(database_id)) {}

  std::string project;
  std::string instance;
  std::string database;

  // "projects/<p>/instances/<i>/databases/<d>".
  std::string ResourceName() const {
    return absl::StrCat("projects/", project, "/instances/", instance,
                        "/databases/", database);
  }
  std::tuple<absl::string_view, absl::string_view, absl::string_view>
  IdentityFields() const {
    return {project, instance, database};
  }
};

enum class WriteMethod {
  // BatchWrite, one mutation per group: each group's status decides its
  // record, so one refusal never fails its neighbours.
  kBatchWrite,
  // Batched blind-write commits; a refused commit goes through rejection
  // confirmation.
  kCommit,
};
inline constexpr EnumSpelling<WriteMethod> kWriteMethodSpellings[] = {
    {"batch-write", WriteMethod::kBatchWrite},
    {"commit", WriteMethod::kCommit}};
inline constexpr EnumOption<WriteMethod> kWriteMethodOption(
    "write-method", kWriteMethodSpellings);

// What FAILED_PRECONDITION (NOT NULL, column length, foreign key) and
// OUT_OF_RANGE (CHECK) refusals of one mutation do.
enum class ConstraintViolationPolicy {
  // The default: a disabled or unreachable CMEK key also answers
  // FAILED_PRECONDITION, for every write, until the key returns; routing
  // would drain the stream into the failure handler.
  kFailJob,
  kRouteToFailureHandler,
};
inline constexpr EnumSpelling<ConstraintViolationPolicy>
    kConstraintViolationPolicySpellings[] = {
        {"fail-job", ConstraintViolationPolicy::kFailJob},
        {"route-to-failure-handler",
         ConstraintViolationPolicy::kRouteToFailureHandler}};
inline constexpr EnumOption<ConstraintViolationPolicy>
    kConstraintViolationPolicyOption("constraint-violation-policy",
                                     kConstraintViolationPolicySpellings);

enum class RpcPriority { kLow, kMedium, kHigh };
inline constexpr EnumSpelling<RpcPriority> kRpcPrioritySpellings[] = {
    {"low", RpcPriority::kLow},
    {"medium", RpcPriority::kMedium},
    {"high", RpcPriority::kHigh}};
inline constexpr EnumOption<RpcPriority> kRpcPriorityOption(
    "rpc-priority", kRpcPrioritySpellings);

inline constexpr char kMaxBatchCellsKey[] = "max-batch-cells";
inline constexpr char kMaxBatchMutationsKey[] = "max-batch-mutations";
inline constexpr char kMaxBatchBytesKey[] = "max-batch-bytes";
inline constexpr char kMaxCommitDelayKey[] = "max-commit-delay";
inline constexpr char kRpcTimeoutKey[] = "rpc-timeout";
inline constexpr int64_t kMaxBatchCellsCeiling = 80'000;
inline constexpr int64_t kMaxBatchMutationsCeiling = 80'000;
inline constexpr int64_t kMaxBatchBytesCeiling = int64_t{100} << 20;

// channel, clock, make_timer, make_stub: see ClientOptions.
struct SpannerSinkOptions : connector::ClientOptions<SpannerStubFactory> {
  // Names the sink in errors, logs and metrics.
  std::string name = "spanner-sink";
  DatabaseDestination database;
  WriteMethod write_method = WriteMethod::kBatchWrite;
  ConstraintViolationPolicy constraint_violation_policy =
      ConstraintViolationPolicy::kFailJob;
  // A batch is sent when the next mutation would exceed any of these; a
  // single mutation over them is sent alone.
  int64_t max_batch_cells = 5000;
  int64_t max_batch_mutations = 500;
  int64_t max_batch_bytes = int64_t{1} << 20;
  // max-commit-delay (0..500 ms): lets Spanner wait to batch commits.
  std::optional<absl::Duration> max_commit_delay;
  std::optional<RpcPriority> rpc_priority;
  // max-consecutive-rejections (rejection confirmation's guard).
  int64_t max_consecutive_rejections =
      RejectionConfirmation::kDefaultMaxConsecutiveRejections;
  // Resending undecided mutations: 500 ms growing to 10 s, 10 attempts.
  RetryOptions retry = {
      .max_attempts = 10,
      .total_timeout = absl::Minutes(10),
      .backoff = {.initial_delay = absl::Milliseconds(500),
                  .max_delay = absl::Seconds(10),
                  .multiplier = 2.0},
  };
  // The deadline of one request (and of the schema and session calls).
  absl::Duration rpc_timeout = absl::Seconds(60);
};

// InvalidArgument naming the option key when an option is unusable.
absl::Status CheckSpannerSinkOptions(const SpannerSinkOptions& options);

// Every option above that a pipeline file or WITH clause sets (all but
// the name, database, channel, clock and timer), with docs defaults.
connector::OptionTable<SpannerSinkOptions> SpannerSinkOptionTable();

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SPANNER_SINK_OPTIONS_H_
