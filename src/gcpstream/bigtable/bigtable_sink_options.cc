#include "gcpstream/bigtable/bigtable_sink_options.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::bigtable {
namespace {

namespace admin = ::google::bigtable::admin::v2;

absl::Status InRange(absl::string_view key, int64_t value, int64_t ceiling) {
  if (value >= 1 && value <= ceiling) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "option '", key, "' must be between 1 and ", ceiling, ", got ", value));
}

absl::Status AtLeastOne(absl::string_view key, int64_t value) {
  if (value >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("option '", key, "' must be at least 1, got ", value));
}

// Bigtable family names: [_a-zA-Z0-9][-_.a-zA-Z0-9]*, at most 64 bytes.
absl::Status CheckFamilyName(const std::string& family) {
  bool valid = !family.empty() && family.size() <= 64 && family[0] != '-' &&
               family[0] != '.';
  for (const char c : family) {
    valid &= absl::ascii_isalnum(c) || c == '_' || c == '-' || c == '.';
  }
  if (valid) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "option '", kColumnFamiliesKey, "' names family '", family,
      "', which Bigtable refuses: a family name is 1 to 64 characters of "
      "letters, digits, '_', '-' and '.', starting with a letter, digit or "
      "'_'"));
}

absl::Status CheckTableCreateOptions(const BigtableSinkOptions& options) {
  const TableCreateOptions& create = options.table_create_options;
  absl::Status status;
  absl::flat_hash_set<std::string> seen;
  for (const std::string& family : create.column_families) {
    status.Update(CheckFamilyName(family));
    if (!seen.insert(family).second) {
      status.Update(absl::InvalidArgumentError(
          absl::StrCat("option '", kColumnFamiliesKey, "' lists family '",
                       family, "' twice")));
    }
  }
  for (const auto& [family, rule] : create.gc_rules) {
    if (!seen.contains(family)) {
      status.Update(absl::InvalidArgumentError(absl::StrCat(
          "table_create_options.gc_rules has a rule for family '", family,
          "', which option '", kColumnFamiliesKey, "' does not list")));
    }
  }
  if (create.gc_max_versions < 0 || create.gc_max_versions > (1 << 30)) {
    status.Update(absl::InvalidArgumentError(
        absl::StrCat("option '", kGcMaxVersionsKey,
                     "' must be 0 (no limit) or a positive count, got ",
                     create.gc_max_versions)));
  }
  if (create.gc_max_age.has_value() &&
      (*create.gc_max_age < absl::Milliseconds(1) ||
       *create.gc_max_age == absl::InfiniteDuration())) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kGcMaxAgeKey, "' must be a positive duration, got ",
        absl::FormatDuration(*create.gc_max_age))));
  }
  if (options.create_disposition == CreateDisposition::kCreateIfNeeded &&
      create.column_families.empty()) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kCreateDispositionOption.key(), "' is '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateIfNeeded),
        "', which needs option '", kColumnFamiliesKey,
        "' to list at least one family the sink creates tables with")));
  }
  if (options.create_disposition == CreateDisposition::kCreateNever &&
      !create.column_families.empty()) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "option '", kColumnFamiliesKey, "' is set but option '",
        kCreateDispositionOption.key(), "' is '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateNever),
        "', so no table or family would be created; set it to '",
        kCreateDispositionOption.Name(CreateDisposition::kCreateIfNeeded),
        "' or remove the families")));
  }
  return status;
}

}  // namespace

std::optional<admin::GcRule> TableCreateOptions::GcRuleFor(
    const std::string& family) const {
  if (auto it = gc_rules.find(family); it != gc_rules.end()) {
    return it->second;
  }
  std::vector<admin::GcRule> rules;
  if (gc_max_versions > 0) {
    rules.push_back(GcMaxVersions(static_cast<int32_t>(gc_max_versions)));
  }
  if (gc_max_age.has_value()) rules.push_back(GcMaxAge(*gc_max_age));
  if (rules.empty()) return std::nullopt;
  if (rules.size() == 1) return rules.front();
  return GcUnion(std::move(rules));
}

admin::GcRule GcMaxVersions(int32_t versions) {
  admin::GcRule rule;
  rule.set_max_num_versions(versions);
  return rule;
}

admin::GcRule GcMaxAge(absl::Duration age) {
  admin::GcRule rule;
  const int64_t seconds = absl::IDivDuration(age, absl::Seconds(1), &age);
  rule.mutable_max_age()->set_seconds(seconds);
  rule.mutable_max_age()->set_nanos(
      static_cast<int32_t>(absl::ToInt64Nanoseconds(age)));
  return rule;
}

admin::GcRule GcUnion(std::vector<admin::GcRule> rules) {
  admin::GcRule rule;
  for (admin::GcRule& one : rules) {
    *rule.mutable_union_()->add_rules() = std::move(one);
  }
  return rule;
}

