#include "gcpstream/pubsub/publish_batcher.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::pubsub {
namespace {

using ::google::pubsub::v1::PublishRequest;
using ::google::pubsub::v1::PubsubMessage;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kTopic[] = "projects/p/topics/t";

PubsubMessage Message(size_t data_bytes) {
  PubsubMessage message;
  message.set_data(std::string(data_bytes, 'x'));
  return message;
}

PublishBatcher Make(const PublishBatcherOptions& options, const Clock& clock) {
  auto batcher = PublishBatcher::Create(kTopic, options, clock);
  EXPECT_TRUE(batcher.ok()) << batcher.status();
  return *std::move(batcher);
}

TEST(PublishBatcherOptionsTest, DefaultsAreValid) {
  PublishBatcherOptions options;
  EXPECT_EQ(options.max_messages, 100);
  EXPECT_EQ(options.max_bytes, 1'000'000);
  EXPECT_EQ(options.max_delay, absl::Milliseconds(10));
  EXPECT_TRUE(CheckPublishBatcherOptions(options).ok());
}

TEST(PublishBatcherOptionsTest, ServiceLimitsAreAccepted) {
  PublishBatcherOptions options;
  options.max_messages = kMaxMessagesPerPublish;
  options.max_bytes = kMaxPublishRequestBytes;
  EXPECT_TRUE(CheckPublishBatcherOptions(options).ok());
}

TEST(PublishBatcherOptionsTest, ErrorsNameTheKey) {
  PublishBatcherOptions options;
  options.max_messages = 1001;
  EXPECT_THAT(CheckPublishBatcherOptions(options).message(),
              AllOf(HasSubstr("max-batch-messages"), HasSubstr("1000")));
  options.max_messages = 0;
  EXPECT_THAT(CheckPublishBatcherOptions(options).message(),
              HasSubstr("max-batch-messages"));

  options = {};
  options.max_bytes = 10'000'001;
  EXPECT_THAT(CheckPublishBatcherOptions(options).message(),
              AllOf(HasSubstr("max-batch-bytes"), HasSubstr("10000000")));
  options.max_bytes = 0;
  EXPECT_EQ(CheckPublishBatcherOptions(options).code(),
            absl::StatusCode::kInvalidArgument);

  options = {};
  options.max_delay = absl::ZeroDuration();
  EXPECT_THAT(CheckPublishBatcherOptions(options).message(),
              HasSubstr("max-batch-delay"));

  FakeClock clock;
  options.max_delay = -absl::Seconds(1);
  EXPECT_THAT(PublishBatcher::Create(kTopic, options, clock).status().message(),
              HasSubstr("max-batch-delay"));
}

TEST(PublishBatcherTest, FullByCount) {
  FakeClock clock;
  PublishBatcherOptions options;
  options.max_messages = 3;
  PublishBatcher batcher = Make(options, clock);
  EXPECT_TRUE(batcher.empty());
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(batcher.Full());
    ASSERT_TRUE(batcher.HasRoomFor(Message(1)));
    ASSERT_TRUE(batcher.Add(Message(1)).ok());
  }
  EXPECT_TRUE(batcher.Full());
  EXPECT_FALSE(batcher.HasRoomFor(Message(1)));
  EXPECT_EQ(batcher.Add(Message(1)).code(),
            absl::StatusCode::kFailedPrecondition);
  PublishRequest request = batcher.Take();
  EXPECT_EQ(request.topic(), kTopic);
  EXPECT_EQ(request.messages_size(), 3);
  EXPECT_TRUE(batcher.empty());
  EXPECT_FALSE(batcher.Full());
}

TEST(PublishBatcherTest, BytesAreTheSerializedRequestSize) {
  FakeClock clock;
  PublishBatcher batcher = Make({}, clock);
  EXPECT_EQ(batcher.bytes(), batcher.Take().ByteSizeLong());
  // Sizes that cross varint length-prefix boundaries (127/128, 16383/16384)
  // and attributes, ordering keys.
  for (size_t size : {0, 1, 126, 127, 128, 300, 16383, 16384, 70000}) {
    PubsubMessage message = Message(size);
    (*message.mutable_attributes())["key"] = "value";
    message.set_ordering_key("k");
    ASSERT_TRUE(batcher.Add(std::move(message)).ok());
    const int64_t accounted = batcher.bytes();
    PublishRequest copy = batcher.Take();
    EXPECT_EQ(accounted, static_cast<int64_t>(copy.ByteSizeLong())) << size;
    EXPECT_EQ(accounted, static_cast<int64_t>(copy.SerializeAsString().size()));
  }
  for (size_t i = 0; i < 50; ++i) {
    ASSERT_TRUE(batcher.Add(Message(i * 7)).ok());
  }
  const int64_t accounted = batcher.bytes();
  EXPECT_EQ(accounted, static_cast<int64_t>(batcher.Take().ByteSizeLong()));
}

