#include "gcpstream/config/option_map.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "spdlog/spdlog.h"

namespace gcpstream::config {
namespace {

SourcePosition PositionOfNode(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  // yaml-cpp counts from 0 and marks nodes built in code with -1.
  return SourcePosition{.file = file,
                        .line = std::max(mark.line, 0) + 1,
                        .column = std::max(mark.column, 0) + 1};
}

// Levenshtein distance, for "did you mean".
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> previous(b.size() + 1);
  std::vector<size_t> current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution =
          previous[j - 1] +
          (absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 1]) ? 0
                                                                          : 1);
      current[j] =
          std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

const char* KindName(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Null:
      return "empty";
    default:
      return "a single value";
  }
}

}  // namespace

absl::StatusOr<OptionMap> OptionMap::FromNode(const YAML::Node& node,
                                              const std::string& file,
                                              std::string what) {
  OptionMap map(file, std::move(what), PositionOfNode(file, node));
  if (!node.IsDefined() || node.IsNull()) return map;
  if (!node.IsMap()) {
    return ConfigError(map.position_, absl::StrCat(map.what_,
                                                   " must be a mapping of "
                                                   "options (key: value), not ",
                                                   KindName(node)));
  }
  // Lower-cased key -> its entry: a file of many keys is checked in linear
  // time (a quadratic scan took seconds for 40,000 keys).
  absl::flat_hash_map<std::string, size_t> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) {
      return ConfigError(PositionOfNode(file, it->first),
                         absl::StrCat(map.what_, ": option keys are words"));
    }
    Entry entry{.key = it->first.Scalar(),
                .value = it->second,
                .key_position = PositionOfNode(file, it->first),
                .value_position = PositionOfNode(file, it->second)};
    const auto [earlier, inserted] =
        seen.try_emplace(absl::AsciiStrToLower(entry.key), map.entries_.size());
    if (!inserted) {
      return ConfigError(
          entry.key_position,
          absl::StrCat(map.what_, ": option '", entry.key,
                       "' is written twice (first at ",
                       map.entries_[earlier->second].key_position.ToString(),
                       ")"));
    }
    map.entries_.push_back(std::move(entry));
  }
  return map;
}

const OptionMap::Entry* OptionMap::Take(absl::string_view key) {
  if (std::find(accepted_.begin(), accepted_.end(), key) == accepted_.end()) {
    accepted_.emplace_back(key);
  }
  for (const Entry& entry : entries_) {
    if (absl::EqualsIgnoreCase(entry.key, key)) return &entry;
  }
  return nullptr;
}

bool OptionMap::Has(absl::string_view key) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return absl::EqualsIgnoreCase(e.key, key);
  });
}

absl::Status OptionMap::Error(absl::string_view key,
                              absl::string_view message) const {
  return ConfigError(PositionOf(key), absl::StrCat(what_, ": ", message));
}

void OptionMap::Deprecated(absl::string_view alias,
                           absl::string_view key) const {
  spdlog::warn("{}: {}: option '{}' is deprecated; write '{}' instead",
               PositionOf(alias).ToString(), what_, std::string(alias),
               std::string(key));
}

std::vector<std::string> OptionMap::Keys() const {
  std::vector<std::string> keys;
  keys.reserve(entries_.size());
  for (const Entry& entry : entries_) keys.push_back(entry.key);
  return keys;
}

SourcePosition OptionMap::PositionOf(absl::string_view key) const {
  for (const Entry& entry : entries_) {
    if (absl::EqualsIgnoreCase(entry.key, key)) return entry.value_position;
  }
  return position_;
}

absl::Status OptionMap::ValueError(const Entry& entry,
                                   absl::string_view message) const {
  return ConfigError(
      entry.value_position,
      absl::StrCat(what_, ": option '", entry.key, "' ", message));
}

absl::StatusOr<std::optional<std::string>> OptionMap::Scalar(
    absl::string_view key) {
  const Entry* entry = Take(key);
  if (entry == nullptr) return std::optional<std::string>();
  if (!entry->value.IsScalar()) {
    return ValueError(*entry, absl::StrCat("must be a single value, not ",
                                           KindName(entry->value)));
  }
  return std::optional<std::string>(entry->value.Scalar());
}

absl::StatusOr<std::optional<std::string>> OptionMap::String(
    absl::string_view key) {
  return Scalar(key);
}

absl::Status OptionMap::MissingError(absl::string_view key) const {
  std::string message = absl::StrCat(what_, ": option '", key, "' is required");
  for (const Entry& entry : entries_) {
    if (EditDistance(entry.key, key) < 3) {
      absl::StrAppend(&message, " ('", entry.key, "' at ",
                      entry.key_position.ToString(),
                      " looks like a misspelling of it)");
      break;
    }
  }
  return ConfigError(position_, message);
}

absl::StatusOr<std::string> OptionMap::RequiredString(absl::string_view key) {
  absl::StatusOr<std::optional<std::string>> value = Scalar(key);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return MissingError(key);
  return **value;
}

absl::StatusOr<std::vector<std::string>> OptionMap::RequiredStringList(
    absl::string_view key) {
  absl::StatusOr<std::optional<std::vector<std::string>>> value =
      StringList(key);
  if (!value.ok()) return value.status();
  if (!value->has_value() || (*value)->empty()) return MissingError(key);
  return **std::move(value);
}

