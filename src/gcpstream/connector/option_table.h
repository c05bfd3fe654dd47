#ifndef GCPSTREAM_CONNECTOR_OPTION_TABLE_H_
#define GCPSTREAM_CONNECTOR_OPTION_TABLE_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/base/options.h"
#include "gcpstream/base/rejection_confirmation.h"
#include "gcpstream/base/retry_policy.h"

namespace gcpstream::connector {

// Where option values are written: a pipeline file's mapping, a SQL WITH
// clause. Keys are matched as the source defines (pipeline files: ASCII
// case-insensitively). Each getter returns nullopt when the key is absent;
// its errors name the key and where it was written.
class OptionSource {
 public:
  virtual ~OptionSource() = default;
  virtual bool Has(absl::string_view key) const = 0;
  virtual absl::StatusOr<std::optional<std::string>> String(
      absl::string_view key) = 0;
  virtual absl::StatusOr<std::optional<int64_t>> Int(absl::string_view key,
                                                     int64_t min,
                                                     int64_t max) = 0;
  virtual absl::StatusOr<std::optional<double>> Double(
      absl::string_view key) = 0;
  virtual absl::StatusOr<std::optional<bool>> Bool(absl::string_view key) = 0;
  virtual absl::StatusOr<std::optional<absl::Duration>> Duration(
      absl::string_view key) = 0;
  virtual absl::StatusOr<std::optional<std::vector<std::string>>> StringList(
      absl::string_view key) = 0;
  // An error about the value written under `key`, placed where it was.
  virtual absl::Status Error(absl::string_view key,
                             absl::string_view message) const = 0;
  // `alias` was used for `key`: warn that the spelling is deprecated.
  virtual void Deprecated(absl::string_view alias,
                          absl::string_view key) const = 0;
};

// One option of a connector: its key, the old spellings still accepted (each
// with a deprecation warning), what the docs say of it, a valid example
// value (a test sets every option of every table from a pipeline file), and
// how to read it into the options struct O.
template <typename O>
struct OptionField {
  std::string key;
  std::vector<std::string> aliases;
  std::string default_text;
  std::string example;
  // Reads the value written under `key` (the key or an alias) into `options`;
  // leaves it unchanged when absent.
  std::function<absl::Status(OptionSource& source, absl::string_view key,
                             O& options)>
      read;
};

// Every option of one options struct, read by the pipeline-file factory,
// listed by the docs test. Option spellings are one per concept across
// connectors (docs/adr/0002-connector-kit.md).
template <typename O>
class OptionTable {
 public:
  explicit OptionTable(std::vector<OptionField<O>> fields)
      : fields_(std::move(fields)) {}

