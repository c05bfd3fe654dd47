#include "gcpstream/connector/option_table.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::connector {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Options as written: key -> text, lists comma-separated.
class MapSource final : public OptionSource {
 public:
  explicit MapSource(std::map<std::string, std::string> values)
      : values_(std::move(values)) {}

  bool Has(absl::string_view key) const override {
    return values_.contains(std::string(key));
  }
  absl::StatusOr<std::optional<std::string>> String(
      absl::string_view key) override {
    auto it = values_.find(std::string(key));
    if (it == values_.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }
  absl::StatusOr<std::optional<int64_t>> Int(absl::string_view key, int64_t min,
                                             int64_t max) override {
    auto text = String(key);
    if (!text->has_value()) return std::optional<int64_t>();
    int64_t value = 0;
    if (!absl::SimpleAtoi(**text, &value) || value < min || value > max) {
      return Error(key, "out of range");
    }
    return std::optional<int64_t>(value);
  }
  absl::StatusOr<std::optional<double>> Double(absl::string_view key) override {
    auto text = String(key);
    if (!text->has_value()) return std::optional<double>();
    double value = 0;
    if (!absl::SimpleAtod(**text, &value)) return Error(key, "not a number");
    return std::optional<double>(value);
  }
  absl::StatusOr<std::optional<bool>> Bool(absl::string_view key) override {
    auto text = String(key);
    if (!text->has_value()) return std::optional<bool>();
    return std::optional<bool>(**text == "true");
  }
  absl::StatusOr<std::optional<absl::Duration>> Duration(
      absl::string_view key) override {
    auto text = String(key);
    if (!text->has_value()) return std::optional<absl::Duration>();
    absl::StatusOr<absl::Duration> value = ParseDurationOption(**text, key);
    if (!value.ok()) return value.status();
    return std::optional<absl::Duration>(*value);
  }
  absl::StatusOr<std::optional<std::vector<std::string>>> StringList(
      absl::string_view key) override {
    auto text = String(key);
    if (!text->has_value()) return std::optional<std::vector<std::string>>();
    return std::optional<std::vector<std::string>>(absl::StrSplit(**text, ','));
  }
  absl::Status Error(absl::string_view key,
                     absl::string_view message) const override {
    return absl::InvalidArgumentError(absl::StrCat(key, ": ", message));
  }
  void Deprecated(absl::string_view alias,
                  absl::string_view key) const override {
    deprecated.push_back(absl::StrCat(alias, "->", key));
  }

  mutable std::vector<std::string> deprecated;

 private:
  std::map<std::string, std::string> values_;
};

enum class Mode { kFast, kSafe };
inline constexpr EnumSpelling<Mode> kModes[] = {{"fast", Mode::kFast},
                                                {"safe", Mode::kSafe}};
inline constexpr EnumOption<Mode> kModeOption("mode", kModes);

struct Options {
  int64_t count = 1;
  int small = 2;
  absl::Duration wait = absl::Seconds(1);
  std::optional<absl::Duration> delay;
  bool on = false;
  std::string name = "n";
  std::vector<std::string> regions;
  Mode mode = Mode::kFast;
  std::optional<Mode> maybe;
  RetryOptions retry;
};

OptionTable<Options> OptionsTable() {
  using O = Options;
  OptionTable<O> table({
      IntOption<O>("count", [](O& o) -> int64_t& { return o.count; }, "1", "5",
                   0, 10, {"old-count"}),
      IntOption<O, int>(
          "small", [](O& o) -> int& { return o.small; }, "2", "3"),
      DurationOption<O>(
          "wait", [](O& o) -> absl::Duration& { return o.wait; }, "1s", "2s"),
      DurationOption<O, std::optional<absl::Duration>>(
          "delay",
          [](O& o) -> std::optional<absl::Duration>& { return o.delay; },
          "unset", "5ms"),
      BoolOption<O>(
          "on", [](O& o) -> bool& { return o.on; }, "false", "true"),
      StringOption<O>(
          "name", [](O& o) -> std::string& { return o.name; }, "n", "x"),
      StringListOption<O>(
          "regions",
          [](O& o) -> std::vector<std::string>& { return o.regions; }, "unset",
          "a"),
      EnumField<O>(
          kModeOption, [](O& o) -> Mode& { return o.mode; }, "fast", "safe"),
  });
  table.Include<RetryOptions>(RetryOptionTable(RetryOptions()),
                              [](O& o) -> RetryOptions& { return o.retry; });
  return table;
}

TEST(OptionTableTest, EveryKindOfValueReachesItsMember) {
  MapSource source({{"count", "7"},
                    {"small", "9"},
                    {"wait", "250ms"},
                    {"delay", "5ms"},
                    {"on", "true"},
                    {"name", "orders"},
                    {"regions", "eu,us"},
                    {"mode", "SAFE"},
                    {"retry-max-attempts", "3"},
                    {"retry-total-timeout", "1m"},
                    {"retry-initial-backoff", "10ms"},
                    {"retry-max-backoff", "1s"},
                    {"retry-backoff-multiplier", "1.5"}});
  Options options;
  ASSERT_TRUE(OptionsTable().Read(source, options).ok());
  EXPECT_EQ(options.count, 7);
  EXPECT_EQ(options.small, 9);
  EXPECT_EQ(options.wait, absl::Milliseconds(250));
  EXPECT_EQ(options.delay, absl::Milliseconds(5));
  EXPECT_TRUE(options.on);
  EXPECT_EQ(options.name, "orders");
  EXPECT_THAT(options.regions, ElementsAre("eu", "us"));
  EXPECT_EQ(options.mode, Mode::kSafe);
  EXPECT_EQ(options.retry.max_attempts, 3);
  EXPECT_EQ(options.retry.total_timeout, absl::Minutes(1));
  EXPECT_EQ(options.retry.backoff.initial_delay, absl::Milliseconds(10));
  EXPECT_EQ(options.retry.backoff.max_delay, absl::Seconds(1));
  EXPECT_EQ(options.retry.backoff.multiplier, 1.5);
}

TEST(OptionTableTest, AbsentOptionsKeepTheirDefaults) {
  MapSource source({});
  Options options;
  ASSERT_TRUE(OptionsTable().Read(source, options).ok());
  EXPECT_EQ(options.count, 1);
  EXPECT_FALSE(options.delay.has_value());
  EXPECT_EQ(options.retry.max_attempts, RetryOptions().max_attempts);
}

TEST(OptionTableTest, AnOldSpellingIsReadAndWarnedAbout) {
  MapSource source(std::map<std::string, std::string>{{"old-count", "4"}});
  Options options;
  ASSERT_TRUE(OptionsTable().Read(source, options).ok());
  EXPECT_EQ(options.count, 4);
  EXPECT_THAT(source.deprecated, ElementsAre("old-count->count"));
}

TEST(OptionTableTest, BothSpellingsTogetherAreRefused) {
  MapSource source({{"old-count", "4"}, {"count", "5"}});
  Options options;
  absl::Status status = OptionsTable().Read(source, options);
  EXPECT_THAT(status.message(),
              HasSubstr("'old-count' is the old spelling of 'count'"));
}

TEST(OptionTableTest, BoundsAndEnumSpellingsAreChecked) {
  Options options;
  MapSource too_big(std::map<std::string, std::string>{{"count", "11"}});
  EXPECT_THAT(OptionsTable().Read(too_big, options).message(),
              HasSubstr("count"));
  MapSource unknown(std::map<std::string, std::string>{{"mode", "quick"}});
  absl::Status status = OptionsTable().Read(unknown, options);
  EXPECT_THAT(status.message(), HasSubstr("mode"));
  EXPECT_THAT(status.message(), HasSubstr("fast, safe"));
}

TEST(OptionTableTest, RetryDefaultsAreStatedForTheDocs) {
  RetryOptions defaults;
  defaults.backoff.initial_delay = absl::Milliseconds(500);
  OptionTable<RetryOptions> table = RetryOptionTable(defaults);
  ASSERT_EQ(table.fields().size(), 5u);
  EXPECT_EQ(table.fields()[2].key, "retry-initial-backoff");
  EXPECT_EQ(table.fields()[2].default_text, "500ms");
}

TEST(CheckRetryOptionsTest, NamesTheOptions) {
  RetryOptions retry;
  retry.backoff.multiplier = 1;
  EXPECT_THAT(CheckRetryOptions(retry).message(),
              HasSubstr("retry-backoff-multiplier"));
}

}  // namespace
}  // namespace gcpstream::connector
