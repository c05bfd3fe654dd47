#include "gcpstream/pubsub/publish_batcher.h"

#include <utility>

#include <google/protobuf/io/coded_stream.h>

#include "absl/strings/str_cat.h"
#include "gcpstream/base/options.h"

namespace gcpstream::pubsub {
namespace {

using ::google::protobuf::io::CodedOutputStream;
using ::google::pubsub::v1::PublishRequest;
using ::google::pubsub::v1::PubsubMessage;

// PublishRequest.topic is field 1 and .messages field 2, both length
// delimited: their tags encode in one byte each.
constexpr size_t kFieldTagBytes = 1;

size_t LengthDelimitedFieldBytes(size_t payload_bytes) {
  return kFieldTagBytes + CodedOutputStream::VarintSize64(payload_bytes) +
         payload_bytes;
}

absl::Status OutOfRange(absl::string_view key, int64_t value, int64_t max) {
  return absl::InvalidArgumentError(
      absl::StrCat("option '", key, "' must be between 1 and ", max,
                   " (the service's limit), got ", value));
}

}  // namespace

absl::Status CheckPublishBatcherOptions(const PublishBatcherOptions& options) {
  if (options.max_messages < 1 ||
      options.max_messages > kMaxMessagesPerPublish) {
    return OutOfRange(kMaxBatchMessagesKey, options.max_messages,
                      kMaxMessagesPerPublish);
  }
  if (options.max_bytes < 1 || options.max_bytes > kMaxPublishRequestBytes) {
    return OutOfRange(kMaxBatchBytesKey, options.max_bytes,
                      kMaxPublishRequestBytes);
  }
  return CheckDurationOption(options.max_delay, kMaxBatchDelayKey);
}

absl::StatusOr<PublishBatcher> PublishBatcher::Create(
    std::string topic, const PublishBatcherOptions& options,
    const Clock& clock) {
  if (absl::Status status = CheckPublishBatcherOptions(options); !status.ok()) {
    return status;
  }
  if (topic.empty()) {
    return absl::InvalidArgumentError("publish batcher: topic is empty");
  }
  return PublishBatcher(std::move(topic), options, clock);
}

PublishBatcher::PublishBatcher(std::string topic,
                               const PublishBatcherOptions& options,
                               const Clock& clock)
    : options_(options),
      clock_(&clock),
      empty_request_bytes_(
          static_cast<int64_t>(LengthDelimitedFieldBytes(topic.size()))) {
  request_.set_topic(std::move(topic));
  bytes_ = empty_request_bytes_;
}

size_t PublishBatcher::FramedSize(size_t message_bytes) {
  return LengthDelimitedFieldBytes(message_bytes);
}

absl::Status PublishBatcher::CheckMessage(size_t message_bytes) const {
  const int64_t alone =
      empty_request_bytes_ + static_cast<int64_t>(FramedSize(message_bytes));
  if (alone <= kMaxPublishRequestBytes) return absl::OkStatus();
  // The service's per-message limit (10 MB of data, attributes and ordering
  // key) is below the request limit; any message past it also fails here,
  // so one check covers both.
  return absl::InvalidArgumentError(
      absl::StrCat("Pub/Sub message of ", message_bytes,
                   " serialized bytes cannot be published to ",
                   request_.topic(), ": a request holding it alone would be ",
                   alone, " bytes, over the service's limit of ",
                   kMaxPublishRequestBytes, " bytes per publish request"));
}

bool PublishBatcher::HasRoomFor(size_t message_bytes) const {
  if (empty()) return true;
  if (messages() >= options_.max_messages) return false;
  return bytes_ + static_cast<int64_t>(FramedSize(message_bytes)) <=
         options_.max_bytes;
}

absl::Status PublishBatcher::Add(std::unique_ptr<PubsubMessage> message,
                                 size_t message_bytes) {
  const auto framed = static_cast<int64_t>(FramedSize(message_bytes));
  if (empty_request_bytes_ + framed > kMaxPublishRequestBytes) {
    return CheckMessage(message_bytes);
  }
  if (!HasRoomFor(message_bytes)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "publish batcher for ", request_.topic(), ": no room for a message of ",
        framed, " bytes in a batch of ", messages(), " messages and ", bytes_,
        " bytes; Take() it first"));
  }
  if (empty()) first_added_ = clock_->Now();
  request_.mutable_messages()->AddAllocated(message.release());
  bytes_ += framed;
  return absl::OkStatus();
}

bool PublishBatcher::Full() const {
  return messages() >= options_.max_messages || bytes_ >= options_.max_bytes;
}

bool PublishBatcher::Due() const {
  return !empty() && clock_->Now() >= Deadline();
}

absl::Time PublishBatcher::Deadline() const {
  if (empty()) return absl::InfiniteFuture();
  return first_added_ + options_.max_delay;
}

PublishRequest PublishBatcher::Take() {
  PublishRequest out;
  out.set_topic(request_.topic());
  out.Swap(&request_);
  bytes_ = empty_request_bytes_;
  first_added_ = absl::InfiniteFuture();
  return out;
}

}  // namespace gcpstream::pubsub
