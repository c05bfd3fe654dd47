#ifndef GCPSTREAM_PUBSUB_PUBSUB_MESSAGE_H_
#define GCPSTREAM_PUBSUB_PUBSUB_MESSAGE_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/base/writer_context.h"
#include "google/pubsub/v1/pubsub.pb.h"

namespace gcpstream::pubsub {

using ::google::pubsub::v1::PubsubMessage;

// Turns a record into the message to publish. nullopt skips the record
// (counted in `records_skipped`); an error is a per-record serialization
// failure that goes to the sink's failure handler. On a hot path, build the
// message inside the result (`StatusOr<...> out(absl::in_place,
// std::in_place)`, fill `**out`, `return out;`): a PubsubMessage move costs
// about as much as publishing a small message's bytes.
template <typename T>
using MessageSerializer =
    std::function<absl::StatusOr<std::optional<PubsubMessage>>(
        const T&, const WriterContext&)>;

// The service's limits on one message that the sink checks before sending,
// so that one bad message is a per-record failure instead of a refused batch.
inline constexpr size_t kMaxAttributesPerMessage = 100;
inline constexpr size_t kMaxAttributeKeyBytes = 256;
inline constexpr size_t kMaxAttributeValueBytes = 1024;
inline constexpr size_t kMaxOrderingKeyBytes = 1024;

// OK, or InvalidArgument saying which limit `message` breaks: no data and no
// attributes, too many attributes, an empty or oversized attribute key, an
// oversized attribute value or ordering key. (The size of the whole message
// is checked against the request limit by PublishBatcher::CheckMessage.)
absl::Status CheckMessageLimits(const PubsubMessage& message);

// A serializer from parts: `payload` gives the message data (an error is a
// serialization failure, nullopt skips the record); `attributes` and
// `ordering_key`, when set, add attributes and a key (an empty key means
// none).
template <typename T>
MessageSerializer<T> MakeMessageSerializer(
    std::function<absl::StatusOr<std::optional<std::string>>(const T&)> payload,
    std::function<std::map<std::string, std::string>(const T&)> attributes =
        nullptr,
    std::function<std::string(const T&)> ordering_key = nullptr) {
  return [payload = std::move(payload), attributes = std::move(attributes),
          ordering_key = std::move(ordering_key)](
             const T& record, const WriterContext& /*context*/)
             -> absl::StatusOr<std::optional<PubsubMessage>> {
    absl::StatusOr<std::optional<std::string>> data = payload(record);
    if (!data.ok()) return data.status();
    if (!data->has_value()) return std::nullopt;
    // Built where it is returned: a PubsubMessage move is not free.
    absl::StatusOr<std::optional<PubsubMessage>> out(absl::in_place,
                                                     std::in_place);
    PubsubMessage& message = **out;
    message.set_data(**std::move(data));
    if (attributes) {
      for (auto& [key, value] : attributes(record)) {
        (*message.mutable_attributes())[key] = std::move(value);
      }
    }
    if (ordering_key) message.set_ordering_key(ordering_key(record));
    return out;
  };
}

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBSUB_MESSAGE_H_
