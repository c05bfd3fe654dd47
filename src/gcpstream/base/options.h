#ifndef GCPSTREAM_BASE_OPTIONS_H_
#define GCPSTREAM_BASE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

// Checks every connector applies to its options, so that the same mistake
// gets the same error everywhere. Every error names the option's key: the
// user wrote it in a SQL WITH clause or a YAML file and must find it again.

namespace gcpstream {

// The largest duration option: anything longer would overflow int64
// nanoseconds, which is what gRPC deadlines and most clients store.
inline constexpr absl::Duration kMaxDurationOption =
    absl::Nanoseconds(std::numeric_limits<int64_t>::max());

// Parses a duration such as "30s", "500ms", "2m" or "1h30m" (absl units:
// ns, us, ms, s, m, h). It must be at least 1ns and at most
// kMaxDurationOption; "0", negative values and "inf" are refused.
absl::StatusOr<absl::Duration> ParseDurationOption(absl::string_view text,
                                                   absl::string_view key);

// The same bounds for a duration set in code rather than parsed.
absl::Status CheckDurationOption(absl::Duration value, absl::string_view key);

// A single component of a resource name (a project, topic, dataset or table
// id): non-empty, without '/', without leading or trailing whitespace. The
// service checks the rest of its own grammar; these are the mistakes that
// would otherwise build a different, valid-looking resource path.
absl::Status CheckResourceNameComponent(absl::string_view value,
                                        absl::string_view key);

// One accepted spelling of an enum option, e.g. {"per-key", kPerKey}. An old
// spelling kept for compatibility is marked deprecated: still parsed (with a
// warning naming the current one), never printed or listed.
template <typename E>
struct EnumSpelling {
  absl::string_view spelling;
  E value;
  bool deprecated = false;
};

namespace internal_options {
absl::Status UnknownEnumValue(absl::string_view key, absl::string_view text,
                              const std::vector<absl::string_view>& accepted);
absl::Status CheckEnumSpellings(absl::string_view key,
                                const std::vector<absl::string_view>& spellings,
                                const std::vector<int>& values,
                                const std::vector<bool>& deprecated);
void WarnDeprecatedSpelling(absl::string_view key, absl::string_view old,
                            absl::string_view current);
}  // namespace internal_options

// An enum option: its key plus a table of hyphenated spellings, meant to be a
// constexpr constant next to the enum:
//
//   inline constexpr EnumSpelling<OrderingMode> kOrderingModes[] = {
//       {"none", OrderingMode::kNone}, {"per-key", OrderingMode::kPerKey}};
//   inline constexpr EnumOption kOrderingModeOption("ordering-mode",
//                                                   kOrderingModes);
//
// Parsing is ASCII case-insensitive and does nothing else: "PER-KEY" is
// accepted, "per_key" and " per-key" are not, so one spelling is documented
// and printed back. A connector's test calls CheckSpellings().
template <typename E>
class EnumOption {
 public:
  template <size_t N>
  constexpr EnumOption(absl::string_view key,
                       const EnumSpelling<E> (&spellings)[N])
      : key_(key), spellings_(spellings), size_(N) {}

  absl::StatusOr<E> Parse(absl::string_view text) const {
    for (const EnumSpelling<E>& entry : spellings()) {
      if (!absl::EqualsIgnoreCase(entry.spelling, text)) continue;
      if (entry.deprecated) {
        internal_options::WarnDeprecatedSpelling(key_, entry.spelling,
                                                 Name(entry.value));
      }
      return entry.value;
    }
    return internal_options::UnknownEnumValue(key_, text, Spellings());
  }

  // The hyphenated spelling of `value`; "<unlisted>" for a value the table
  // lacks, which CheckSpellings() cannot see but a round-trip test does.
  absl::string_view Name(E value) const {
    for (const EnumSpelling<E>& entry : spellings()) {
      if (entry.value == value && !entry.deprecated) return entry.spelling;
    }
    return "<unlisted>";
  }

  // OK when the table is usable: non-empty, every spelling lower-case
  // [a-z0-9-] without leading, trailing or doubled hyphens, and no spelling
  // or value listed twice (so Name and Parse are inverses).
  absl::Status CheckSpellings() const {
    std::vector<absl::string_view> all;
    std::vector<int> values;
    std::vector<bool> deprecated;
    for (const EnumSpelling<E>& entry : spellings()) {
      all.push_back(entry.spelling);
      values.push_back(static_cast<int>(entry.value));
      deprecated.push_back(entry.deprecated);
    }
    return internal_options::CheckEnumSpellings(key_, all, values, deprecated);
  }

  // The current spellings, in table order (old ones are not offered).
  std::vector<absl::string_view> Spellings() const {
    std::vector<absl::string_view> out;
    for (const EnumSpelling<E>& entry : spellings()) {
      if (!entry.deprecated) out.push_back(entry.spelling);
    }
    return out;
  }

  absl::string_view key() const { return key_; }

 private:
  struct Range {
    const EnumSpelling<E>* begin() const { return data; }
    const EnumSpelling<E>* end() const { return data + size; }
    const EnumSpelling<E>* data;
    size_t size;
  };
  Range spellings() const { return {spellings_, size_}; }

  absl::string_view key_;
  const EnumSpelling<E>* spellings_;
  size_t size_;
};

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_OPTIONS_H_