  // Sets in `options` every option `source` has. Writing an option and
  // one of its old spellings together is an error.
  absl::Status Read(OptionSource& source, O& options) const {
    for (const OptionField<O>& field : fields_) {
      std::string key = field.key;
      for (const std::string& alias : field.aliases) {
        if (!source.Has(alias)) continue;
        if (source.Has(key)) {
          return source.Error(
              alias,
              absl::StrCat("option '", alias, "' is the old spelling of '",
                           field.key, "', which is also set; keep '", field.key,
                           "'"));
        }
        source.Deprecated(alias, field.key);
        key = alias;
      }
      if (absl::Status status = field.read(source, key, options);
          !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }

  // Adds `other`'s fields, reading them through `member` (a nested options
  // struct such as the retry options).
  template <typename Inner>
  OptionTable& Include(const OptionTable<Inner>& other,
                       const std::function<Inner&(O&)>& member) {
    for (const OptionField<Inner>& field : other.fields()) {
      fields_.push_back(OptionField<O>{
          field.key, field.aliases, field.default_text, field.example,
          [read = field.read, member](OptionSource& source,
                                      absl::string_view written, O& options) {
            return read(source, written, member(options));
          }});
    }
    return *this;
  }

  OptionTable& Add(OptionField<O> field) {
    fields_.push_back(std::move(field));
    return *this;
  }

  const std::vector<OptionField<O>>& fields() const { return fields_; }

 private:
  std::vector<OptionField<O>> fields_;
};

// Field makers. `member` returns the field inside O that the option sets.
template <typename O, typename T>
using Member = std::function<T&(O&)>;

// An integer in [min, max]; `Int` is the member's type, which the bounds
// must fit.
template <typename O, typename Int = int64_t>
OptionField<O> IntOption(std::string key,
                         std::type_identity_t<Member<O, Int>> member,
                         std::string default_text, std::string example,
                         int64_t min = std::numeric_limits<Int>::min(),
                         int64_t max = std::numeric_limits<Int>::max(),
                         std::vector<std::string> aliases = {}) {
  return {std::move(key), std::move(aliases), std::move(default_text),
          std::move(example),
          [member = std::move(member), min, max](OptionSource& source,
                                                 absl::string_view written,
                                                 O& options) -> absl::Status {
            absl::StatusOr<std::optional<int64_t>> value =
                source.Int(written, min, max);
            if (!value.ok()) return value.status();
            if (value->has_value()) member(options) = static_cast<Int>(**value);
            return absl::OkStatus();
          }};
}

// Reads through a getter of the source into an optional or plain member.
template <typename O, typename T, typename Target>
OptionField<O> ScalarOption(
    std::string key, std::type_identity_t<std::function<Target&(O&)>> member,
    absl::StatusOr<std::optional<T>> (OptionSource::*get)(absl::string_view),
    std::string default_text, std::string example,
    std::vector<std::string> aliases = {}) {
  return {std::move(key), std::move(aliases), std::move(default_text),
          std::move(example),
          [member = std::move(member), get](OptionSource& source,
                                            absl::string_view written,
                                            O& options) -> absl::Status {
            absl::StatusOr<std::optional<T>> value = (source.*get)(written);
            if (!value.ok()) return value.status();
            if (value->has_value()) member(options) = **value;
            return absl::OkStatus();
          }};
}

template <typename O, typename Target = absl::Duration>
OptionField<O> DurationOption(std::string key,
                              std::type_identity_t<Member<O, Target>> member,
                              std::string default_text, std::string example,
                              std::vector<std::string> aliases = {}) {
  return ScalarOption<O, absl::Duration, Target>(
      std::move(key), std::move(member), &OptionSource::Duration,
      std::move(default_text), std::move(example), std::move(aliases));
}

template <typename O>
OptionField<O> BoolOption(std::string key, Member<O, bool> member,
                          std::string default_text, std::string example,
                          std::vector<std::string> aliases = {}) {
  return ScalarOption<O, bool, bool>(
      std::move(key), std::move(member), &OptionSource::Bool,
      std::move(default_text), std::move(example), std::move(aliases));
}

template <typename O>
OptionField<O> DoubleOption(std::string key, Member<O, double> member,
                            std::string default_text, std::string example,
                            std::vector<std::string> aliases = {}) {
  return ScalarOption<O, double, double>(
      std::move(key), std::move(member), &OptionSource::Double,
      std::move(default_text), std::move(example), std::move(aliases));
}

template <typename O>
OptionField<O> StringOption(std::string key, Member<O, std::string> member,
                            std::string default_text, std::string example,
                            std::vector<std::string> aliases = {}) {
  return ScalarOption<O, std::string, std::string>(
      std::move(key), std::move(member), &OptionSource::String,
      std::move(default_text), std::move(example), std::move(aliases));
}

template <typename O>
OptionField<O> StringListOption(std::string key,
                                Member<O, std::vector<std::string>> member,
                                std::string default_text, std::string example,
                                std::vector<std::string> aliases = {}) {
  return ScalarOption<O, std::vector<std::string>, std::vector<std::string>>(
      std::move(key), std::move(member), &OptionSource::StringList,
      std::move(default_text), std::move(example), std::move(aliases));
}

// An enum option whose spellings `option` lists (`Target` may be an
// optional of the enum).
template <typename O, typename E, typename Target = E>
OptionField<O> EnumField(const EnumOption<E>& option,
                         std::type_identity_t<Member<O, Target>> member,
                         std::string default_text, std::string example,
                         std::vector<std::string> aliases = {}) {
  return {std::string(option.key()), std::move(aliases),
          std::move(default_text), std::move(example),
          [option, member = std::move(member)](OptionSource& source,
                                               absl::string_view written,
                                               O& options) -> absl::Status {
            absl::StatusOr<std::optional<std::string>> text =
                source.String(written);
            if (!text.ok()) return text.status();
            if (!text->has_value()) return absl::OkStatus();
            absl::StatusOr<E> value = option.Parse(**text);
            if (!value.ok()) {
              return source.Error(written, value.status().message());
            }
            member(options) = *value;
            return absl::OkStatus();
          }};
}

// The retry options every connector spells alike: retry-max-attempts,
// retry-total-timeout, retry-initial-backoff, retry-max-backoff,
// retry-backoff-multiplier. `defaults` are the connector's, for the docs.
OptionTable<RetryOptions> RetryOptionTable(const RetryOptions& defaults);

// How every gRPC connector is reached, spelled alike: `endpoint`
// (host:port instead of production), `service-account-key-file` and
// `quota-project` (docs/authentication.md).
OptionTable<auth::ChannelOptions> ChannelOptionTable();

// The options every sink writer has: max-consecutive-rejections (rejection
// confirmation's guard), the retry-* options and the channel options, read
// into the `max_consecutive_rejections`, `retry` and `channel` members of
// O; `defaults` states the connector's defaults for the docs.
template <typename O>
void AddSinkWriterOptions(OptionTable<O>& table, const O& defaults) {
  table.template Include<auth::ChannelOptions>(
      ChannelOptionTable(),
      [](O& o) -> auth::ChannelOptions& { return o.channel; });
  table.Add(IntOption<O>(
      RejectionConfirmation::kMaxConsecutiveRejectionsKey,
      [](O& o) -> int64_t& { return o.max_consecutive_rejections; },
      absl::StrCat(defaults.max_consecutive_rejections), "-1", -1));
  table.template Include<RetryOptions>(
      RetryOptionTable(defaults.retry),
      [](O& o) -> RetryOptions& { return o.retry; });
}

// InvalidArgument naming the retry-* options when `options` are unusable.
absl::Status CheckRetryOptions(const RetryOptions& options);

// The end of every sink's options check: adds the checks of the options
// AddSinkWriterOptions reads to `status` (the connector's own findings so
// far) and, if anything is wrong, names the sink first.
template <typename O>
absl::Status CheckSinkWriterOptions(const O& options, absl::Status status) {
  status.Update(RejectionConfirmation::CheckMaxConsecutiveRejections(
      options.max_consecutive_rejections));
  status.Update(CheckRetryOptions(options.retry));
  if (status.ok()) return status;
  return absl::InvalidArgumentError(
      absl::StrCat(options.name, ": ", status.message()));
}

// "100ms", "10s", "1h30m": the pipeline-file spelling of a duration.
std::string DurationText(absl::Duration duration);

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_OPTION_TABLE_H_
