#include "gcpstream/pubsub/pubsub_message.h"

#include "absl/strings/str_cat.h"

namespace gcpstream::pubsub {

absl::Status CheckMessageLimits(const PubsubMessage& message) {
  // One access: each one synchronises the map field.
  const auto& attributes = message.attributes();
  if (message.data().empty() && attributes.empty()) {
    return absl::InvalidArgumentError(
        "a Pub/Sub message needs data or at least one attribute; this one "
        "has neither");
  }
  if (attributes.size() > kMaxAttributesPerMessage) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a Pub/Sub message may carry at most ", kMaxAttributesPerMessage,
        " attributes; this one has ", attributes.size()));
  }
  for (const auto& [key, value] : attributes) {
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
