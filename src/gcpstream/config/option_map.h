#ifndef GCPSTREAM_CONFIG_OPTION_MAP_H_
#define GCPSTREAM_CONFIG_OPTION_MAP_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gcpstream/base/options.h"
#include "gcpstream/config/source_position.h"
#include "gcpstream/connector/option_table.h"

namespace gcpstream::config {

// The options of one YAML mapping (a source's, a sink's, a mapping's), read
// by key. Keys are the connectors' hyphenated spellings, matched ASCII
// case-insensitively; a key written twice is an error. Every getter records
// its key as accepted, so once a factory has read what it understands,
// CheckNoUnknownKeys() reports anything else with its position, the
// accepted keys and the closest one. Errors carry file:line:column.
class OptionMap final : public connector::OptionSource {
 public:
  // `node` must be a mapping (or null: no options). `what` names the owner
  // in errors, e.g. "sink 'orders'".
  static absl::StatusOr<OptionMap> FromNode(const YAML::Node& node,
                                            const std::string& file,
                                            std::string what);

  // Each returns nullopt when the key is absent.
  absl::StatusOr<std::optional<std::string>> String(
      absl::string_view key) override;
  absl::StatusOr<std::optional<int64_t>> Int(absl::string_view key, int64_t min,
                                             int64_t max) override;
  absl::StatusOr<std::optional<int64_t>> Int(
      absl::string_view key,
      int64_t min = std::numeric_limits<int64_t>::min()) {
    return Int(key, min, std::numeric_limits<int64_t>::max());
  }
  absl::StatusOr<std::optional<double>> Double(absl::string_view key) override;
  absl::StatusOr<std::optional<bool>> Bool(absl::string_view key) override;
  // A duration such as "30s", "500ms", "1h30m" (see ParseDurationOption).
  absl::StatusOr<std::optional<absl::Duration>> Duration(
      absl::string_view key) override;
  template <typename E>
  absl::StatusOr<std::optional<E>> Enum(const EnumOption<E>& option);
  // A list of scalars, e.g. `subscriptions: [a, b]`.
  absl::StatusOr<std::optional<std::vector<std::string>>> StringList(
      absl::string_view key) override;
  // A nested mapping, read the same way (and checked by its own
  // CheckNoUnknownKeys()).
  absl::StatusOr<std::optional<OptionMap>> Map(absl::string_view key);
  // A list of mappings, e.g. `sinks:`.
  absl::StatusOr<std::optional<std::vector<OptionMap>>> MapList(
      absl::string_view key);

  // Required variants: absent (or an empty list) is an error naming the key,
  // and a written key that looks like a misspelling of it.
  absl::StatusOr<std::string> RequiredString(absl::string_view key);
  absl::StatusOr<std::vector<std::string>> RequiredStringList(
      absl::string_view key);

  // Keys read so far are accepted; any other key is an error.
  absl::Status CheckNoUnknownKeys() const;

  bool Has(absl::string_view key) const override;
  // An error about the value of `key`, at its position.
  absl::Status Error(absl::string_view key,
                     absl::string_view message) const override;
  // Warns (with the position) that `alias` is an old spelling of `key`.
  void Deprecated(absl::string_view alias,
                  absl::string_view key) const override;
  // Every key written, in file order (for mappings whose keys are data,
  // such as attribute names).
  std::vector<std::string> Keys() const;
  // Where the key's value is written; the mapping's own position if absent.
  SourcePosition PositionOf(absl::string_view key) const;
  const SourcePosition& position() const { return position_; }
  const std::string& what() const { return what_; }

 private:
  struct Entry {
    std::string key;  // As written.
    YAML::Node value;
    SourcePosition key_position;
    SourcePosition value_position;
  };

  OptionMap(std::string file, std::string what, SourcePosition position)
      : file_(std::move(file)),
        what_(std::move(what)),
        position_(std::move(position)) {}

  // Marks `key` accepted; the entry written for it, if any.
  const Entry* Take(absl::string_view key);
  // A scalar's text, or an error naming the key when it is a list or map.
  absl::StatusOr<std::optional<std::string>> Scalar(absl::string_view key);
  absl::Status ValueError(const Entry& entry, absl::string_view message) const;
  absl::Status MissingError(absl::string_view key) const;

  std::string file_;
  std::string what_;
  SourcePosition position_;
  std::vector<Entry> entries_;
  std::vector<std::string> accepted_;
};

template <typename E>
absl::StatusOr<std::optional<E>> OptionMap::Enum(const EnumOption<E>& option) {
  absl::StatusOr<std::optional<std::string>> text = Scalar(option.key());
  if (!text.ok()) return text.status();
  if (!text->has_value()) return std::optional<E>();
  absl::StatusOr<E> value = option.Parse(**text);
  if (!value.ok()) {
    return ConfigError(PositionOf(option.key()),
                       absl::StrCat(what_, ": ", value.status().message()));
  }
  return std::optional<E>(*value);
}

// Sets `target` from an option that may be absent (keeping it then);
// passes an error on.
template <typename T, typename U>
absl::Status AssignIfSet(absl::StatusOr<std::optional<T>> value, U& target) {
  if (!value.ok()) return value.status();
  if (value->has_value()) target = static_cast<U>(**value);
  return absl::OkStatus();
}

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_OPTION_MAP_H_
