#ifndef GCPSTREAM_BIGTABLE_BIGTABLE_SINK_OPTIONS_H_
#define GCPSTREAM_BIGTABLE_BIGTABLE_SINK_OPTIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gcpstream/base/options.h"
#include "gcpstream/base/rejection_confirmation.h"
#include "gcpstream/base/retry_policy.h"
#include "gcpstream/bigtable/bigtable_stub.h"
#include "gcpstream/connector/client_options.h"
#include "gcpstream/connector/create_disposition.h"
#include "gcpstream/connector/option_table.h"
#include "google/bigtable/admin/v2/table.pb.h"

namespace gcpstream::bigtable {

// Option keys, as written in a pipeline file.
inline constexpr char kAppProfileIdKey[] = "app-profile-id";
inline constexpr char kBatchElementCountKey[] = "batch-element-count";
inline constexpr char kBatchByteSizeKey[] = "batch-byte-size";
inline constexpr char kMaxInFlightEntriesKey[] = "max-in-flight-entries";
inline constexpr char kMaxInFlightBytesKey[] = "max-in-flight-bytes";
inline constexpr char kWriteProgressTimeoutKey[] = "write-progress-timeout";
inline constexpr char kDestinationIdleTimeoutKey[] = "destination-idle-timeout";
inline constexpr char kColumnFamiliesKey[] = "column-families";
inline constexpr char kGcMaxVersionsKey[] = "gc-max-versions";
inline constexpr char kGcMaxAgeKey[] = "gc-max-age";
inline constexpr char kRecoveryInitialBackoffKey[] = "recovery-initial-backoff";
inline constexpr char kRecoveryMaxBackoffKey[] = "recovery-max-backoff";
inline constexpr char kRecoveryMaxAttemptsKey[] = "recovery-max-attempts";

// The service's limits on one MutateRows request.
inline constexpr int64_t kMaxEntriesPerRequest = 19'999;
inline constexpr int64_t kMaxMutationsPerRequest = 100'000;

// create-disposition: see connector/create_disposition.h.
using connector::CreateDisposition;
using connector::kCreateDispositionOption;

// How the sink creates tables under create-if-needed: one set for every
// table the sink writes (a resolver may name many). Only families are
// ever added to an existing table; nothing is changed or removed.
struct TableCreateOptions {
  // column-families: the families every table has. A mutation naming
  // another family fails the job.
  std::vector<std::string> column_families;
  // gc-max-versions (0: no limit) and gc-max-age (unset: no limit): the
  // garbage-collection rule of every family; both set, a cell goes when
  // either says so (a union).
  int64_t gc_max_versions = 0;
  std::optional<absl::Duration> gc_max_age;
  // C++ only: a family's own rule, instead of the two above (GcMaxVersions,
  // GcMaxAge, GcUnion, GcIntersection build them).
  std::map<std::string, google::bigtable::admin::v2::GcRule> gc_rules;

  // The rule a created `family` gets; nullopt for none (keep every cell).
  std::optional<google::bigtable::admin::v2::GcRule> GcRuleFor(
      const std::string& family) const;
};

google::bigtable::admin::v2::GcRule GcMaxVersions(int32_t versions);
google::bigtable::admin::v2::GcRule GcMaxAge(absl::Duration age);
// A cell goes when any of `rules` says so.
google::bigtable::admin::v2::GcRule GcUnion(
    std::vector<google::bigtable::admin::v2::GcRule> rules);
// A cell goes only when every one of `rules` says so.
google::bigtable::admin::v2::GcRule GcIntersection(
    std::vector<google::bigtable::admin::v2::GcRule> rules);

// channel, clock, make_timer, make_stub: see ClientOptions. The channel
// serves both the data and the admin API (BIGTABLE_EMULATOR_HOST serves
// both on an emulator).
struct BigtableSinkOptions : connector::ClientOptions<BigtableStubFactory> {
  // Names the sink in errors, logs and metrics.
  std::string name = "bigtable-sink";
  // app-profile-id: empty uses the instance's default profile.
  std::string app_profile_id;
  // batch-element-count / batch-byte-size: a table's batch is sent when
  // the next entry would exceed either (or the request's 100,000
  // mutations), on input idle, and on Flush. There is no batch delay.
  int64_t batch_element_count = 100;
  int64_t batch_byte_size = int64_t{20} << 20;
  // max-in-flight-entries / max-in-flight-bytes: entries taken and not yet
  // written or routed, summed over the writer's tables; at a cap Write()
  // yields to the mailbox until completions free room.
  int64_t max_in_flight_entries = 1000;
  int64_t max_in_flight_bytes = int64_t{64} << 20;
  // write-progress-timeout: the longest a wait (for room, or in Flush) goes
  // without any answer from the service; expiry fails the writer.
  absl::Duration write_progress_timeout = absl::Minutes(10);
  // destination-idle-timeout: a table's batcher unused for longer is
  // released at the end of a successful non-final flush.
  absl::Duration destination_idle_timeout = absl::Hours(1);
  CreateDisposition create_disposition = CreateDisposition::kCreateNever;
  TableCreateOptions table_create_options;
  // recovery-*: the budget of creating a table or adding a family (500 ms
  // growing to 10 s, 10 attempts).
  RetryOptions recovery = {
      .max_attempts = 10,
      .total_timeout = absl::Minutes(10),
      .backoff = {.initial_delay = absl::Milliseconds(500),
                  .max_delay = absl::Seconds(10),
                  .multiplier = 2.0},
  };
  // max-consecutive-rejections (rejection confirmation's guard).
  int64_t max_consecutive_rejections =
      RejectionConfirmation::kDefaultMaxConsecutiveRejections;
  // Resending entries refused with a transient code: 10 ms growing 2x to
  // 60 s, 600 s in total (Google's Bigtable client settings).
  RetryOptions retry = {
      .max_attempts = 1000,
      .total_timeout = absl::Seconds(600),
      .backoff = {.initial_delay = absl::Milliseconds(10),
                  .max_delay = absl::Seconds(60),
                  .multiplier = 2.0},
  };
};

// InvalidArgument naming the option key when an option is unusable.
absl::Status CheckBigtableSinkOptions(const BigtableSinkOptions& options);

// Every option above that a pipeline file sets (all but the name, channel,
// clock, timer and the C++-only gc_rules), with docs defaults.
connector::OptionTable<BigtableSinkOptions> BigtableSinkOptionTable();

}  // namespace gcpstream::bigtable

#endif  // GCPSTREAM_BIGTABLE_BIGTABLE_SINK_OPTIONS_H_
