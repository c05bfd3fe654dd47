#include "gcpstream/config/option_map.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::config {
namespace {

using ::testing::HasSubstr;

enum class Mode { kNone, kPerKey };
inline constexpr EnumSpelling<Mode> kModes[] = {{"none", Mode::kNone},
                                                {"per-key", Mode::kPerKey}};
inline constexpr EnumOption<Mode> kModeOption("ordering-mode", kModes);

OptionMap Load(const std::string& yaml) {
  auto map =
      OptionMap::FromNode(YAML::Load(yaml), "pipeline.yaml", "source 'orders'");
  EXPECT_TRUE(map.ok()) << map.status();
  return *std::move(map);
}

TEST(OptionMapTest, ReadsTypedValuesCaseInsensitively) {
  OptionMap map = Load(
      "Ordering-Mode: PER-KEY\n"
      "max-outstanding-messages: 500\n"
      "stream-ack-deadline: 30s\n"
      "enable: true\n"
      "subscriptions: [a, b]\n"
      "create:\n"
      "  topic: orders\n");
  EXPECT_EQ(map.Enum(kModeOption)->value(), Mode::kPerKey);
  EXPECT_EQ(map.Int("max-outstanding-messages", 1, 1000)->value(), 500);
  EXPECT_EQ(map.Duration("stream-ack-deadline")->value(), absl::Seconds(30));
  EXPECT_EQ(map.Bool("enable")->value(), true);
  EXPECT_THAT(map.StringList("subscriptions")->value(),
              ::testing::ElementsAre("a", "b"));
  auto create = map.Map("create");
  ASSERT_TRUE(create.ok() && create->has_value());
  EXPECT_EQ(*(*create)->RequiredString("topic"), "orders");
  EXPECT_FALSE(map.String("absent")->has_value());
  EXPECT_TRUE(map.CheckNoUnknownKeys().ok());
}

TEST(OptionMapTest, UnknownKeyNamesPositionAcceptedKeysAndClosest) {
  OptionMap map = Load(
      "subscriptions: [a]\n"
      "odering-mode: none\n");
  ASSERT_TRUE(map.StringList("subscriptions").ok());
  ASSERT_TRUE(map.Enum(kModeOption).ok());
  const absl::Status status = map.CheckNoUnknownKeys();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("pipeline.yaml:2:1: source 'orders'"
                                          ": unknown option 'odering-mode'"));
  EXPECT_THAT(status.message(),
              HasSubstr("accepted: ordering-mode, subscriptions"));
  EXPECT_THAT(status.message(), HasSubstr("did you mean 'ordering-mode'?"));
}

TEST(OptionMapTest, BadValuesNameTheirPositionAndAcceptedValues) {
  OptionMap map = Load(
      "a: 1\n"
      "ordering-mode: per_key\n"
      "count: many\n"
      "deadline: 0s\n"
      "flag: yes-please\n"
      "list: x\n");
  auto mode = map.Enum(kModeOption);
  EXPECT_THAT(mode.status().message(),
              HasSubstr("pipeline.yaml:2:16: source 'orders': ordering-mode: "
                        "unknown value 'per_key'; accepted values: none, "
                        "per-key"));
  EXPECT_THAT(map.Int("count").status().message(),
              HasSubstr("pipeline.yaml:3:8: source 'orders': option 'count' "
                        "must be a whole number"));
  EXPECT_THAT(map.Int("a", 5, 10).status().message(),
              HasSubstr("must be between 5 and 10"));
  EXPECT_THAT(map.Duration("deadline").status().message(),
              HasSubstr("pipeline.yaml:4:11"));
  EXPECT_THAT(map.Bool("flag").status().message(),
              HasSubstr("must be true or false"));
  EXPECT_THAT(map.StringList("list").status().message(),
              HasSubstr("must be a list"));
}

TEST(OptionMapTest, MissingRequiredAndDuplicatesAndNonMappings) {
  OptionMap map = Load("x: 1\n");
  EXPECT_THAT(map.RequiredString("topic").status().message(),
              HasSubstr("option 'topic' is required"));
  EXPECT_THAT(Load("tpoic: a\n").RequiredString("topic").status().message(),
              HasSubstr("option 'topic' is required ('tpoic' at "
                        "pipeline.yaml:1:1 looks like a misspelling of it)"));
  auto twice = OptionMap::FromNode(YAML::Load("topic: a\nTOPIC: b\n"), "p.yaml",
                                   "sink 'out'");
  EXPECT_THAT(twice.status().message(),
              HasSubstr("p.yaml:2:1: sink 'out': option 'TOPIC' is written "
                        "twice (first at p.yaml:1:1)"));
  auto list = OptionMap::FromNode(YAML::Load("[a, b]"), "p.yaml", "sink 'out'");
  EXPECT_THAT(list.status().message(), HasSubstr("must be a mapping"));
  auto sinks = Load("sinks:\n  - type: pubsub\n  - 3\n").MapList("sinks");
  EXPECT_THAT(sinks.status().message(), HasSubstr("p"));
  EXPECT_THAT(sinks.status().message(), HasSubstr("must be a mapping"));
}

TEST(OptionMapTest, ADuplicateAmongManyKeysNamesBothPositions) {
  std::string text;
  for (int i = 0; i < 50000; ++i) absl::StrAppend(&text, "key-", i, ": 1\n");
  absl::StrAppend(&text, "KEY-0: 2\n");
  auto map = OptionMap::FromNode(YAML::Load(text), "p.yaml", "sink 'out'");
  EXPECT_THAT(map.status().message(),
              HasSubstr("p.yaml:50001:1: sink 'out': option 'KEY-0' is "
                        "written twice (first at p.yaml:1:1)"));
}

}  // namespace
}  // namespace gcpstream::config
