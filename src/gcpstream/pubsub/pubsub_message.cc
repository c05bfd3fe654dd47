#include "gcpstream/pubsub/pubsub_message.h"

#include "absl/strings/str_cat.h"

namespace gcpstream::pubsub {

absl::Status CheckMessageLimits(const PubsubMessage& message) {
  if (message.data().empty() && message.attributes().empty()) {
    return absl::InvalidArgumentError(
        "a Pub/Sub message needs data or at least one attribute; this one "
        "has neither");
  }
  if (message.attributes_size() > static_cast<int>(kMaxAttributesPerMessage)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a Pub/Sub message may carry at most ", kMaxAttributesPerMessage,
        " attributes; this one has ", message.attributes_size()));
  }
  for (const auto& [key, value] : message.attributes()) {
    if (key.empty() || key.size() > kMaxAttributeKeyBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Pub/Sub attribute keys must be 1 to ", kMaxAttributeKeyBytes,
          " bytes; got a key of ", key.size(), " bytes"));
    }
    if (value.size() > kMaxAttributeValueBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Pub/Sub attribute values must be at most ", kMaxAttributeValueBytes,
          " bytes; attribute '", key.substr(0, 64), "' has ", value.size()));
    }
  }
  if (message.ordering_key().size() > kMaxOrderingKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Pub/Sub ordering keys must be at most ", kMaxOrderingKeyBytes,
        " bytes; got ", message.ordering_key().size()));
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::pubsub
