#include "gcpstream/pubsub/pubsub_message.h"

#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::testing::HasSubstr;

std::string Text(std::mt19937& random, size_t max) {
  // Lengths around the varint boundaries (127/128, 16383/16384) matter most.
  std::uniform_int_distribution<size_t> length(0, max);
  return std::string(length(random), 'x');
}

// The sink counts caps and batch limits in this size, and a request must
// never be larger than counted: it has to be ByteSizeLong() exactly.
TEST(CheckedMessageSizeTest, EqualsTheWireSizeOfEveryMessageShape) {
  std::mt19937 random(20261204);
  for (int i = 0; i < 2000; ++i) {
    PubsubMessage message;
    message.set_data(Text(random, i % 3 == 0 ? 20000 : 300));
    const size_t attributes = random() % 6;
    for (size_t a = 0; a < attributes; ++a) {
      (*message.mutable_attributes())[absl::StrCat("k", a, Text(random, 200))] =
          Text(random, 1000);
    }
    if (random() % 2 == 0) message.set_ordering_key(Text(random, 200));
    if (random() % 5 == 0) message.set_message_id(Text(random, 40));
    if (random() % 7 == 0) message.mutable_publish_time()->set_seconds(i);
    if (message.data().empty() && message.attributes().empty()) {
      message.set_data("x");
    }
    absl::StatusOr<int64_t> size = CheckedMessageSize(message);
    ASSERT_TRUE(size.ok()) << size.status();
    EXPECT_EQ(*size, static_cast<int64_t>(message.ByteSizeLong()))
        << message.ShortDebugString().substr(0, 200);
  }
}

TEST(CheckedMessageSizeTest, UnknownFieldsAreCounted) {
  PubsubMessage with_unknown;
  // Field 9, a varint: what a newer schema could leave in a parsed message.
  ASSERT_TRUE(with_unknown.ParseFromString(std::string("\x0a\x01x\x48\x05")));
  ASSERT_FALSE(
      with_unknown.GetReflection()->GetUnknownFields(with_unknown).empty());
  absl::StatusOr<int64_t> size = CheckedMessageSize(with_unknown);
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ(*size, static_cast<int64_t>(with_unknown.ByteSizeLong()));
}

TEST(CheckedMessageSizeTest, EachLimitIsRefusedNamingIt) {
  struct Case {
    PubsubMessage message;
    const char* says;
  };
  std::vector<Case> cases(5);
  cases[0].says = "neither";
  cases[1].message.set_data("x");
  for (int i = 0; i < 101; ++i) {
    (*cases[1].message.mutable_attributes())[absl::StrCat("a", i)] = "v";
  }
  cases[1].says = "at most 100 attributes";
  (*cases[2].message.mutable_attributes())[""] = "v";
  cases[2].says = "keys must be 1 to 256";
  (*cases[3].message.mutable_attributes())["k"] = std::string(1025, 'v');
  cases[3].says = "values must be at most 1024";
  cases[4].message.set_data("x");
  cases[4].message.set_ordering_key(std::string(1025, 'k'));
  cases[4].says = "ordering keys must be at most 1024";
  for (const Case& c : cases) {
    absl::StatusOr<int64_t> size = CheckedMessageSize(c.message);
    ASSERT_FALSE(size.ok()) << c.says;
    EXPECT_EQ(size.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(size.status().message(), HasSubstr(c.says));
  }
  // At the limits exactly: accepted.
  PubsubMessage at_limits;
  (*at_limits.mutable_attributes())[std::string(256, 'k')] =
      std::string(1024, 'v');
  at_limits.set_ordering_key(std::string(1024, 'o'));
  EXPECT_TRUE(CheckedMessageSize(at_limits).ok());
}

}  // namespace
}  // namespace gcpstream::pubsub
