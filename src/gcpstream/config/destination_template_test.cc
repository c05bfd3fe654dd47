#include "gcpstream/config/destination_template.h"

#include <nlohmann/json.hpp>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::config {
namespace {

using ::testing::HasSubstr;

json::JsonRecord Rec(const nlohmann::json& tree) {
  return json::JsonRecord::FromTree(tree);
}

const absl::Time kEventTime = absl::FromUnixSeconds(1796083200 + 3600 * 13);

std::string RenderOrDie(absl::string_view text, const nlohmann::json& record) {
  auto parsed = DestinationTemplate::Parse(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return "";
  auto rendered = parsed->Render(Rec(record), kEventTime);
  EXPECT_TRUE(rendered.ok()) << rendered.status();
  return rendered.ok() ? *rendered : "";
}

TEST(DestinationTemplateTest, RendersFieldsEventTimeAndHashes) {
  const nlohmann::json record = {{"region", "eu"},
                                 {"customer", {{"id", 42}, {"tier", "gold"}}},
                                 {"vip", true}};
  EXPECT_EQ(RenderOrDie("orders-{region}", record), "orders-eu");
  EXPECT_EQ(RenderOrDie("{customer.tier}-{customer.id}-{vip}", record),
            "gold-42-true");
  EXPECT_EQ(RenderOrDie("orders-{event_time:%Y%m%d}", record),
            "orders-20261201");
  EXPECT_EQ(RenderOrDie("t{event_time:%Y-%m-%d_%H}", record), "t2026-12-01_13");
  // StableHash("42") % 4 == 3, computed independently (FNV-1a 64).
  EXPECT_EQ(RenderOrDie("webhooks-{hash(customer.id) % 4}", record),
            "webhooks-3");
  EXPECT_TRUE(DestinationTemplate::Parse("orders")->constant());
  EXPECT_FALSE(DestinationTemplate::Parse("orders-{region}")->constant());
}

TEST(DestinationTemplateTest, StableHashIsFnv1a64) {
  EXPECT_EQ(StableHash(""), 14695981039346656037ULL);
  EXPECT_EQ(StableHash("a"), 12638187200555641996ULL);
  EXPECT_EQ(StableHash("customer-42"), 2169482062117533086ULL);
}

TEST(DestinationTemplateTest, BadTemplatesAreRefusedAtLoadWithTheOffset) {
  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& c : {
           Case{"orders-{region", "'{' at offset 7 is not closed"},
           Case{"orders-}", "'}' at offset 7 closes nothing"},
           Case{"orders-{}", "empty name"},
           Case{"orders-{re gion}", "character ' ' at offset 2"},
           Case{"{event_time}", "needs a format"},
           Case{"{event_time:%Y/%m}", "character '/'"},
           Case{"{event_time:%s}", "only %Y %m %d %H %M %S %j"},
           Case{"{hash(customer_id)}", "'% N'"},
           Case{"{hash(customer_id) % 0}", "'% N'"},
           Case{"{hash(customer_id % 4}", "not closed with ')'"},
           Case{"", "cannot be empty"},
       }) {
    auto parsed = DestinationTemplate::Parse(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_THAT(parsed.status().message(), HasSubstr(c.expected)) << c.text;
  }
}

TEST(DestinationTemplateTest, RecordsThatDoNotFitAreRecordErrors) {
  auto parsed = DestinationTemplate::Parse("orders-{customer.region}");
  ASSERT_TRUE(parsed.ok());
  auto missing = parsed->Render(Rec({{"customer", {{"id", 1}}}}), kEventTime);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("field 'customer.region' is missing"));
  auto not_object = parsed->Render(Rec({{"customer", "x"}}), kEventTime);
  EXPECT_THAT(not_object.status().message(), HasSubstr("not an object"));
  auto fraction =
      parsed->Render(Rec({{"customer", {{"region", 1.5}}}}), kEventTime);
  EXPECT_THAT(fraction.status().message(), HasSubstr("fraction"));
  auto null =
      parsed->Render(Rec({{"customer", {{"region", nullptr}}}}), kEventTime);
  EXPECT_THAT(null.status().message(), HasSubstr("null"));
  auto timed = DestinationTemplate::Parse("t{event_time:%Y}");
  ASSERT_TRUE(timed.ok());
  EXPECT_THAT(timed->Render(Rec({}), absl::InfinitePast()).status().message(),
              HasSubstr("has none"));
}

}  // namespace
}  // namespace gcpstream::config