admin::GcRule GcIntersection(std::vector<admin::GcRule> rules) {
  admin::GcRule rule;
  for (admin::GcRule& one : rules) {
    *rule.mutable_intersection()->add_rules() = std::move(one);
  }
  return rule;
}

absl::Status CheckBigtableSinkOptions(const BigtableSinkOptions& options) {
  absl::Status status;
  status.Update(InRange(kBatchElementCountKey, options.batch_element_count,
                        kMaxEntriesPerRequest));
  status.Update(AtLeastOne(kBatchByteSizeKey, options.batch_byte_size));
  status.Update(
      AtLeastOne(kMaxInFlightEntriesKey, options.max_in_flight_entries));
  status.Update(AtLeastOne(kMaxInFlightBytesKey, options.max_in_flight_bytes));
  status.Update(CheckDurationOption(options.write_progress_timeout,
                                    kWriteProgressTimeoutKey));
  if (options.destination_idle_timeout != absl::InfiniteDuration()) {
    status.Update(CheckDurationOption(options.destination_idle_timeout,
                                      kDestinationIdleTimeoutKey));
  }
  if (absl::Status recovery = ValidateRetryOptions(options.recovery);
      !recovery.ok()) {
    status.Update(absl::InvalidArgumentError(absl::StrCat(
        "options '", kRecoveryInitialBackoffKey, "', '", kRecoveryMaxBackoffKey,
        "', '", kRecoveryMaxAttemptsKey, "': ", recovery.message())));
  }
  status.Update(CheckTableCreateOptions(options));
  return connector::CheckSinkWriterOptions(options, std::move(status));
}

connector::OptionTable<BigtableSinkOptions> BigtableSinkOptionTable() {
  using O = BigtableSinkOptions;
  using connector::DurationOption;
  using connector::IntOption;
  const O defaults;
  connector::OptionTable<O> table({
      connector::StringOption<O>(
          kAppProfileIdKey,
          [](O& o) -> std::string& { return o.app_profile_id; },
          "unset (the instance's default profile)", "batch-writes"),
      IntOption<O>(
          kBatchElementCountKey,
          [](O& o) -> int64_t& { return o.batch_element_count; },
          "100 (ceiling 19,999)", "500", 1, kMaxEntriesPerRequest),
      IntOption<O>(
          kBatchByteSizeKey, [](O& o) -> int64_t& { return o.batch_byte_size; },
          "20 MiB", "1048576", 1),
      IntOption<O>(
          kMaxInFlightEntriesKey,
          [](O& o) -> int64_t& { return o.max_in_flight_entries; }, "1000",
          "2000", 1),
      IntOption<O>(
          kMaxInFlightBytesKey,
          [](O& o) -> int64_t& { return o.max_in_flight_bytes; }, "64 MiB",
          "1048576", 1),
      DurationOption<O>(
          kWriteProgressTimeoutKey,
          [](O& o) -> absl::Duration& { return o.write_progress_timeout; },
          "10 min", "5m"),
      DurationOption<O>(
          kDestinationIdleTimeoutKey,
          [](O& o) -> absl::Duration& { return o.destination_idle_timeout; },
          "1 h", "30m"),
      connector::EnumField<O>(
          kCreateDispositionOption,
          [](O& o) -> CreateDisposition& { return o.create_disposition; },
          "`create-never`", "create-if-needed"),
      connector::StringListOption<O>(
          kColumnFamiliesKey,
          [](O& o) -> std::vector<std::string>& {
            return o.table_create_options.column_families;
          },
          "unset (required by create-if-needed)", "[cf]"),
      IntOption<O>(
          kGcMaxVersionsKey,
          [](O& o) -> int64_t& {
            return o.table_create_options.gc_max_versions;
          },
          "0 (no limit)", "3", 0, 1 << 30),
      DurationOption<O, std::optional<absl::Duration>>(
          kGcMaxAgeKey,
          [](O& o) -> std::optional<absl::Duration>& {
            return o.table_create_options.gc_max_age;
          },
          "unset (no limit)", "168h"),
      DurationOption<O>(
          kRecoveryInitialBackoffKey,
          [](O& o) -> absl::Duration& {
            return o.recovery.backoff.initial_delay;
          },
          "500 ms", "1s"),
      DurationOption<O>(
          kRecoveryMaxBackoffKey,
          [](O& o) -> absl::Duration& { return o.recovery.backoff.max_delay; },
          "10 s", "30s"),
      IntOption<O, int>(
          kRecoveryMaxAttemptsKey,
          [](O& o) -> int& { return o.recovery.max_attempts; }, "10", "5", 1),
  });
  connector::AddSinkWriterOptions(table, defaults);
  return table;
}

}  // namespace gcpstream::bigtable
