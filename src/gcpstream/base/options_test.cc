#include "gcpstream/base/options.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseDurationOptionTest, ParsesCommonSpellings) {
  struct Case {
    const char* text;
    absl::Duration want;
  };
  for (const Case& c :
       {Case{"30s", absl::Seconds(30)}, Case{"500ms", absl::Milliseconds(500)},
        Case{"2m", absl::Minutes(2)}, Case{"1h30m", absl::Minutes(90)},
        Case{"1.5s", absl::Milliseconds(1500)},
        Case{"1ns", absl::Nanoseconds(1)},
        Case{"250us", absl::Microseconds(250)}}) {
    auto parsed = ParseDurationOption(c.text, "flush-interval");
    ASSERT_TRUE(parsed.ok()) << c.text << ": " << parsed.status();
    EXPECT_EQ(*parsed, c.want) << c.text;
  }
}

TEST(ParseDurationOptionTest, RejectsNonPositiveUnboundedAndMalformed) {
  for (const char* bad :
       {"", "0", "0s", "-1s", "inf", "-inf", "30", "s", "30 s", " 30s", "30s ",
        "30sec", "1d", "0.1ns", "2562048h", "abc"}) {
    auto parsed = ParseDurationOption(bad, "idle-timeout");
    ASSERT_FALSE(parsed.ok()) << "accepted '" << bad << "'";
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(), HasSubstr("idle-timeout: '"));
  }
}

TEST(ParseDurationOptionTest, UpperBoundIsExactlyTheInt64NanosecondLimit) {
  EXPECT_EQ(absl::ToInt64Nanoseconds(kMaxDurationOption), INT64_MAX);
  auto max = ParseDurationOption("9223372036854775807ns", "timeout");
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ(absl::ToInt64Nanoseconds(*max), INT64_MAX);
  EXPECT_FALSE(ParseDurationOption("9223372036854775808ns", "timeout").ok());
  auto over = ParseDurationOption("2562048h", "timeout");
  ASSERT_FALSE(over.ok());
  // The limit quoted in the message is the real one.
  EXPECT_THAT(over.status().message(),
              HasSubstr(absl::FormatDuration(kMaxDurationOption)));
}

TEST(CheckDurationOptionTest, AppliesTheSameBounds) {
  EXPECT_TRUE(CheckDurationOption(absl::Seconds(1), "k").ok());
  EXPECT_TRUE(CheckDurationOption(kMaxDurationOption, "k").ok());
  for (absl::Duration bad :
       {absl::ZeroDuration(), -absl::Seconds(1), absl::InfiniteDuration(),
        kMaxDurationOption + absl::Nanoseconds(1)}) {
    absl::Status status = CheckDurationOption(bad, "max-delay");
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(status.message(), HasSubstr("max-delay"));
  }
}

TEST(CheckResourceNameComponentTest, AcceptsPlainIds) {
  for (const char* good :
       {"my-project", "topic_1", "a", "dataset.table", "with space inside"}) {
    EXPECT_TRUE(CheckResourceNameComponent(good, "topic").ok()) << good;
  }
}

TEST(CheckResourceNameComponentTest, RejectsEmptySlashAndOuterWhitespace) {
  struct Case {
    const char* value;
    const char* why;
  };
  for (const Case& c :
       {Case{"", "empty"}, Case{"a/b", "'/'"},
        Case{"projects/p/topics/t", "'/'"}, Case{"/", "'/'"},
        Case{" topic", "whitespace"}, Case{"topic ", "whitespace"},
        Case{"topic\n", "whitespace"}, Case{"\ttopic", "whitespace"},
        Case{" ", "whitespace"}}) {
    absl::Status status = CheckResourceNameComponent(c.value, "dataset");
    ASSERT_FALSE(status.ok()) << "accepted '" << c.value << "'";
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr("dataset: '"));
    EXPECT_THAT(status.message(), HasSubstr(c.why)) << c.value;
  }
}

enum class OrderingMode { kNone, kPerKey, kGlobalStrict };

constexpr EnumSpelling<OrderingMode> kOrderingModes[] = {
    {"none", OrderingMode::kNone},
    {"per-key", OrderingMode::kPerKey},
    {"global-strict", OrderingMode::kGlobalStrict}};
constexpr EnumOption kOrderingModeOption("ordering-mode", kOrderingModes);

TEST(EnumOptionTest, EverySpellingRoundTrips) {
  ASSERT_TRUE(kOrderingModeOption.CheckSpellings().ok());
  for (OrderingMode mode : {OrderingMode::kNone, OrderingMode::kPerKey,
                            OrderingMode::kGlobalStrict}) {
    const absl::string_view name = kOrderingModeOption.Name(mode);
    auto parsed = kOrderingModeOption.Parse(name);
    ASSERT_TRUE(parsed.ok()) << name << ": " << parsed.status();
    EXPECT_EQ(*parsed, mode) << name;
  }
  for (absl::string_view spelling : kOrderingModeOption.Spellings()) {
    auto parsed = kOrderingModeOption.Parse(spelling);
    ASSERT_TRUE(parsed.ok()) << spelling;
    EXPECT_EQ(kOrderingModeOption.Name(*parsed), spelling);
  }
  EXPECT_EQ(kOrderingModeOption.Name(OrderingMode::kPerKey), "per-key");
  EXPECT_EQ(kOrderingModeOption.key(), "ordering-mode");
}