TEST(PublishBatcherTest, FullByBytesAndNeverOverTheThreshold) {
  FakeClock clock;
  PublishBatcherOptions options;
  options.max_bytes = 1000;
  PublishBatcher batcher = Make(options, clock);
  int sent = 0;
  for (int i = 0; i < 100; ++i) {
    PubsubMessage message = Message(90);
    if (!batcher.HasRoomFor(message)) {
      EXPECT_LE(batcher.Take().ByteSizeLong(), 1000U);
      ++sent;
    }
    ASSERT_TRUE(batcher.Add(std::move(message)).ok());
    if (batcher.Full()) {
      EXPECT_LE(batcher.Take().ByteSizeLong(), 1000U);
      ++sent;
    }
  }
  EXPECT_GT(sent, 5);
}

TEST(PublishBatcherTest, RequestsNeverExceedTheServiceCap) {
  FakeClock clock;
  PublishBatcherOptions options;
  options.max_bytes = kMaxPublishRequestBytes;
  options.max_messages = kMaxMessagesPerPublish;
  PublishBatcher batcher = Make(options, clock);
  // Three 3 MB messages fit; a fourth would cross 10,000,000 bytes.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(batcher.HasRoomFor(Message(3'000'000)));
    ASSERT_TRUE(batcher.Add(Message(3'000'000)).ok());
  }
  EXPECT_FALSE(batcher.HasRoomFor(Message(3'000'000)));
  EXPECT_TRUE(batcher.HasRoomFor(Message(900'000)));
  // Fill to the last byte: the request is exactly at the cap.
  const int64_t room = kMaxPublishRequestBytes - batcher.bytes();
  // Framing of a message of n data bytes: data tag + varint(n) + n inside
  // the message, then the message's own tag and length prefix.
  int64_t data = room - 1 - 3 - 1 - 3;
  ASSERT_TRUE(batcher.HasRoomFor(Message(data)));
  EXPECT_FALSE(batcher.HasRoomFor(Message(data + 1)));
  ASSERT_TRUE(batcher.Add(Message(data)).ok());
  EXPECT_EQ(batcher.bytes(), kMaxPublishRequestBytes);
  EXPECT_TRUE(batcher.Full());
  EXPECT_EQ(static_cast<int64_t>(batcher.Take().ByteSizeLong()),
            kMaxPublishRequestBytes);
}

TEST(PublishBatcherTest, MessageOverBatchBytesGoesAlone) {
  FakeClock clock;
  PublishBatcherOptions options;
  options.max_bytes = 1000;
  PublishBatcher batcher = Make(options, clock);
  ASSERT_TRUE(batcher.Add(Message(10)).ok());
  EXPECT_FALSE(batcher.HasRoomFor(Message(5000)));
  batcher.Take();
  ASSERT_TRUE(batcher.HasRoomFor(Message(5000)));
  ASSERT_TRUE(batcher.Add(Message(5000)).ok());
  EXPECT_TRUE(batcher.Full());
  EXPECT_EQ(batcher.Take().messages_size(), 1);
}

TEST(PublishBatcherTest, OversizedMessageIsRefusedBeforeSending) {
  FakeClock clock;
  PublishBatcher batcher = Make({}, clock);
  ASSERT_TRUE(batcher.Add(Message(10)).ok());
  PubsubMessage huge = Message(10'000'000);
  absl::Status refused = batcher.CheckMessage(huge);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      refused.message(),
      AllOf(HasSubstr("10000005"), HasSubstr("10000000"), HasSubstr(kTopic)));
  EXPECT_EQ(batcher.Add(huge).code(), absl::StatusCode::kInvalidArgument);
  // Refused in an empty batch too, and the batch is unchanged.
  EXPECT_EQ(batcher.messages(), 1);
  batcher.Take();
  EXPECT_EQ(batcher.Add(std::move(huge)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(batcher.empty());
  // The largest message that fits alone is accepted.
  const int64_t empty_bytes = batcher.bytes();
  const int64_t largest = kMaxPublishRequestBytes - empty_bytes - 1 - 4 - 1 - 4;
  EXPECT_TRUE(batcher.CheckMessage(Message(largest)).ok());
  EXPECT_FALSE(batcher.CheckMessage(Message(largest + 1)).ok());
}

TEST(PublishBatcherTest, DueByAge) {
  FakeClock clock;
  PublishBatcherOptions options;
  options.max_delay = absl::Milliseconds(50);
  PublishBatcher batcher = Make(options, clock);
  EXPECT_FALSE(batcher.Due());
  EXPECT_EQ(batcher.Deadline(), absl::InfiniteFuture());
  clock.Advance(absl::Seconds(5));  // An empty batch never ages.
  EXPECT_FALSE(batcher.Due());
  const absl::Time first = clock.Now();
  ASSERT_TRUE(batcher.Add(Message(1)).ok());
  EXPECT_EQ(batcher.Deadline(), first + absl::Milliseconds(50));
  clock.Advance(absl::Milliseconds(30));
  ASSERT_TRUE(batcher.Add(Message(1)).ok());
  EXPECT_FALSE(batcher.Due());
  // The oldest message decides.
  clock.Advance(absl::Milliseconds(20));
  EXPECT_TRUE(batcher.Due());
  batcher.Take();
  EXPECT_FALSE(batcher.Due());
  EXPECT_EQ(batcher.Deadline(), absl::InfiniteFuture());
}

}  // namespace
}  // namespace gcpstream::pubsub