absl::StatusOr<std::optional<int64_t>> OptionMap::Int(absl::string_view key,
                                                      int64_t min,
                                                      int64_t max) {
  absl::StatusOr<std::optional<std::string>> text = Scalar(key);
  if (!text.ok() || !text->has_value()) {
    return text.ok() ? absl::StatusOr<std::optional<int64_t>>(std::nullopt)
                     : text.status();
  }
  int64_t value = 0;
  const Entry& entry = *Take(key);
  if (!absl::SimpleAtoi(**text, &value)) {
    return ValueError(
        entry, absl::StrCat("must be a whole number, not '", **text, "'"));
  }
  if (value < min || value > max) {
    return ValueError(entry, absl::StrCat("must be between ", min, " and ", max,
                                          ", not ", value));
  }
  return std::optional<int64_t>(value);
}

absl::StatusOr<std::optional<double>> OptionMap::Double(absl::string_view key) {
  absl::StatusOr<std::optional<std::string>> text = Scalar(key);
  if (!text.ok() || !text->has_value()) {
    return text.ok() ? absl::StatusOr<std::optional<double>>(std::nullopt)
                     : text.status();
  }
  double value = 0;
  if (!absl::SimpleAtod(**text, &value)) {
    return ValueError(*Take(key),
                      absl::StrCat("must be a number, not '", **text, "'"));
  }
  return std::optional<double>(value);
}

absl::StatusOr<std::optional<bool>> OptionMap::Bool(absl::string_view key) {
  absl::StatusOr<std::optional<std::string>> text = Scalar(key);
  if (!text.ok() || !text->has_value()) {
    return text.ok() ? absl::StatusOr<std::optional<bool>>(std::nullopt)
                     : text.status();
  }
  if (absl::EqualsIgnoreCase(**text, "true")) return std::optional<bool>(true);
  if (absl::EqualsIgnoreCase(**text, "false")) {
    return std::optional<bool>(false);
  }
  return ValueError(*Take(key),
                    absl::StrCat("must be true or false, not '", **text, "'"));
}

absl::StatusOr<std::optional<absl::Duration>> OptionMap::Duration(
    absl::string_view key) {
  absl::StatusOr<std::optional<std::string>> text = Scalar(key);
  if (!text.ok() || !text->has_value()) {
    return text.ok()
               ? absl::StatusOr<std::optional<absl::Duration>>(std::nullopt)
               : text.status();
  }
  const Entry& entry = *Take(key);
  absl::StatusOr<absl::Duration> value = ParseDurationOption(**text, entry.key);
  if (!value.ok()) {
    return ConfigError(entry.value_position,
                       absl::StrCat(what_, ": ", value.status().message()));
  }
  return std::optional<absl::Duration>(*value);
}

absl::StatusOr<std::optional<std::vector<std::string>>> OptionMap::StringList(
    absl::string_view key) {
  const Entry* entry = Take(key);
  if (entry == nullptr) return std::optional<std::vector<std::string>>();
  if (!entry->value.IsSequence()) {
    return ValueError(
        *entry, absl::StrCat("must be a list, not ", KindName(entry->value)));
  }
  std::vector<std::string> values;
  for (const YAML::Node& item : entry->value) {
    if (!item.IsScalar()) {
      return ConfigError(
          PositionOfNode(file_, item),
          absl::StrCat(what_, ": each item of option '", entry->key,
                       "' must be a single value, not ", KindName(item)));
    }
    values.push_back(item.Scalar());
  }
  return std::optional<std::vector<std::string>>(std::move(values));
}

absl::StatusOr<std::optional<OptionMap>> OptionMap::Map(absl::string_view key) {
  const Entry* entry = Take(key);
  if (entry == nullptr) return std::optional<OptionMap>();
  absl::StatusOr<OptionMap> map =
      FromNode(entry->value, file_, absl::StrCat(what_, " '", entry->key, "'"));
  if (!map.ok()) return map.status();
  return std::optional<OptionMap>(*std::move(map));
}

absl::StatusOr<std::optional<std::vector<OptionMap>>> OptionMap::MapList(
    absl::string_view key) {
  const Entry* entry = Take(key);
  if (entry == nullptr) return std::optional<std::vector<OptionMap>>();
  if (!entry->value.IsSequence()) {
    return ValueError(
        *entry, absl::StrCat("must be a list, not ", KindName(entry->value)));
  }
  std::vector<OptionMap> maps;
  int index = 0;
  for (const YAML::Node& item : entry->value) {
    absl::StatusOr<OptionMap> map =
        FromNode(item, file_,
                 absl::StrCat(what_.empty() ? "" : what_ + " ", "'", entry->key,
                              "' item ", index++ + 1));
    if (!map.ok()) return map.status();
    maps.push_back(*std::move(map));
  }
  return std::optional<std::vector<OptionMap>>(std::move(maps));
}

absl::Status OptionMap::CheckNoUnknownKeys() const {
  for (const Entry& entry : entries_) {
    const bool known = std::any_of(
        accepted_.begin(), accepted_.end(), [&](const std::string& accepted) {
          return absl::EqualsIgnoreCase(accepted, entry.key);
        });
    if (known) continue;
    std::vector<std::string> sorted = accepted_;
    std::sort(sorted.begin(), sorted.end());
    std::string message =
        absl::StrCat(what_, ": unknown option '", entry.key,
                     "'; accepted: ", absl::StrJoin(sorted, ", "));
    const std::string* closest = nullptr;
    size_t best = 3;  // Suggest only near misses.
    for (const std::string& accepted : sorted) {
      const size_t distance = EditDistance(entry.key, accepted);
      if (distance < best) {
        best = distance;
        closest = &accepted;
      }
    }
    if (closest != nullptr) {
      absl::StrAppend(&message, " (did you mean '", *closest, "'?)");
    }
    return ConfigError(entry.key_position, message);
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::config