TEST(EnumOptionTest, ParsingIgnoresAsciiCaseOnly) {
  for (const char* spelling : {"PER-KEY", "Per-Key", "pEr-kEy"}) {
    auto parsed = kOrderingModeOption.Parse(spelling);
    ASSERT_TRUE(parsed.ok()) << spelling;
    EXPECT_EQ(*parsed, OrderingMode::kPerKey);
  }
  for (const char* bad : {"per_key", "perkey", " per-key", "per-key ",
                          "per key", "PER_KEY", "kPerKey", "", "per-"}) {
    auto parsed = kOrderingModeOption.Parse(bad);
    ASSERT_FALSE(parsed.ok()) << "accepted '" << bad << "'";
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(),
              absl::StrCat("ordering-mode: unknown value '", bad,
                           "'; accepted values: none, per-key, "
                           "global-strict"));
  }
}

TEST(EnumOptionTest, UnlistedValueHasAVisibleName) {
  EXPECT_EQ(kOrderingModeOption.Name(static_cast<OrderingMode>(99)),
            "<unlisted>");
}

TEST(EnumOptionTest, CheckSpellingsCatchesBrokenTables) {
  static constexpr EnumSpelling<OrderingMode> kDuplicateSpelling[] = {
      {"none", OrderingMode::kNone}, {"none", OrderingMode::kPerKey}};
  static constexpr EnumSpelling<OrderingMode> kDuplicateValue[] = {
      {"none", OrderingMode::kNone}, {"off", OrderingMode::kNone}};
  static constexpr EnumSpelling<OrderingMode> kUpperCase[] = {
      {"Per-Key", OrderingMode::kPerKey}};
  static constexpr EnumSpelling<OrderingMode> kUnderscore[] = {
      {"per_key", OrderingMode::kPerKey}};
  static constexpr EnumSpelling<OrderingMode> kDoubleHyphen[] = {
      {"per--key", OrderingMode::kPerKey}};
  static constexpr EnumSpelling<OrderingMode> kTrailingHyphen[] = {
      {"per-", OrderingMode::kPerKey}};
  static constexpr EnumSpelling<OrderingMode> kEmpty[] = {
      {"", OrderingMode::kPerKey}};
  struct Case {
    EnumOption<OrderingMode> option;
    const char* why;
  };
  for (const Case& c :
       {Case{EnumOption("k", kDuplicateSpelling), "listed twice"},
        Case{EnumOption("k", kDuplicateValue), "another spelling"},
        Case{EnumOption("k", kUpperCase), "lower-case"},
        Case{EnumOption("k", kUnderscore), "lower-case"},
        Case{EnumOption("k", kDoubleHyphen), "lower-case"},
        Case{EnumOption("k", kTrailingHyphen), "lower-case"},
        Case{EnumOption("k", kEmpty), "lower-case"}}) {
    absl::Status status = c.option.CheckSpellings();
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << c.why;
    EXPECT_THAT(status.message(), HasSubstr(c.why));
  }
  static constexpr EnumSpelling<OrderingMode> kDigits[] = {
      {"v2-mode", OrderingMode::kPerKey}};
  EXPECT_TRUE(EnumOption("k", kDigits).CheckSpellings().ok());
  EXPECT_THAT(EnumOption("k", kDigits).Spellings(), ElementsAre("v2-mode"));
}

TEST(EnumOptionTest, AnOldSpellingParsesButIsNeverOfferedOrPrinted) {
  static constexpr EnumSpelling<OrderingMode> kWithOld[] = {
      {"fail-job", OrderingMode::kNone},
      {"route", OrderingMode::kPerKey},
      {"fail-pipeline", OrderingMode::kNone, /*deprecated=*/true}};
  constexpr EnumOption kOption("handling", kWithOld);
  ASSERT_TRUE(kOption.CheckSpellings().ok());
  auto parsed = kOption.Parse("FAIL-PIPELINE");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, OrderingMode::kNone);
  EXPECT_EQ(kOption.Name(OrderingMode::kNone), "fail-job");
  EXPECT_THAT(kOption.Spellings(), ElementsAre("fail-job", "route"));
  EXPECT_THAT(kOption.Parse("nope").status().message(),
              HasSubstr("accepted values: fail-job, route"));
  // An old spelling must follow the current spelling of its value.
  static constexpr EnumSpelling<OrderingMode> kOrphan[] = {
      {"old", OrderingMode::kNone, /*deprecated=*/true},
      {"new", OrderingMode::kNone}};
  EXPECT_THAT(EnumOption("k", kOrphan).CheckSpellings().message(),
              HasSubstr("no current spelling"));
}

}  // namespace
}  // namespace gcpstream
